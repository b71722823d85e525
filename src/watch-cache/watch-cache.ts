import type { Observable, Subscription } from 'rxjs';
import { StorageError, isStorageError, type KeyValue, type Store, type StoreEvent } from '../storage/index.js';
import { newTree, type Tree } from './btree.js';
import { encodeJson, type CachedObject, type CachedVersion } from './cached-object.js';
import { cacheChangeOf, fedChangeOf, type CacheChange } from './store-events.js';
import { WatchCacheNotReadyError } from './watch-cache-errors.js';
import type { CacheEvent } from './events.js';
import { History } from './history.js';
import { Hub } from './hub.js';
import { listTree, type CacheList, type CacheListOptions } from './list-tree.js';
import { diffStates, listStore, type Listed } from './relist.js';
import { RevisionWaiters } from './revision-waiters.js';
import { Snapshots } from './snapshots.js';
import { Versions } from './versions.js';
import { cacheWatch, type CacheWatcher, type CacheWatchOptions, type WatchSource } from './watch.js';

export interface WatchCacheOptions<T> {
  readonly store: Store;
  /** The keys this cache mirrors (one resource type); it must lie under the store's prefix. */
  readonly prefix: string;
  /**
   * Decodes a stored value. `revision` is the resourceVersion to stamp: the value's modRevision,
   * or for a DELETED event's object the delete's revision (applied to the last state). Throwing
   * marks the value undecodable: the cache then treats the key as absent (see `onDecodeError`).
   */
  decode(kv: KeyValue, revision: number): T;
  /** A version's JSON bytes, computed once per version on first use (default: JSON.stringify). */
  encode?(object: T): Uint8Array;
  /** Events are kept this long for watches that start in the past (default 300 000: 5 min). */
  readonly historyWindowMs?: number;
  /** A list snapshot is kept this long after it stopped being current (default 75 000; 0: none). */
  readonly snapshotWindowMs?: number;
  /** Hard bound on the events (and on the snapshots) kept, whatever their age (default 100 000). */
  readonly maxHistory?: number;
  /** Objects per page of the store list at start and at every relist (default 10 000). */
  readonly listPageSize?: number;
  /**
   * How the cache learns it has seen every event up to a revision that no event under its prefix
   * carries (revisions are global to the store). It must return a revision R such that the
   * store's watch has already delivered every event <= R. The default is `store.revision()` for
   * the memory and sqlite backends, which deliver events in the commit path before any later read
   * returns; for other backends there is none (`false`), and `waitForRevision` waits for an event.
   */
  readonly progress?: false | (() => Promise<number>);
  /**
   * An index of live watches (kube's watch trigger): the value an object has for the field
   * watches most often select on with `=`, such as a pod's node name. Watches that pass the
   * same value as `trigger` are handed only the events of objects with that value.
   */
  triggerOf?(object: T): string | undefined;
  /** Told about each stored value `decode` rejected. */
  onDecodeError?(key: string, error: unknown): void;
  /** The clock of the history and snapshot windows, in ms (default: performance.now). */
  now?(): number;
  /**
   * Whether the cache keeps the current objects (default true). Without them — for a type written
   * far more than it is read, as Events — it keeps the history and the live stream only: it starts
   * at the store's revision without a list, `get` and `list` refuse (`holdsObjects` tells callers
   * to read the store), `listAt` answers nothing, a watch with `initialEvents` is refused (the
   * caller lists the store and watches from that list's revision), and a relist, which could not
   * tell watchers what vanished, ends every watch instead (each resumes from its last revision:
   * the store replays it, or it expires and the client relists).
   */
  readonly holdsObjects?: boolean;
}

export interface WatchCacheStats {
  readonly revision: number;
  readonly objects: number;
  /** Events in the history, and the revision after which it holds every event. */
  readonly history: number;
  readonly historyFloor: number;
  readonly snapshots: number;
  /** Open watch subscriptions; of those, how many are hub listeners and how many still replay from the store. */
  readonly watchers: number;
  readonly hubListeners: number;
  readonly replaying: number;
  /** Relists after the store could no longer resume the cache's watch. */
  readonly relists: number;
  /** Store events the cache has applied since it started (`apiserver_watch_cache_events_received_total`). */
  readonly eventsReceived: number;
}

