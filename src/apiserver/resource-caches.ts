import { resourceVersionTooLarge, type ResourceRegistry, type ResourceType } from '../api/index.js';
import type { KeyValue, Store } from '../storage/index.js';
import { isEventType } from './event-types.js';
import { collectionPrefix } from './object-keys.js';
import type { ReadPlan } from './read-semantics.js';
import { servedBytes, servedObjectDecoder, type ServedObject } from './served-object.js';
import { ServedTexts } from './served-texts.js';
import { WatchCache } from '../watch-cache/index.js';

export interface ResourceCachesOptions {
  readonly store: Store;
  readonly registry: ResourceRegistry;
  /** Events kept for watches that start in the past (default 5 minutes). */
  readonly historyWindowMs?: number | undefined;
  /** How long a list snapshot outlives the state it froze (default 75 s). */
  readonly snapshotWindowMs?: number | undefined;
  /** Longest wait for a resourceVersion the server has not reached before the 504 (default 3 s). */
  readonly tooLargeWaitMs?: number | undefined;
  /**
   * Whether the caches keep Events' objects (default true). false: as kube-apiserver, which
   * caches no Events — their caches keep only the history and the live stream, and their gets,
   * lists and the start of their watches read the store (`holdsObjects` in watch-cache.ts).
   */
  readonly cacheEvents?: boolean | undefined;
}

/** Where a read that must see a revision is served from. */
export type ReadSource = 'cache' | 'store';

/**
 * The field each type's watches are indexed by (kube's watch triggers): watches that select it
 * with `=` are handed only the events of objects with that value. Pods by node, as every node
 * agent watches its own; everything else by name, as watches of one object do.
 */
const TRIGGER_FIELDS: Readonly<Record<string, string>> = { pods: 'spec.nodeName' };
const DEFAULT_TRIGGER_FIELD = 'metadata.name';

/**
 * One watch cache per resource type, started with the server, and the rule that decides whether
 * a read that must see revision R can be answered from a type's cache.
 *
 * With an in-process store the cache learns the store's revision synchronously, so a consistent
 * read never waits. With etcd the cache cannot prove it has seen a revision that touched other
 * types (no progress notification reaches it), so such reads go to etcd, which is what the spec's
 * "Most Recent" asks for anyway.
 */
export class ResourceCaches {
  readonly store: Store;
  private readonly caches = new Map<string, WatchCache<ServedObject>>();
  /** The same caches by type: `of` runs on every read, and this spares it building the prefix. */
  private readonly byType = new Map<ResourceType, WatchCache<ServedObject>>();
  private readonly decoders = new Map<ResourceType, (kv: KeyValue, revision: number) => ServedObject>();
  /** Keys whose stored bytes a cache could not decode (it treats them as absent). */
  private readonly corrupt = new Set<string>();
  private readonly tooLargeWaitMs: number;
  private readonly options: ResourceCachesOptions;
  /** Caches of the types added at runtime (custom resources), one per type even when versions share a prefix. */
  private readonly added = new Map<ResourceType, WatchCache<ServedObject>>();
  private started = false;
  /** The bytes of the versions this server wrote lately, by their JSON text (served-texts.ts): filled by the decoders, read by write answers. */
  readonly servedTexts = new ServedTexts();

  constructor(options: ResourceCachesOptions) {
    this.store = options.store;
    this.options = options;
    this.tooLargeWaitMs = options.tooLargeWaitMs ?? 3_000;
    for (const type of options.registry.all()) {
      if (type.virtual) continue; // never stored: nothing to cache
      const prefix = collectionPrefix(options.store, type);
      if (type.conversion) {
        // A converted version (autoscaling/v1 HPAs) caches its own view of the shared prefix.
        this.add(type);
        continue;
      }
      if (this.caches.has(prefix)) continue;
      const decode = servedObjectDecoder(type, this.servedTexts);
      this.decoders.set(type, decode);
      this.caches.set(prefix, this.newCache(type, decode));
    }
  }

  private newCache(type: ResourceType, decode: (kv: KeyValue, revision: number) => ServedObject): WatchCache<ServedObject> {
    const options = this.options;
    const prefix = collectionPrefix(options.store, type);
    const at = Object.keys(type.fieldSelectors).indexOf(this.triggerField(type));
    return new WatchCache<ServedObject>({
      store: options.store,
      prefix,
      decode: (kv, revision) => {
        const object = decode(kv, revision);
        this.corrupt.delete(kv.key);
        return object;
      },
      onDecodeError: (key) => this.corrupt.add(key),
      ...(at >= 0 ? { triggerOf: (object: ServedObject) => object.fields[at] } : {}),
      encode: servedBytes,
      holdsObjects: options.cacheEvents !== false || !isEventType(type),
      // Pages of a thousand keep the first list's transient memory small next to the cache.
      listPageSize: 1_000,
      ...(options.historyWindowMs !== undefined ? { historyWindowMs: options.historyWindowMs } : {}),
      ...(options.snapshotWindowMs !== undefined ? { snapshotWindowMs: options.snapshotWindowMs } : {}),
    });
  }

