// What one store event does to the cache: the event its watchers get and the key's new version,
// for a live event (the cache knows the version before it) and for one replayed from the store.
import type { StoreEvent } from '../storage/index.js';
import type { CachedVersion } from './cached-object.js';
import type { CacheEvent } from './events.js';
import type { Versions } from './versions.js';

/** What one store event does to the cache: the event watchers get, and the key's new state. */
export interface CacheChange<T> {
  /** Undefined when watchers see no change (e.g. an undecodable value replaced nothing). */
  readonly event: CacheEvent<T> | undefined;
  /** The key's version after the event; undefined when the key is now absent. */
  readonly next: CachedVersion<T> | undefined;
}

/**
 * Turns a store event into a cache event, given the version the key had before it. A value that
 * cannot be decoded counts as absent, so a put of one reads as the deletion of what was there:
 * watchers end up with exactly what the cache serves.
 */
export function cacheChangeOf<T>(versions: Versions<T>, e: StoreEvent, prev: CachedVersion<T> | undefined): CacheChange<T> {
  const revision = e.revision;
  if (e.type === 'put') {
    const next = versions.fromKeyValue({ key: e.key, value: e.value, modRevision: revision, createRevision: e.createRevision });
    if (next) {
      return { next, event: prev ? { type: 'MODIFIED', revision, object: next, prev } : { type: 'ADDED', revision, object: next } };
    }
  }
  if (!prev) return { next: undefined, event: undefined };
  const object = versions.deleted(e.key, revision, prev, e.type === 'delete' ? e.prevValue : undefined);
  return { next: undefined, event: object ? { type: 'DELETED', revision, object, prev } : undefined };
}

/**
 * An event replayed from the store, which the cache's tree no longer describes: the previous
 * version comes from the event's `prevValue`. Its modRevision is not in the event, so it is
 * stamped with the revision just before the event (at which it was certainly current); it only
 * serves to decide selector transitions, and the events sent leave it out.
 *
 * 'lost' when the store no longer has the previous version of a key that had one (a store may
 * drop it at its compaction point: sqlite's replay of the event at exactly the compacted
 * revision has none). A DELETED cannot then carry the last state, nor can a filter tell which
 * side of it the update was; without a filter an update is still a MODIFIED.
 */
export function replayed<T>(versions: Versions<T>, e: StoreEvent, filtered: boolean): CacheChange<T> | 'lost' {
  // A null prevValue is how a backend with a nullable column reports none.
  if (e.prevValue != null) {
    const createRevision = e.type === 'put' ? e.createRevision : 0;
    const prev = versions.fromKeyValue({ key: e.key, value: e.prevValue, modRevision: e.revision - 1, createRevision });
    return cacheChangeOf(versions, e, prev);
  }
  if (e.type === 'put' && e.createRevision === e.revision) return cacheChangeOf(versions, e, undefined);
  if (e.type === 'delete' || filtered) return 'lost';
  const next = versions.fromKeyValue({ key: e.key, value: e.value, modRevision: e.revision, createRevision: e.createRevision });
  return { next, event: next && { type: 'MODIFIED', revision: e.revision, object: next } };
}

/**
 * A live store event for a cache that keeps no objects (`holdsObjects: false`): what the key
 * held before comes from the event's `prevValue`, not from a tree. A DELETED is the last value
 * stamped with the delete's revision (decoded once, as the tree's cache does); an update decodes
 * its previous value too, for the selector transitions (it is stamped a revision before the
 * update: only its content is used). 'lost' when a delete does not say what it deleted (etcd at
 * its compaction point, a forced delete of an undecodable value): no DELETED can be made.
 */
export function fedChangeOf<T>(versions: Versions<T>, e: StoreEvent): CacheChange<T> | 'lost' {
  const revision = e.revision;
  // A null prevValue is how a backend with a nullable column reports none.
  const last = e.prevValue ?? undefined;
  if (e.type === 'delete') {
    if (last === undefined) return 'lost';
    const object = versions.deleted(e.key, revision, undefined, last);
    return { next: undefined, event: object && { type: 'DELETED', revision, object } };
  }
  const next = versions.fromKeyValue({ key: e.key, value: e.value, modRevision: revision, createRevision: e.createRevision });
  if (!next) {
    // Undecodable: what the tree's cache does, the deletion of what was there.
    const object = last === undefined ? undefined : versions.deleted(e.key, revision, undefined, last);
    return { next: undefined, event: object && { type: 'DELETED', revision, object } };
  }
  if (last === undefined) return { next, event: { type: e.createRevision === revision ? 'ADDED' : 'MODIFIED', revision, object: next } };
  const prev = versions.fromKeyValue({ key: e.key, value: last, modRevision: revision - 1, createRevision: e.createRevision });
  return { next, event: prev ? { type: 'MODIFIED', revision, object: next, prev } : { type: 'ADDED', revision, object: next } };
}
