// Shared by the watch-cache suites: a small object type, its codec, a clock the test drives, and a
// store wrapper that can break the cache's watch on demand.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Observable, type Subscriber, type Subscription } from 'rxjs';
import { MemoryStore, SqliteStore, type KeyValue, type Store, type StoreEvent } from '../../src/storage/index.js';
import { WatchCache, type CacheEvent, type WatchCacheOptions } from '../../src/watch-cache/index.js';

export interface Thing {
  metadata: { name: string; resourceVersion?: string; labels?: Record<string, string> };
  spec: { n: number };
}

export const P = '/registry/things/';
export const key = (name: string) => `${P}${name}`;

const utf8 = new TextEncoder();
const text = new TextDecoder();

export const thing = (name: string, n = 0, labels?: Record<string, string>): Thing => ({
  metadata: { name, ...(labels ? { labels } : {}) },
  spec: { n },
});
export const bytes = (t: Thing) => utf8.encode(JSON.stringify(t));

/** Stored bytes carry no resourceVersion; decode stamps it, as the API server's decoder does. */
export function decode(kv: KeyValue, revision: number): Thing {
  const t = JSON.parse(text.decode(kv.value)) as Thing;
  return { ...t, metadata: { ...t.metadata, resourceVersion: String(revision) } };
}

export const red = (o: { object: Thing }) => o.object.metadata.labels?.['color'] === 'red';

export function newCache(store: Store, options: Partial<WatchCacheOptions<Thing>> = {}): WatchCache<Thing> {
  const cache = new WatchCache<Thing>({ store, prefix: P, decode, ...options });
  cache.start();
  return cache;
}

/** A clock for the history and snapshot windows. */
export class Clock {
  t = 0;
  readonly now = () => this.t;
  advance(ms: number): void {
    this.t += ms;
  }
}

/** Subscribes and records everything. */
export function record<T>(events$: Observable<CacheEvent<T>>) {
  const seen: CacheEvent<T>[] = [];
  const out: { events: CacheEvent<T>[]; error?: unknown; completed: boolean; sub: Subscription } = {
    events: seen,
    completed: false,
    sub: undefined as unknown as Subscription,
  };
  out.sub = events$.subscribe({
    next: (e) => seen.push(e),
    error: (e: unknown) => (out.error = e),
    complete: () => (out.completed = true),
  });
  return out;
}

/** `type name@revision` lines: what a watcher saw, readable in a failed assertion. */
export const lines = (events: readonly CacheEvent<Thing>[]) =>
  events.map((e) => `${e.type} ${e.object.object.metadata.name}@${e.revision} rv=${e.object.object.metadata.resourceVersion}`);

/** What the store holds under P at `revision` (default: now): name → modRevision. */
export async function storeState(store: Store, revision?: number): Promise<Map<string, number>> {
  const { items } = await store.list(P, revision === undefined ? {} : { revision });
  return new Map(items.map((kv) => [kv.key.slice(P.length), kv.modRevision]));
}

/**
 * Delegates to a store, but the watches it hands out can be cut (errored) and can drop events:
 * a watch stream that loses events and then fails, the way a real one does.
 */
export class FaultyStore implements Store {
  dropping = false;
  /** Watch subscriptions opened so far. */
  opened = 0;
  private readonly live = new Set<Subscriber<StoreEvent>>();
  constructor(readonly inner: Store) {}
  get backend() {
    return this.inner.backend;
  }

  get inProcess() {
    return this.inner.inProcess;
  }
  get prefix() {
    return this.inner.prefix;
  }
  get: Store['get'] = (k, o) => this.inner.get(k, o);
  list: Store['list'] = (p, o) => this.inner.list(p, o);
  create: Store['create'] = (k, v, o) => this.inner.create(k, v, o);
  update: Store['update'] = (k, v, r, o) => this.inner.update(k, v, r, o);
  expire: Store['expire'] = (l) => this.inner.expire(l);
  delete: Store['delete'] = (k, r) => this.inner.delete(k, r);
  forceDelete: Store['forceDelete'] = (k) => this.inner.forceDelete(k);
  compact: Store['compact'] = (r) => this.inner.compact(r);
  compactedRevision: Store['compactedRevision'] = () => this.inner.compactedRevision();
  revision: Store['revision'] = () => this.inner.revision();
  close: Store['close'] = () => this.inner.close();
  watch(prefix: string, fromRevision: number): Observable<StoreEvent> {
    return new Observable<StoreEvent>((subscriber) => {
      this.opened++;
      this.live.add(subscriber);
      const sub = this.inner.watch(prefix, fromRevision).subscribe({
        next: (e) => {
          if (!this.dropping) subscriber.next(e);
        },
        error: (e: unknown) => subscriber.error(e),
        complete: () => subscriber.complete(),
      });
      return () => {
        this.live.delete(subscriber);
        sub.unsubscribe();
      };
    });
  }
  /** Fails every watch handed out so far. */
  cut(error: unknown): void {
    for (const s of [...this.live]) s.error(error);
  }
  get watches(): number {
    return this.live.size;
  }
}

export interface Backend {
  name: string;
  open(): { store: Store; dispose(): Promise<void> };
}

export const backends: Backend[] = [
  {
    name: 'memory',
    open() {
      const store = new MemoryStore();
      return { store, dispose: () => store.close() };
    },
  },
  {
    name: 'sqlite',
    open() {
      const dir = mkdtempSync(join(tmpdir(), 'svc-watch-cache-'));
      // NORMAL: these tests need the commit path, not fsyncs.
      const store = new SqliteStore({ path: join(dir, 'state.db'), synchronous: 'NORMAL' });
      return {
        store,
        dispose: async () => {
          await store.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
];

