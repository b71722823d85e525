import { Observable, type Subscriber, type Subscription, type Unsubscribable } from 'rxjs';
import { isStorageError, type Store, type StoreEvent } from '../storage/index.js';
import { prefixEnd, type Tree } from './btree.js';
import type { CachedVersion } from './cached-object.js';
import { replayed } from './store-events.js';
import { WatchExpiredError } from './watch-cache-errors.js';
import type { CacheEvent, CacheFilter, SequencedEvent } from './events.js';
import type { History } from './history.js';
import type { Hub, HubListener } from './hub.js';
import type { Versions } from './versions.js';

export interface CacheWatchOptions<T> {
  /**
   * Deliver every event with revision > this. Without it (and without `initialEvents`) the watch
   * starts at the cache's current revision. Ignored with `initialEvents`, except that a revision
   * newer than the cache's makes the initial state wait until the cache has reached it.
   */
  readonly fromRevision?: number;
  /** Keys under this prefix (default: the cache's prefix); it must lie under the cache's prefix. */
  readonly prefix?: string;
  readonly filter?: CacheFilter<T>;
  /**
   * The trigger value every object the filter accepts has (see WatchCacheOptions.triggerOf): the
   * watch is then handed only events of objects with that value, or that had it. Only a promise
   * about `filter`, which still decides.
   */
  readonly trigger?: string;
  /** Start with a synthetic ADDED for every matching current object, in key order. */
  readonly initialEvents?: boolean;
  /**
   * With `initialEvents`: called once, synchronously, after the last synthetic ADDED and before
   * the first live event, with the revision of the initial state. The API server writes the
   * `k8s.io/initial-events-end` bookmark here.
   */
  readonly onInitialEventsEnd?: (revision: number) => void;
  /**
   * Called once, synchronously, when the watch starts following the cache's live events (after
   * any replay): from then on it has been handed every event up to the cache's revision, which
   * is what makes a bookmark at that revision true.
   */
  readonly onLive?: () => void;
}

/** What a watch needs from its cache; the cache hands this to `cacheWatch` and to no one else. */
export interface WatchSource<T> {
  readonly store: Store;
  readonly hub: Hub<T>;
  readonly history: History<T>;
  readonly versions: Versions<T>;
  /** Every open watcher: the cache completes them when it stops. */
  readonly watchers: Set<CacheWatcher<T>>;
  /** The seq and revision of the last applied event, and the live tree. */
  seq(): number;
  revision(): number;
  tree(): Tree<CachedVersion<T>>;
  now(): number;
  /** Settles when the first list is applied; rejects when the cache stops first. */
  readonly ready: Promise<void>;
  isReady(): boolean;
  stopped(): boolean;
  /**
   * Revisions of relists that told watchers of several changes at that one revision (the DELETEDs
   * of a relist's diff all carry its revision): a watch that resumes from one of them may have
   * been cut between those events, and no history or store can give it the rest, so it expires.
   */
  splitRevisions(): ReadonlySet<number>;
  /** Calls `reached` once the cache has applied `revision`; returns a cancel. */
  whenRevision(revision: number, reached: () => void): () => void;
  /** Counts watchers that are replaying from the store (they are not hub listeners). */
  replaying(delta: 1 | -1): void;
}

/**
 * A watch on the cache (see WatchCache.watch for the contract). Three ways in, all ending as a
 * hub listener:
 *
 * - initial events: the tree is cloned (O(1)), its matching objects sent as ADDED, then the hub
 *   followed from the clone's seq;
 * - from a revision the history reaches: the history replayed, then the hub followed;
 * - from an older revision: the store replays it, and the watch moves to the history as soon as
 *   a replayed event's revision is one the history reaches.
 *
 * The first two run inside `hub.run`, so no event is delivered to anyone while a watcher is being
 * attached, and the attach is one synchronous step: nothing can fall between replay and follow.
 */
export function cacheWatch<T>(src: WatchSource<T>, prefix: string, options: CacheWatchOptions<T>): Observable<CacheEvent<T>> {
  return new Observable<CacheEvent<T>>((subscriber) => {
    if (src.stopped()) return subscriber.complete();
    const watcher = new CacheWatcher(src, subscriber, prefix, options);
    subscriber.add(watcher);
    // Once ready, attach in this very call: a caller that subscribes and then reads the cache
    // sees the state the watch started from.
    if (src.isReady()) watcher.start();
    else
      src.ready.then(
        () => watcher.start(),
        () => subscriber.complete(),
      );
  });
}

/**
 * One subscription's state. A class rather than closures: with thousands of watchers, one small
 * object each (methods on the prototype) is what keeps an idle watcher cheap.
 */
export class CacheWatcher<T> implements HubListener<T>, Unsubscribable {
  /** Hub events are taken once seq > afterSeq (replayed already) and revision > after. */
  private afterSeq = 0;
  private after = 0;
  /** The store watch, while the events come from the store. */
  private replay: Subscription | undefined;
  private replayDone = true;
  private cancelWait: (() => void) | undefined;

  constructor(
    private readonly src: WatchSource<T>,
    private readonly subscriber: Subscriber<CacheEvent<T>>,
    private readonly prefix: string,
    private readonly options: CacheWatchOptions<T>,
  ) {
    src.watchers.add(this);
    this.trigger = options.trigger;
  }

  readonly trigger: string | undefined;

  start(): void {
    if (this.subscriber.closed) return;
    const { src, options } = this;
    const from = options.fromRevision;
    if (options.initialEvents) {
      if (from !== undefined && from > src.revision()) this.cancelWait = src.whenRevision(from, () => this.withInitialEvents());
      else this.withInitialEvents();
      return;
    }
    if (from === undefined) return this.fromHistory(src.revision());
    if (src.splitRevisions().has(from)) return this.subscriber.error(new WatchExpiredError(from, src.history.floor));
    src.history.evict(src.now());
    if (from >= src.history.floor) this.fromHistory(from);
    else this.fromStore(from);
  }

