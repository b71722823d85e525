import { Observable, Subscriber } from 'rxjs';
import type { StoreEvent } from './store.js';
import { Trampoline } from './trampoline.js';

/**
 * Delivers committed events to live watchers in revision order: through a trampoline, so a
 * watcher that writes from inside its own `next` cannot make later watchers see event N+1 before N.
 */
export class EventFanout<V> {
  private readonly watchers = new Set<(event: StoreEvent<V>) => void>();
  private readonly trampoline = new Trampoline<StoreEvent<V>>((event) => {
    for (const watcher of this.watchers) watcher(event);
  });

  publish(events: Iterable<StoreEvent<V>>): void {
    this.trampoline.publish(events);
  }

  add(watcher: (event: StoreEvent<V>) => void): () => void {
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  get size(): number {
    return this.watchers.size;
  }
}

export interface LogWatchSource<V> {
  /** Throws (Compacted, Closed) when the watch cannot start at `fromRevision`. */
  check(fromRevision: number): void;
  /** Retained events with revision > `afterRevision` under `prefix`, in revision order. */
  replay(prefix: string, afterRevision: number): Iterable<StoreEvent<V>>;
  fanout: EventFanout<V>;
  /** Stops every watch when the store closes. */
  closing: Observable<never>;
}

/**
 * Watch for stores that commit in this process (memory, sqlite): replay the log, then follow the
 * fan-out. Both steps run in one synchronous call, so no commit can fall between them; the
 * `last` guard drops what the replay already delivered.
 */
export function watchFromLog<V>(source: LogWatchSource<V>, prefix: string, fromRevision: number): Observable<StoreEvent<V>> {
  return new Observable<StoreEvent<V>>((subscriber: Subscriber<StoreEvent<V>>) => {
    try {
      source.check(fromRevision);
    } catch (error) {
      subscriber.error(error);
      return;
    }
    let last = fromRevision;
    const deliver = (event: StoreEvent<V>) => {
      if (event.revision <= last || !event.key.startsWith(prefix)) return;
      last = event.revision;
      subscriber.next(event);
    };
    try {
      for (const event of source.replay(prefix, fromRevision)) {
        if (subscriber.closed) return;
        deliver(event);
      }
    } catch (error) {
      subscriber.error(error);
      return;
    }
    if (subscriber.closed) return;
    const remove = source.fanout.add((event) => {
      try {
        deliver(event);
      } catch (error) {
        subscriber.error(error);
      }
    });
    const closing = source.closing.subscribe({ error: (e) => subscriber.error(e), complete: () => subscriber.complete() });
    return () => {
      remove();
      closing.unsubscribe();
    };
  });
}