/**
 * The cache's life: `idle` → `listing` (pages of the first list) → `watching` (following the
 * store's watch) → on a watch error `recovering`, which resumes the watch where it stopped, or
 * relists when the store has compacted past that point → `watching` … → `stopped`.
 */
type State = 'idle' | 'listing' | 'watching' | 'recovering' | 'stopped';

const RETRY_MIN_MS = 100;
const RETRY_MAX_MS = 5_000;
/** Relist revisions remembered as split (WatchSource.splitRevisions): relists are rare. */
const MAX_SPLIT_REVISIONS = 64;

/**
 * A watch cache for one resource type: it lists the store once, follows its watch, and serves
 * gets, lists (current and at recent revisions) and watches (from any revision the store still
 * holds) from memory. Generic over the decoded object type: it knows nothing of kinds or HTTP.
 *
 * Every object version is one frozen CachedObject shared by the tree, the history, the snapshots
 * and every watcher; its JSON bytes are computed once.
 */
export class WatchCache<T> {
  readonly prefix: string;
  /** See WatchCacheOptions.holdsObjects. */
  readonly holdsObjects: boolean;
  /** Resolves once the first list is applied; rejects (StorageError `Closed`) if stopped first. */
  readonly ready: Promise<void>;

  private readonly store: Store;
  private readonly versions: Versions<T>;
  private readonly hub: Hub<T>;
  private readonly history: History<T>;
  private readonly snapshots: Snapshots<CachedVersion<T>>;
  private readonly waiters = new RevisionWaiters();
  private readonly watchers = new Set<CacheWatcher<T>>();
  private readonly now: () => number;
  private readonly pageSize: number;
  private readonly snapshotting: boolean;
  private readonly progress: (() => Promise<number>) | undefined;
  private readonly source: WatchSource<T>;
  private resolveReady!: () => void;
  private rejectReady!: (error: unknown) => void;

  private tree: Tree<CachedVersion<T>> = newTree();
  private rev = 0;
  private seq = 0;
  private state: State = 'idle';
  private isReady = false;
  /** Bumped whenever the store watch is replaced: callbacks of an older one are ignored. */
  private epoch = 0;
  private follow: Subscription | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private failures = 0;
  private batchOpen = false;
  private replayingCount = 0;
  private relists = 0;
  /** See WatchSource.splitRevisions; bounded (the oldest forgotten first: their watchers long gone). */
  private readonly splitRevisions = new Set<number>();
  private eventsReceived = 0;
  private progressInFlight = false;
  private progressAgain = false;

  constructor(options: WatchCacheOptions<T>) {
    const { store, prefix } = options;
    if (typeof prefix !== 'string' || !prefix.startsWith(store.prefix)) {
      throw new StorageError('InvalidArgument', `watch cache prefix ${JSON.stringify(prefix)} is outside the store prefix ${JSON.stringify(store.prefix)}`);
    }
    this.store = store;
    this.prefix = prefix;
    this.holdsObjects = options.holdsObjects ?? true;
    this.hub = new Hub<T>(options.triggerOf?.bind(options));
    const maxHistory = positive(options.maxHistory ?? 100_000, 'maxHistory');
    // Snapshots are of the objects: a cache without them keeps none.
    const snapshotWindowMs = this.holdsObjects ? (options.snapshotWindowMs ?? 75_000) : 0;
    this.history = new History(options.historyWindowMs ?? 300_000, maxHistory);
    this.snapshots = new Snapshots(snapshotWindowMs, maxHistory);
    this.snapshotting = snapshotWindowMs > 0;
    this.pageSize = positive(options.listPageSize ?? 10_000, 'listPageSize');
    this.now = options.now ?? (() => performance.now());
    this.versions = new Versions<T>({
      decode: options.decode,
      encode: options.encode ?? encodeJson,
      ...(options.onDecodeError ? { onDecodeError: options.onDecodeError } : {}),
    });
    this.progress =
      options.progress === false ? undefined : (options.progress ?? (store.inProcess ? () => store.revision() : undefined));
    this.ready = new Promise<void>((resolve, reject) => {
      this.resolveReady = resolve;
      this.rejectReady = reject;
    });
    // Nobody may be listening to `ready` (a cache stopped before it started); that is not an error.
    this.ready.catch(() => undefined);
    this.source = {
      store,
      hub: this.hub,
      history: this.history,
      versions: this.versions,
      ready: this.ready,
      seq: () => this.seq,
      revision: () => this.rev,
      splitRevisions: () => this.splitRevisions,
      tree: () => this.tree,
      now: this.now,
      isReady: () => this.isReady,
      stopped: () => this.state === 'stopped',
      watchers: this.watchers,
      whenRevision: (revision, reached) => this.whenRevision(revision, reached),
      replaying: (delta) => {
        this.replayingCount += delta;
      },
    };
  }

