import { asyncScheduler, Observable, type OperatorFunction, type SchedulerLike, type Subscription } from 'rxjs';
import { subscribeSource } from './subscribeSource.js';
import { requireCount, requireNonNegative } from './validate.js';

/** Options of {@link batch}. */
export interface BatchOptions {
  /** How long a batch stays open after its first item, in ms (an endpoint batching period). Required; >= 0. */
  period: number;
  /** Emit as soon as a batch holds this many items. Default: Infinity (only the period closes a batch). */
  max?: number;
  /** Clock and timers. Default: `asyncScheduler`. */
  scheduler?: SchedulerLike;
}

/**
 * Collects items into arrays: a batch opens at its first item and is emitted `period` ms later, or
 * as soon as it holds `max` items.
 *
 * Like `bufferTime(period, null, max)`, but the window starts at the first item rather than on a
 * fixed clock, and no empty arrays are ever emitted: what a controller's batching period means
 * (the first change is delayed by at most `period`, a quiet system emits nothing). On completion
 * the open batch is emitted, then the output completes; an error drops the open batch.
 *
 * ```
 * source:   a-b-------c-d-e-f---|
 * batch({ period: 5, max: 3 })
 * result:   -----x--------y-----(z|)     x = [a, b], y = [c, d, e] (max), z = [f] (completion)
 * ```
 *
 * @example
 * import { interval, take } from 'rxjs';
 * import { batch } from 'svc/operators';
 * interval(10).pipe(take(10), batch({ period: 35 })).subscribe(console.log);
 * // [0, 1, 2, 3] [4, 5, 6, 7] [8, 9]
 *
 * @see rateLimit — spreads items out instead of grouping them
 * @see workqueue — coalesces repeated keys instead of collecting them
 */
export function batch<T>(options: BatchOptions): OperatorFunction<T, T[]> {
  const period = requireNonNegative('period', options.period);
  const max = requireCount('max', options.max ?? Infinity, true);
  const scheduler = options.scheduler ?? asyncScheduler;
  return (source) =>
    new Observable<T[]>((subscriber) => {
      let open: T[] | null = null;
      let timer: Subscription | null = null;

      const emit = (): void => {
        const items = open!;
        open = null;
        timer?.unsubscribe();
        timer = null;
        subscriber.next(items);
      };

      subscribeSource(source, subscriber, {
        next(item) {
          if (open === null) {
            open = [item];
            if (max > 1) timer = scheduler.schedule(emit, period);
            else emit();
            return;
          }
          open.push(item);
          if (open.length >= max) emit();
        },
        error: (error: unknown) => subscriber.error(error),
        complete() {
          if (open !== null) emit();
          subscriber.complete();
        },
      });
      return () => timer?.unsubscribe();
    });
}
