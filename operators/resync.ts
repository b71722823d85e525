import { asyncScheduler, Observable, type MonoTypeOperatorFunction, type SchedulerLike, type Subscription } from 'rxjs';
import { keyOf, objectsOf, type KeySource } from './objectShapes.js';
import { subscribeSource } from './subscribeSource.js';
import { requireFunction, requirePositive } from './validate.js';

/** Options of {@link resync}. */
export interface ResyncOptions<T> {
  /** The shortest time between two resyncs, in ms. Required; > 0. Each wait is drawn from [period, 2·period). */
  period: number;
  /** The key under which an item's latest state is kept. Default: `namespace/name` of the item's object (as `toKey`). */
  key?: (item: T) => string | undefined;
  /** Whether an item removes its key (a delete). Default: an item with `type` `'DELETED'` (a watch event) or `'deleted'` (an informer event). */
  isDelete?: (item: T) => boolean;
  /** What to emit for a key at a resync. Default: the latest item itself. */
  resynced?: (latest: T) => T;
  /** Clock and timers. Default: `asyncScheduler`. */
  scheduler?: SchedulerLike;
  /** Random numbers in [0, 1) for the wait. Default: `Math.random`. */
  random?: () => number;
}

const defaultIsDelete = (item: unknown): boolean => {
  const type = (item as { type?: unknown }).type;
  return type === 'DELETED' || type === 'deleted';
};

const defaultKey = (item: unknown): string | undefined => {
  const objects = objectsOf(item as KeySource);
  return objects.length === 0 ? undefined : keyOf(objects[0]!.metadata);
};

/**
 * Passes every item through and, every `period` to `2·period` ms (drawn at random each time),
 * emits again the latest item of every key not deleted since — an informer's periodic resync.
 *
 * Like `merge(source, interval(period).pipe(mergeMap(() => latestByKey.values())))`, but the
 * latest items are kept per key (a delete removes its key), the wait is jittered so that many
 * controllers do not resync in step, and the timer starts at subscription. The output completes
 * and errors with the source.
 *
 * ```
 * source:   a-b-c 20ms |                  c is a newer version of a; random() = 0
 * resync({ period: 10 })
 * result:   a-b-c-----(cb)------(cb)-|     at 10 and 20: every key's latest item, in first-seen order
 * ```
 *
 * @example
 * import { Subject } from 'rxjs';
 * import { resync } from 'svc/operators';
 * const events = new Subject<{ type: string; object: { metadata: { name: string } } }>();
 * events.pipe(resync({ period: 10 * 60_000 })).subscribe((event) => console.log(event.object.metadata.name));
 *
 * @see resourceVersionChanged — with `resynced: (e) => ({ type: 'resync', object: e.object })`, drops the echoes downstream
 * @see toKey — the default key
 */
export function resync<T>(options: ResyncOptions<T>): MonoTypeOperatorFunction<T> {
  const period = requirePositive('period', options.period, true);
  const key = options.key === undefined ? defaultKey : requireFunction('key', options.key);
  const isDelete = options.isDelete === undefined ? defaultIsDelete : requireFunction('isDelete', options.isDelete);
  const resynced = options.resynced === undefined ? undefined : requireFunction('resynced', options.resynced);
  const scheduler = options.scheduler ?? asyncScheduler;
  const random = options.random ?? Math.random;
  return (source) =>
    new Observable<T>((subscriber) => {
      const latest = new Map<string, T>();
      let timer: Subscription | null = null;

      const tick = (): void => {
        for (const item of latest.values()) {
          subscriber.next(resynced === undefined ? item : resynced(item));
          if (subscriber.closed) return;
        }
        schedule();
      };
      const schedule = (): void => {
        timer = scheduler.schedule(tick, period + period * random());
      };

      schedule();
      subscribeSource(source, subscriber, {
        next(item) {
          const k = key(item);
          if (k !== undefined) {
            if (isDelete(item)) latest.delete(k);
            else latest.set(k, item);
          }
          subscriber.next(item);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
      return () => timer?.unsubscribe();
    });
}
