import type { Subscription } from 'rxjs';
import { afterAll, describe, expect, it } from 'vitest';
import { StorageError, isStorageError, type Store } from '../../src/storage/index.js';
import { WatchExpiredError, type CacheEvent, type CacheFilter, type WatchCache } from '../../src/watch-cache/index.js';
import { FaultyStore, P, backends, bytes, decode, key, newCache, red, thing, type Thing } from './fixtures.js';
import { seededRandom as random } from '../support/prng.js';

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A client as an informer is one: it lists (in pages, across ticks, so writes land between
 * pages), watches from the list's revision, and whenever it is cut off resumes from the last
 * revision it saw — relisting only when told the revision expired. Every event must make sense
 * against what it already has, and revisions must only go up.
 */
class Client {
  readonly state = new Map<string, number>();
  last = 0;
  relists = 0;
  resumes = 0;
  expired = 0;
  /** Ticks left before the reconnect loop may bring it back. */
  offline = 0;
  /** No more random cuts: the run is settling. */
  calm = false;
  private sub: Subscription | undefined;
  private needsList = true;
  private connecting = false;
  readonly violations: string[] = [];

  constructor(
    private readonly cache: WatchCache<Thing>,
    private readonly filter: CacheFilter<Thing> | undefined,
    private readonly rand: () => number,
  ) {}

  async connect(): Promise<void> {
    if (this.connecting || this.sub) return;
    this.connecting = true;
    try {
      if (this.needsList) await this.list();
      this.watch();
    } finally {
      this.connecting = false;
    }
  }

  get connected(): boolean {
    return this.sub !== undefined;
  }

  private async list(): Promise<void> {
    for (;;) {
      this.relists++;
      const items = new Map<string, number>();
      let page = this.cache.list({ limit: 7, ...(this.filter ? { filter: this.filter } : {}) });
      const revision = page.revision;
      let complete = true;
      for (;;) {
        for (const v of page.items) items.set(v.key, v.revision);
        if (page.remaining === 0) break;
        await tick();
        const next = this.cache.listAt(revision, { limit: 7, startKey: `${page.items[page.items.length - 1]!.key}!`, ...(this.filter ? { filter: this.filter } : {}) });
        if (!next) {
          complete = false;
          break;
        }
        page = next;
      }
      if (!complete) continue;
      this.state.clear();
      for (const [k, r] of items) this.state.set(k, r);
      this.last = revision;
      this.needsList = false;
      return;
    }
  }

  private watch(): void {
    let sub: Subscription | undefined;
    let cut = false;
    sub = this.cache.watch({ fromRevision: this.last, ...(this.filter ? { filter: this.filter } : {}) }).subscribe({
      next: (event) => {
        this.apply(event);
        if (!this.calm && this.rand() < 0.1) {
          // Cut off in the middle of the stream; sometimes reconnect right here, inside the callback.
          cut = true;
          sub?.unsubscribe();
          this.sub = undefined;
          this.resumes++;
          // Back at once, from inside the callback, or after a while (long enough, often, for
          // the cache's history to have moved past it).
          const r = this.rand();
          if (r < 0.3) void this.connect();
          else this.offline = r < 0.6 ? 1 : Math.floor(this.rand() * 20);
        }
      },
      error: (error: unknown) => {
        this.sub = undefined;
        if (error instanceof WatchExpiredError) {
          this.needsList = true;
          this.expired++;
        }
        else this.violations.push(`unexpected error ${String(error)}`);
      },
    });
    if (cut) sub.unsubscribe();
    else if (!sub.closed) this.sub = sub;
  }

  private apply(event: CacheEvent<Thing>): void {
    const k = event.object.key;
    const have = this.state.get(k);
    const where = `${event.type} ${k}@${event.revision} after ${this.last}`;
    if (event.revision <= this.last) this.violations.push(`out of order or repeated: ${where}`);
    if (event.type === 'ADDED' && have !== undefined) this.violations.push(`added twice: ${where}`);
    if (event.type !== 'ADDED' && have === undefined) this.violations.push(`${event.type.toLowerCase()} unknown: ${where}`);
    if (event.type === 'MODIFIED' && have !== undefined && have >= event.object.revision) this.violations.push(`stale: ${where}`);
    if (event.type === 'DELETED') this.state.delete(k);
    else this.state.set(k, event.object.revision);
    this.last = event.revision;
  }
}

