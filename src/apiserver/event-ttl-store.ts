import type { ResourceRegistry } from '../api/index.js';
import { ForwardingStore, type KeyValue, type Store, type WriteOptions } from '../storage/index.js';
import { isEventType } from './event-types.js';
import { collectionPrefix } from './object-keys.js';

/** `--event-ttl`'s default, kube-apiserver's: an Event is kept an hour after its last write. */
export const DEFAULT_EVENT_TTL_SECONDS = 3600;

/**
 * The store as the API server writes to it when Events have a time to live (`--event-ttl`):
 * every create and update of an Event, core v1 or events.svc.io v1, carries the ttl, so the store
 * deletes the Event that long after its last write (etcd: under a lease; sqlite and memory: by
 * their expiry sweep), as kube-apiserver gives each Event a lease. The deletion is a real one: a
 * new revision, DELETED to every watch, the Event gone from the caches. Every other key, and
 * every other call, passes through unchanged. A write that asks for its own options keeps them.
 *
 * The decision is by key, in this one place, so that every path that writes an Event (POST, PUT,
 * PATCH, apply, a create through PUT) gives it its time without each knowing of it.
 */
export class EventTtlStore extends ForwardingStore {
  readonly #prefixes: readonly string[];
  readonly #options: WriteOptions;

  constructor(store: Store, prefixes: readonly string[], ttlSeconds: number) {
    super(store);
    this.#prefixes = prefixes;
    this.#options = { ttlSeconds };
  }

  #optionsFor(key: string, options: WriteOptions | undefined): WriteOptions | undefined {
    if (options !== undefined) return options;
    for (const prefix of this.#prefixes) if (key.startsWith(prefix)) return this.#options;
    return undefined;
  }

  override create(key: string, value: Uint8Array, options?: WriteOptions): Promise<KeyValue> {
    return this.inner.create(key, value, this.#optionsFor(key, options));
  }

  override update(key: string, value: Uint8Array, expectedModRevision: number, options?: WriteOptions): Promise<KeyValue> {
    return this.inner.update(key, value, expectedModRevision, this.#optionsFor(key, options));
  }
}

/** The key prefixes of Events in `store`: the core group's and events.svc.io's, each a collection of its own. */
export function eventPrefixes(store: Pick<Store, 'prefix'>, registry: ResourceRegistry): string[] {
  const prefixes = new Set<string>();
  for (const type of registry.all()) {
    if (isEventType(type) && !type.virtual) prefixes.add(collectionPrefix(store, type));
  }
  return [...prefixes];
}

/** `store` with Events kept `ttlSeconds` after their last write; 0: `store` itself (Events kept for good). */
export function withEventTtl(store: Store, registry: ResourceRegistry, ttlSeconds: number): Store {
  return ttlSeconds > 0 ? new EventTtlStore(store, eventPrefixes(store, registry), ttlSeconds) : store;
}
