import type { Observable } from 'rxjs';

/**
 * One stored version of a key. `modRevision` is the global revision of the write that produced
 * it; `createRevision` the revision at which the key was (last) created. A resourceVersion is
 * `modRevision` as a decimal string.
 */
export interface KeyValue<V = Uint8Array> {
  readonly key: string;
  readonly value: V;
  readonly modRevision: number;
  readonly createRevision: number;
}

/** A change, as `watch` delivers it: every event after the start revision, once, in order. */
export type StoreEvent<V = Uint8Array> =
  | {
      readonly type: 'put';
      readonly key: string;
      readonly value: V;
      /** The value this put replaced; absent when the put created the key. */
      readonly prevValue?: V;
      readonly revision: number;
      readonly createRevision: number;
    }
  | {
      readonly type: 'delete';
      readonly key: string;
      /**
       * The last value before the delete (a deleted key has no value of its own). Absent only
       * when `forceDelete` removed a value that could not be decoded.
       */
      readonly prevValue?: V;
      readonly revision: number;
    };

export interface GetOptions {
  /** Read the key as it was at this revision (default: the current state, read consistently). */
  readonly revision?: number;
}

export interface ListOptions {
  /** Snapshot revision (default: current). Pass the first page's `revision` to every later page. */
  readonly revision?: number;
  /** At most this many items (default: all). */
  readonly limit?: number;
  /** First key to return (inclusive); must lie under the listed prefix. */
  readonly startKey?: string;
}

/** How a write is kept. */
export interface WriteOptions {
  /**
   * The key's time to live: once this many seconds have passed since this write, the store
   * deletes the key, a delete like any other (at a new revision, told to watches, its last value
   * as `prevValue`). A later write of the key without it keeps the key for good; one with it
   * starts the time again. A whole number of seconds, at least 1. etcd keeps it as a lease (and
   * may keep the key up to 5 % or 60 s longer: leases are shared, see etcd-leases.ts); sqlite and
   * memory by their clock, deleting the keys due when `expire` runs.
   */
  readonly ttlSeconds?: number;
}

export interface ListResult<V = Uint8Array> {
  readonly items: readonly KeyValue<V>[];
  /** The revision the list was read at: the same snapshot for every page that passes it back. */
  readonly revision: number;
  /** How many keys under the prefix, after the last returned item, the snapshot still holds. */
  readonly remaining: number;
}

/**
 * A key/value store with one global, monotonically increasing revision.
 *
 * Keys are printable ASCII under the store's prefix (see keys.ts), so every backend orders them
 * the same way. Values pass through the store's `ValueCodec`; a stored value the codec cannot
 * decode raises `StorageError('Corrupt')` naming its key.
 */
export interface Store<V = Uint8Array> {
  /** `memory`, `sqlite` or `etcd`. */
  readonly backend: string;
  /**
   * Whether the store commits in this process and hands every commit to its watches before the
   * write returns (memory, sqlite). A watcher of such a store has seen every revision a read of
   * `revision()` can return; with etcd it may lag, and only etcd can prove what it has committed.
   */
  readonly inProcess: boolean;
  /** Every key lives under this prefix (it ends with `/`). */
  readonly prefix: string;

  get(key: string, options?: GetOptions): Promise<KeyValue<V> | undefined>;
  list(prefix: string, options?: ListOptions): Promise<ListResult<V>>;
  /** Fails with `AlreadyExists` when the key exists. */
  create(key: string, value: V, options?: WriteOptions): Promise<KeyValue<V>>;
  /** Compare-and-swap: fails with `Conflict` unless the key's modRevision is `expectedModRevision`. */
  update(key: string, value: V, expectedModRevision: number, options?: WriteOptions): Promise<KeyValue<V>>;
  /**
   * Removes the key and returns its last version, with `modRevision` set to the revision of the
   * delete. With `expectedModRevision`, compare-and-swap as `update`. `NotFound` when absent.
   */
  delete(key: string, expectedModRevision?: number): Promise<KeyValue<V>>;
  /**
   * Removes the key whatever its stored bytes, without decoding them: the way out for a value
   * that raises `Corrupt` (the API's unsafe delete). Returns the revision of the delete;
   * `NotFound` when absent.
   */
  forceDelete(key: string): Promise<number>;
  /**
   * Deletes up to `limit` (default 1,000; 0: no bound) of the keys whose time to live (`WriteOptions`) has run
   * out by the store's clock, the longest overdue first, each as `delete` with its modRevision
   * (a key written again meanwhile is left to its new time). Returns how many keys were due, so a
   * caller that got `limit` knows more may be. An `ExpirySweep` calls it periodically. etcd deletes
   * such keys itself when their lease runs out: there it does nothing and returns 0.
   */
  expire(limit?: number): Promise<number>;
  /**
   * Every event with revision > `fromRevision` under `prefix`, exactly once, in revision order,
   * including events committed while the watch is being set up. Errors with `Compacted` when
   * events after `fromRevision` are no longer retained.
   */
  watch(prefix: string, fromRevision: number): Observable<StoreEvent<V>>;
  /**
   * Discards history older than `revision`: reads at a revision below it, and watches that need
   * an event below it, fail with `Compacted`. The state at `revision` itself stays readable.
   */
  compact(revision: number): Promise<void>;
  /** The revision below which history is gone (0 when nothing was compacted). */
  compactedRevision(): Promise<number>;
  /** A consistent read of the current revision. */
  revision(): Promise<number>;
  close(): Promise<void>;
}