  /** Lists the store and starts following it. Idempotent. */
  start(): void {
    if (this.state !== 'idle') return;
    this.state = 'listing';
    void this.relist();
  }

  /** Stops following the store, completes every watch and ends every wait. Idempotent. */
  stop(): void {
    if (this.state === 'stopped') return;
    this.state = 'stopped';
    this.epoch++;
    this.follow?.unsubscribe();
    this.follow = undefined;
    clearTimeout(this.retryTimer);
    this.waiters.abandon();
    if (!this.isReady) this.rejectReady(new StorageError('Closed', `the watch cache of ${this.prefix} was stopped`));
    for (const watcher of [...this.watchers]) watcher.complete();
  }

  /**
   * Whether the cache is following the store's watch right now. With an in-process store that
   * means it has applied every write the store has acknowledged: a consistent read can use it.
   */
  get following(): boolean {
    return this.state === 'watching';
  }

  /** The last revision the cache has applied: it holds every event up to it. */
  get revision(): number {
    return this.rev;
  }

  /**
   * Resolves true as soon as the cache has applied `revision`, false after `timeoutMs` or when
   * the cache stops. Woken by the apply path (and, for in-process stores, one progress read).
   */
  waitForRevision(revision: number, timeoutMs: number): Promise<boolean> {
    if (this.isReady && revision <= this.rev) return Promise.resolve(true);
    if (this.state === 'stopped') return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        cancel();
        resolve(false);
      }, timeoutMs);
      const cancel = this.waiters.add(revision, (reached) => {
        clearTimeout(timer);
        resolve(reached);
      });
      this.requestProgress();
    });
  }

  /** The current version of `key`. */
  get(key: string): CachedObject<T> | undefined {
    this.checkReadable();
    this.checkHolds('get');
    return this.tree.get(key);
  }

  /** A page of the current state. `remaining` counts matching keys after the page. */
  list(options: CacheListOptions<T> = {}): CacheList<T> {
    this.checkReadable();
    this.checkHolds('list');
    return listTree(this.tree, this.checkList(options), options, this.rev);
  }

  /**
   * A page of the state at `revision` (an Exact list, or the next page of a paged list), served
   * from the newest retained snapshot at or before it, brought forward with the history's events
   * when the revision falls between snapshots. Undefined when no retained state covers it (older
   * than the snapshot window, newer than the cache, or inside a relist's gap): the caller then
   * reads the store.
   */
  listAt(revision: number, options: CacheListOptions<T> = {}): CacheList<T> | undefined {
    this.checkReadable();
    const prefix = this.checkList(options);
    if (!this.holdsObjects) return undefined;
    if (revision === this.rev) return listTree(this.tree, prefix, options, revision);
    if (revision > this.rev) return undefined;
    const tree = this.treeAt(revision);
    return tree && listTree(tree, prefix, options, revision);
  }

  /**
   * Events under `prefix` that match `filter`, as an Observable:
   *
   * - `initialEvents`: an ADDED for every matching object in key order, at the current revision
   *   (event.revision is that revision), then every later event: nothing lost or doubled between.
   * - `fromRevision`: every event with revision > fromRevision, in order — from the history when
   *   it reaches back that far, else replayed from the store and then handed over to the live
   *   stream without gap or duplicate. Errors with WatchExpiredError only when the store has
   *   compacted those events too. A revision newer than the cache's waits for it.
   * - neither: events after the current revision.
   *
   * Filter transitions: an update leaving the filter is DELETED (new state), entering it ADDED,
   * staying in it MODIFIED. A DELETED object is the last state stamped with the delete's revision.
   * Events replayed from the store carry no `prev`. Events after a relist: vanished keys are
   * DELETED at the relist's revision (several events may then share one revision).
   *
   * Delivery is synchronous, in revision order to every watcher, even when a watcher's callback
   * writes. The cache queues nothing per watcher: put a bounded buffer (the API server's
   * `boundedSink`) between a watch and a slow consumer. Completes when the cache stops. Throws
   * StorageError `InvalidArgument` at once for a prefix outside the cache's.
   */
  watch(options: CacheWatchOptions<T> = {}): Observable<CacheEvent<T>> {
    const prefix = this.checkPrefix(options.prefix);
    if (options.fromRevision !== undefined) checkCount(options.fromRevision, 'fromRevision');
    if (options.initialEvents) this.checkHolds('watch with initial events');
    return cacheWatch(this.source, prefix, options);
  }

  stats(): WatchCacheStats {
    return {
      revision: this.rev,
      objects: this.tree.size,
      history: this.history.size,
      historyFloor: this.history.floor,
      snapshots: this.snapshots.size,
      watchers: this.watchers.size,
      hubListeners: this.hub.size,
      replaying: this.replayingCount,
      relists: this.relists,
      eventsReceived: this.eventsReceived,
    };
  }

  // --- following the store -------------------------------------------------------------------

  /** Lists the store; the first time this fills the cache, later times replace it (relist). */
  private async relist(): Promise<void> {
    if (!this.holdsObjects) return this.restartFeed();
    let listed: Listed<T> | undefined;
    try {
      listed = await listStore(this.store, this.prefix, this.pageSize, this.versions, this.isReady ? this.tree : undefined, () => this.state === 'stopped');
    } catch (error) {
      return this.recover(error, true);
    }
    if (!listed || this.state === 'stopped') return;
    if (this.isReady) {
      this.replace(listed);
    } else {
      this.tree = listed.tree;
      this.rev = listed.revision;
      this.history.reset(listed.revision);
      this.isReady = true;
      this.resolveReady();
      this.waiters.release(this.rev);
    }
    this.watchStore();
  }

  /**
   * A cache without objects starts at the store's revision (nothing to list). Started again after
   * the store compacted past it, it cannot tell its watchers what changed in the gap: it ends them.
   */
  private async restartFeed(): Promise<void> {
    let revision: number;
    try {
      revision = await this.store.revision();
    } catch (error) {
      return this.recover(error, true);
    }
    if (this.state === 'stopped') return;
    if (this.isReady) {
      this.rev = Math.max(this.rev, revision);
      this.history.reset(this.rev);
      this.relists++;
      this.failures = 0;
      this.endWatchers();
    } else {
      this.rev = revision;
      this.history.reset(revision);
      this.isReady = true;
      this.resolveReady();
    }
    this.waiters.release(this.rev);
    this.watchStore();
  }

  /** Ends every watch: each resumes from the last revision it got (see `holdsObjects`). */
  private endWatchers(): void {
    for (const watcher of [...this.watchers]) watcher.complete();
  }

  private watchStore(): void {
    if (this.state === 'stopped') return;
    this.state = 'watching';
    const epoch = ++this.epoch;
    const fail = (error: unknown, relist = false) => {
      if (epoch === this.epoch) this.recover(error, relist);
    };
    let subscription: Subscription;
    try {
      subscription = this.store.watch(this.prefix, this.rev).subscribe({
        next: (event) => {
          if (epoch !== this.epoch) return;
          try {
            this.apply(event);
          } catch (error) {
            // A bug or a broken decoder left the state in doubt: rebuild it from a fresh list.
            fail(error, true);
          }
        },
        error: (error: unknown) => fail(error),
        complete: () => fail(new StorageError('Unavailable', 'the store ended the watch')),
      });
    } catch (error) {
      return fail(error);
    }
    // An in-process store may have failed the watch inside subscribe.
    if (epoch !== this.epoch) return subscription.unsubscribe();
    this.follow = subscription;
    // Waits that began while the watch was down had no progress read to answer them.
    if (this.waiters.size > 0) this.requestProgress();
  }

  /**
   * After a failed watch or list. Compacted means the store no longer has the events after our
   * revision: relist now. Anything else is retried with back-off — a watch error by resuming the
   * watch at our revision (nothing is lost, no relist needed unless that now says Compacted).
   * A closed store ends the cache.
   */
  private recover(error: unknown, relist: boolean): void {
    if (this.state === 'stopped') return;
    this.epoch++;
    this.follow?.unsubscribe();
    this.follow = undefined;
    if (isStorageError(error, 'Closed')) return this.stop();
    this.state = this.isReady ? 'recovering' : 'listing';
    const compacted = isStorageError(error, 'Compacted');
    const again = compacted || relist || !this.isReady ? () => void this.relist() : () => this.watchStore();
    if (compacted) return again();
    // The first retry goes at once (most failures are one dropped connection), then back off.
    const delay = this.failures === 0 ? 0 : Math.min(RETRY_MAX_MS, RETRY_MIN_MS * 2 ** (this.failures - 1));
    this.failures++;
    this.retryTimer = setTimeout(again, delay);
  }

  private apply(e: StoreEvent): void {
    this.beginBatch();
    let change: CacheChange<T> | 'lost';
    if (this.holdsObjects) {
      const prev = this.tree.get(e.key);
      change = cacheChangeOf(this.versions, e, prev);
      if (change.next) this.tree.set(e.key, change.next);
      else if (prev) this.tree.delete(e.key);
    } else {
      change = fedChangeOf(this.versions, e);
    }
    this.rev = e.revision;
    this.failures = 0;
    this.eventsReceived++;
    // A deletion nobody can be told of: the watches end, and resuming past it expires them.
    if (change === 'lost') {
      this.endWatchers();
      this.history.reset(this.rev);
      this.waiters.release(this.rev);
      return;
    }
    const { event } = change;
    if (event) {
      const entry = { seq: ++this.seq, event };
      this.history.append(entry, this.now());
      this.hub.publish([entry]);
    }
    this.waiters.release(this.rev);
  }

  /**
   * Swaps in a relisted state in one step and tells live watchers what changed. The history
   * restarts at the relist's revision: the diff's events are not the store's real history, so a
   * watch from a revision inside the gap goes to the store (and, compacted there, expires).
   */
  private replace({ tree, revision }: Listed<T>): void {
    const events = diffStates(this.versions, this.tree, tree, revision);
    if (events.filter((e) => e.revision === revision).length > 1) {
      this.splitRevisions.add(revision);
      if (this.splitRevisions.size > MAX_SPLIT_REVISIONS) this.splitRevisions.delete(this.splitRevisions.values().next().value!);
    }
    this.beginBatch();
    this.tree = tree;
    this.rev = Math.max(this.rev, revision);
    this.history.reset(this.rev);
    this.relists++;
    this.failures = 0;
    this.hub.publish(events.map((event) => ({ seq: ++this.seq, event })));
    this.waiters.release(this.rev);
  }

  /**
   * Keeps the state as it was before the first event of a batch (the events one store dispatch
   * delivers in the same tick). The clone is O(1): the live tree copies the nodes it changes.
   */
  private beginBatch(): void {
    if (this.batchOpen || !this.snapshotting) return;
    this.batchOpen = true;
    queueMicrotask(() => {
      this.batchOpen = false;
    });
    const now = this.now();
    this.snapshots.evict(now);
    this.snapshots.add({ revision: this.rev, tree: this.tree.clone(), until: now });
  }

  /** The state at `revision` < current, from the snapshots and the history (see listAt). */
  private treeAt(revision: number): Tree<CachedVersion<T>> | undefined {
    const now = this.now();
    this.snapshots.evict(now);
    const snapshot = this.snapshots.atOrBefore(revision);
    if (!snapshot) return undefined;
    if (snapshot.revision === revision) return snapshot.tree;
    // Bring the snapshot forward, if the history holds every event after it.
    if (this.history.floor > snapshot.revision) return undefined;
    let tree: Tree<CachedVersion<T>> | undefined;
    let until = now;
    for (const entry of this.history.between(snapshot.revision, Infinity)) {
      if (entry.event.revision > revision) {
        until = entry.at;
        break;
      }
      tree ??= snapshot.tree.clone();
      const { key } = entry.event.object;
      if (entry.event.type === 'DELETED') tree.delete(key);
      // Every object in the history was made by this.versions: the cast names what it is.
      else tree.set(key, entry.event.object as CachedVersion<T>);
    }
    if (!tree) return snapshot.tree;
    // Later pages of the same list will ask for the same revision: keep what was built.
    this.snapshots.add({ revision, tree, until });
    return tree;
  }

  // --- waiting for revisions -----------------------------------------------------------------

  private whenRevision(revision: number, reached: () => void): () => void {
    if (revision <= this.rev) {
      reached();
      return () => {};
    }
    const cancel = this.waiters.add(revision, (ok) => ok && reached());
    this.requestProgress();
    return cancel;
  }

  /**
   * One progress read for the current waiters (another one after it if waiters arrived while it
   * ran). Only trusted while the same store watch is live: then every event up to the revision it
   * returns has been applied.
   */
  private requestProgress(): void {
    if (!this.progress || this.state !== 'watching') return;
    if (this.progressInFlight) {
      this.progressAgain = true;
      return;
    }
    this.progressInFlight = true;
    const epoch = this.epoch;
    this.progress()
      .then(
        (revision) => {
          if (epoch !== this.epoch || this.state !== 'watching' || revision <= this.rev) return;
          this.rev = revision;
          this.waiters.release(revision);
        },
        () => undefined,
      )
      .finally(() => {
        this.progressInFlight = false;
        if (!this.progressAgain) return;
        this.progressAgain = false;
        if ((this.waiters.highest ?? 0) > this.rev) this.requestProgress();
      });
  }

  // --- argument checks -----------------------------------------------------------------------

  private checkReadable(): void {
    if (this.state === 'stopped') throw new StorageError('Closed', `the watch cache of ${this.prefix} was stopped`);
    if (!this.isReady) throw new WatchCacheNotReadyError(this.prefix);
  }

  private checkHolds(what: string): void {
    if (!this.holdsObjects) throw new StorageError('InvalidArgument', `the watch cache of ${this.prefix} keeps no objects: ${what} reads the store`);
  }

  private checkPrefix(prefix: string | undefined): string {
    const p = prefix ?? this.prefix;
    if (typeof p !== 'string' || !p.startsWith(this.prefix)) {
      throw new StorageError('InvalidArgument', `prefix ${JSON.stringify(p)} is outside the watch cache's ${JSON.stringify(this.prefix)}`);
    }
    return p;
  }

  private checkList(options: CacheListOptions<T>): string {
    const prefix = this.checkPrefix(options.prefix);
    const { startKey, limit } = options;
    if (startKey !== undefined && (typeof startKey !== 'string' || !startKey.startsWith(prefix))) {
      throw new StorageError('InvalidArgument', `startKey ${JSON.stringify(startKey)} is not under the listed prefix ${JSON.stringify(prefix)}`);
    }
    if (limit !== undefined) checkCount(limit, 'limit');
    return prefix;
  }
}

function checkCount(value: unknown, what: string): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new StorageError('InvalidArgument', `${what} must be a non-negative integer, got ${String(value)}`);
  }
  return value;
}

function positive(value: number, what: string): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new StorageError('InvalidArgument', `${what} must be a positive integer, got ${value}`);
  return value;
}
