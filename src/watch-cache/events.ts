import type { CachedObject } from './cached-object.js';

export type CacheEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/**
 * A change as a watcher sees it. `revision` is the revision of the write (for synthetic initial
 * events, the revision the initial state was taken at). A DELETED object is the last state with
 * its resourceVersion set to the delete's revision; `prev` is the version the change replaced,
 * when the cache knows it (see WatchCache.watch for when it does not).
 */
export interface CacheEvent<T> {
  readonly type: CacheEventType;
  readonly revision: number;
  readonly object: CachedObject<T>;
  readonly prev?: CachedObject<T>;
}

/**
 * Which objects a list or watch wants (the API server builds it from namespace, label and field
 * selectors). It must be pure and must not write: it runs inside the cache's dispatch.
 */
export type CacheFilter<T> = (object: CachedObject<T>) => boolean;

/** An event as the hub and the history carry it: `seq` orders events even when revisions tie. */
export interface SequencedEvent<T> {
  readonly seq: number;
  readonly event: CacheEvent<T>;
}