  /**
   * Serves a type added at runtime from a cache of its own, decoding with `decode` (a custom
   * resource's version rewrites apiVersion and applies defaults). Started at once when the
   * caches already run; `ready` of `of(type)` says when its first list is in.
   */
  add(type: ResourceType, decode: (kv: KeyValue, revision: number) => ServedObject = servedObjectDecoder(type, this.servedTexts)): void {
    if (this.added.has(type)) return;
    this.decoders.set(type, decode);
    const cache = this.newCache(type, decode);
    this.added.set(type, cache);
    this.byType.set(type, cache);
    // A type removed before its first list is in rejects `ready`; whoever awaits it hears so.
    cache.ready.catch(() => undefined);
    if (this.started) cache.start();
  }

  /** Stops the cache of a type `add` served (its watches end). */
  remove(type: ResourceType): void {
    const cache = this.added.get(type);
    if (!cache) return;
    cache.stop();
    this.added.delete(type);
    this.byType.delete(type);
    this.decoders.delete(type);
  }

  /** Lists every type once and follows the store; resolves when every cache holds its first list. */
  async start(): Promise<void> {
    this.started = true;
    const all = [...this.caches.values(), ...this.added.values()];
    for (const cache of all) cache.start();
    await Promise.all(all.map((cache) => cache.ready));
  }

  stop(): void {
    this.started = false;
    for (const cache of this.caches.values()) cache.stop();
    for (const cache of this.added.values()) cache.stop();
    this.servedTexts.clear();
  }

  of(type: ResourceType): WatchCache<ServedObject> {
    let cache = this.byType.get(type);
    if (cache) return cache;
    cache = this.caches.get(collectionPrefix(this.store, type));
    if (!cache) throw new Error(`no watch cache for ${type.resource}.${type.group}`);
    this.byType.set(type, cache);
    return cache;
  }

  /** The field selector whose `=` value indexes the type's watches (see TRIGGER_FIELDS). */
  triggerField(type: ResourceType): string {
    return TRIGGER_FIELDS[type.resource] ?? DEFAULT_TRIGGER_FIELD;
  }

  /** The decoder of a type's stored values (shared with its cache: one set of pools). */
  decoderOf(type: ResourceType): (kv: KeyValue, revision: number) => ServedObject {
    let decode = this.decoders.get(type);
    if (!decode) {
      decode = servedObjectDecoder(type, this.servedTexts);
      this.decoders.set(type, decode);
    }
    return decode;
  }

  /** Whether a cache last saw undecodable bytes at `key` (a corrupt object). */
  isCorrupt(key: string): boolean {
    return this.corrupt.has(key);
  }

  /**
   * Where a read or watch that starts at `start` is served from: the one place that decides.
   *
   * - Any: the cache, once it holds its first list.
   * - Most Recent: the cache at once when the store is in-process and the cache follows it (it
   *   has applied every commit a read could see: the GET fast path, answered without a wait);
   *   otherwise whatever can show the store's current revision.
   * - Not older than and Exact R: whatever can show R (Exact then reads R from the cache's
   *   snapshots, its history or the store: the plan's revision, not the source's state).
   * - Continuation: the cache (the token names the snapshot).
   *
   * Answers synchronously when it need not wait, so the hot path takes no turn of the event loop.
   * A revision neither the cache nor the store reaches in time is a 504 (`Too large resource
   * version`, Retry-After 1).
   */
  sourceOf(type: ResourceType, start: ReadPlan): ReadSource | Promise<ReadSource> {
    const cache = this.of(type);
    if (start.kind === 'MostRecent' && this.store.inProcess && cache.following && cache.holdsObjects) return 'cache';
    return this.sourceAfterWait(cache, start);
  }

  private async sourceAfterWait(cache: WatchCache<ServedObject>, start: ReadPlan): Promise<ReadSource> {
    await cache.ready;
    if (!cache.holdsObjects) {
      // Only the store has the objects. A version beyond what the server has seen still waits for
      // it (and 504s), as for any type: the store shows it once it, or the cache's feed, has it.
      if (start.kind === 'NotOlderThan' || start.kind === 'Exact') await this.reach(cache, start.revision);
      return 'store';
    }
    switch (start.kind) {
      case 'Any':
      case 'Continuation':
        return 'cache';
      case 'MostRecent':
        if (this.store.inProcess && cache.following) return 'cache';
        return this.reach(cache, await this.store.revision());
      case 'NotOlderThan':
      case 'Exact':
        return this.reach(cache, start.revision);
    }
  }

  /**
   * The cache as soon as it has applied `revision`, the store when only the store can prove it
   * has: with an in-process store the cache learns every revision in the commit path, so waiting
   * for it is enough; with etcd the cache cannot prove it has seen a revision that touched other
   * types (no progress notification reaches it), so the store answers.
   */
  private async reach(cache: WatchCache<ServedObject>, revision: number): Promise<ReadSource> {
    if (cache.revision >= revision) return 'cache';
    if (this.store.inProcess) {
      if (await cache.waitForRevision(revision, this.tooLargeWaitMs)) return 'cache';
    } else {
      if ((await this.store.revision()) >= revision) return 'store';
      if (await cache.waitForRevision(revision, this.tooLargeWaitMs)) return 'cache';
      if ((await this.store.revision()) >= revision) return 'store';
    }
    throw resourceVersionTooLarge(revision, Math.max(cache.revision, await this.store.revision()), 1);
  }
}