  receive(entry: SequencedEvent<T>): void {
    if (entry.seq > this.afterSeq && entry.event.revision > this.after && !this.subscriber.closed) this.deliver(entry.event);
  }

  /** The cache stopped: the watch ends (and its teardown calls `unsubscribe`). */
  complete(): void {
    this.subscriber.complete();
  }

  /** The subscription ended: leave the hub and the store. */
  unsubscribe(): void {
    this.src.hub.delete(this);
    this.src.watchers.delete(this);
    this.cancelWait?.();
    this.endReplay();
  }

  /** Live events: after `afterSeq` (what was replayed) and after revision `after`. */
  private follow(after: number, afterSeq: number): void {
    this.after = after;
    this.afterSeq = afterSeq;
    this.src.hub.add(this);
    this.options.onLive?.();
  }

  private fromHistory(after: number): void {
    const { src, subscriber } = this;
    src.hub.run(() => {
      let last = after;
      const first = src.history.seqAfter(after);
      // Walk by seq up to the live end: events the replay itself causes are included here.
      for (let seq = first ?? src.seq() + 1; seq <= src.seq(); seq++) {
        if (subscriber.closed) return;
        const entry = src.history.bySeq(seq);
        // Evicted while we replayed (only a callback writing a whole history's worth could):
        // the store still has what the history lost.
        if (!entry) return this.fromStore(last);
        this.deliver(entry.event);
        last = entry.event.revision;
      }
      if (!subscriber.closed) this.follow(after, src.seq());
    });
  }

  private withInitialEvents(): void {
    const { src, subscriber, prefix, options } = this;
    this.cancelWait = undefined;
    src.hub.run(() => {
      // The live tree may change under a callback that writes; the clone is O(1).
      const tree = src.tree().clone();
      const revision = src.revision();
      const seq = src.seq();
      tree.forRange(prefix, prefixEnd(prefix), false, (_key, object) => {
        if (subscriber.closed) return { break: true };
        this.deliver({ type: 'ADDED', revision, object });
      });
      if (subscriber.closed) return;
      try {
        options.onInitialEventsEnd?.(revision);
      } catch (error) {
        return subscriber.error(error);
      }
      this.follow(revision, seq);
    });
  }

  private fromStore(after: number): void {
    const { src, subscriber } = this;
    let last = after;
    this.replayDone = false;
    src.replaying(1);
    const onEvent = (e: StoreEvent) => {
      if (this.replayDone) return;
      if (subscriber.closed) return this.endReplay();
      const derived = replayed(src.versions, e, this.options.filter !== undefined);
      if (derived === 'lost') {
        // The store cannot say what this event changed; a watch after it can be served.
        this.endReplay();
        return subscriber.error(new WatchExpiredError(last, e.revision));
      }
      last = e.revision;
      // The previous version of a replayed event is a stand-in (see `replayed`): not sent.
      if (derived.event) this.deliver(derived.event, true);
      if (last >= src.history.floor && this.endReplay()) this.fromHistory(last);
    };
    const onError = (error: unknown) => {
      if (!this.endReplay()) return;
      if (!isStorageError(error, 'Compacted')) return subscriber.error(error);
      const compacted = error.details.compactedRevision;
      const floor = src.history.floor;
      subscriber.error(new WatchExpiredError(last, compacted === undefined ? floor : Math.min(floor, Math.max(0, compacted - 1))));
    };
    let replay: Subscription;
    try {
      replay = src.store.watch(this.prefix, after).subscribe({
        next: (e) => {
          try {
            onEvent(e);
          } catch (error) {
            if (this.endReplay()) subscriber.error(error);
          }
        },
        error: onError,
        complete: () => {
          if (this.endReplay()) subscriber.complete();
        },
      });
    } catch (error) {
      return onError(error);
    }
    // A store that replays synchronously may have handed over (or ended) inside subscribe.
    if (this.replayDone) replay.unsubscribe();
    else this.replay = replay;
  }

  /** Stops the store replay; false when it had already stopped. */
  private endReplay(): boolean {
    if (this.replayDone) return false;
    this.replayDone = true;
    this.src.replaying(-1);
    this.replay?.unsubscribe();
    this.replay = undefined;
    return true;
  }

  /**
   * This watcher's view of an event: under its prefix, with selector transitions — an update
   * leaving the filter is DELETED (carrying the new state), one entering it ADDED, one staying
   * in it MODIFIED, one outside it nothing. A MODIFIED whose previous version is unknown is judged
   * by its new state alone. `withoutPrev`: the prev is a stand-in, good for judging, not to send.
   */
  private deliver(event: CacheEvent<T>, withoutPrev = false): void {
    const { subscriber } = this;
    let out: CacheEvent<T> | undefined;
    try {
      out = this.select(event);
    } catch (error) {
      return subscriber.error(error);
    }
    if (out) subscriber.next(withoutPrev && out.prev ? { type: out.type, revision: out.revision, object: out.object } : out);
  }

  private select(event: CacheEvent<T>): CacheEvent<T> | undefined {
    const { object } = event;
    if (!object.key.startsWith(this.prefix)) return undefined;
    const { filter } = this.options;
    if (!filter) return event;
    const now = filter(object);
    if (event.type !== 'MODIFIED' || !event.prev) return now ? event : undefined;
    const before = filter(event.prev);
    if (before && now) return event;
    if (before) return { type: 'DELETED', revision: event.revision, object, prev: event.prev };
    if (now) return { type: 'ADDED', revision: event.revision, object };
    return undefined;
  }
}