/** One writer: random creates, updates (flipping colour now and then) and deletes. */
async function writer(store: Store, rand: () => number, ops: number): Promise<void> {
  for (let i = 0; i < ops; i++) {
    const name = `o${Math.floor(rand() * 24)}`;
    const color = rand() < 0.5 ? 'red' : 'blue';
    try {
      const current = await store.get(key(name));
      if (!current) await store.create(key(name), bytes(thing(name, i, { color })));
      else if (rand() < 0.25) await store.delete(key(name), current.modRevision);
      else await store.update(key(name), bytes(thing(name, i, { color })), current.modRevision);
    } catch (error) {
      // Another writer got there first: that is the concurrency under test.
      if (!isStorageError(error, 'Conflict') && !isStorageError(error, 'NotFound') && !isStorageError(error, 'AlreadyExists')) throw error;
    }
    if (rand() < 0.6) await tick();
  }
}

async function expected(store: Store, filter: CacheFilter<Thing> | undefined): Promise<Map<string, number>> {
  const { items } = await store.list(P);
  const out = new Map<string, number>();
  for (const kv of items) {
    const object = decode(kv, kv.modRevision);
    if (!filter || filter({ key: kv.key, revision: kv.modRevision, object, bytes: () => kv.value })) out.set(kv.key, kv.modRevision);
  }
  return out;
}

describe('WatchCache under random concurrent writes and disconnects', () => {
  const totals = { resumes: 0, storeReplays: 0, expired: 0, cuts: 0 };
  afterAll(() => {
    // Taken together, the runs resumed from the history, from the store, and past compaction.
    expect(totals.storeReplays).toBeGreaterThan(5);
    expect(totals.expired).toBeGreaterThan(0);
    expect(totals.cuts).toBeGreaterThan(0);
    expect(totals.resumes).toBeGreaterThan(totals.storeReplays + totals.expired);
    console.log(
      `random runs: ${totals.resumes} resumes, ${totals.storeReplays} replayed from the store, ${totals.expired} expired, ${totals.cuts} cache watch failures`,
    );
  });

  for (const backend of backends) {
    for (const [label, filter] of [
      ['every object', undefined],
      ['a label filter', red],
    ] as const) {
      for (const seed of [1, 2, 3]) {
        it(`leaves a resuming client with exactly the store's state, nothing missing or repeated (${backend.name}, ${label}, seed ${seed})`, async () => {
          const rand = random(seed * 1000 + (filter ? 1 : 0));
          const opened = backend.open();
          const { dispose } = opened;
          // Counts the watches the cache opens on the store: its own, and one per replay.
          const store = new FaultyStore(opened.store);
          // A short history sends many resumes to the store; compaction expires some of those.
          const cache = newCache(store, { maxHistory: 8 });
          const client = new Client(cache, filter, rand);
          try {
            await cache.ready;
            await client.connect();
            let done = false;
            let cuts = 0;
            const writers = Promise.all([1, 2, 3].map((w) => writer(store, random(seed * 10 + w), 150))).finally(() => (done = true));
            const compactions = (async () => {
              while (!done) {
                await tick();
                if (rand() < 0.1) {
                  // Never past the cache itself: a cache that must relist sends its watchers
                  // synthetic DELETEDs sharing one revision (its own test covers that).
                  const now = await store.revision();
                  await store.compact(Math.max(0, Math.min(cache.revision, now - 20 - Math.floor(rand() * 60))));
                }
                // The cache's own store watch drops now and then; it resumes where it stopped.
                if (rand() < 0.02 && store.watches > 0) {
                  store.cut(new StorageError('Unavailable', 'connection lost'));
                  cuts++;
                }
              }
            })();
            const reconnects = (async () => {
              while (!done) {
                await tick();
                if (!client.connected && client.offline-- <= 0) await client.connect();
              }
            })();
            await Promise.all([writers, compactions, reconnects]);
            client.calm = true;
            while (!client.connected) {
              await client.connect();
              await tick();
            }
            expect(await cache.waitForRevision(await store.revision(), 60_000)).toBe(true);
            expect(client.violations).toEqual([]);
            expect(client.connected).toBe(true);
            expect(client.state).toEqual(await expected(store, filter));
            expect(new Map(cache.list().items.map((v) => [v.key, v.revision]))).toEqual(await expected(store, undefined));
            expect(client.resumes).toBeGreaterThan(0);
            totals.resumes += client.resumes;
            // Every watch the cache opened beyond its own (and its resumptions) was a replay.
            totals.storeReplays += store.opened - 1 - cuts;
            totals.cuts += cuts;
            expect(cache.stats().relists).toBe(0);
            totals.expired += client.expired;
          } finally {
            cache.stop();
            await dispose();
          }
        });
      }
    }
  }
});
