import { asyncScheduler, Observable, type MonoTypeOperatorFunction, type SchedulerLike, type Subscription } from 'rxjs';
import { subscribeSource } from './subscribeSource.js';
import { TokenBucket } from './tokenBucket.js';

/** Options of {@link rateLimit}. */
export interface RateLimitOptions {
  /** Items per second once the burst is spent (`--svc-api-qps`). Required; > 0, `Infinity` for no limit. */
  qps: number;
  /** Items that may pass at once after an idle spell (`--svc-api-burst`). Required; an integer >= 1. */
  burst: number;
  /** Clock and timers. Default: `asyncScheduler`. */
  scheduler?: SchedulerLike;
}

/**
 * Passes items through a token bucket: at most `burst` at once, then `qps` per second, in order.
 *
 * Like `concatMap(x => timer(wait).pipe(map(() => x)))` with the wait computed from a token
 * bucket, but without an inner subscription per item: an item that finds a token is emitted
 * synchronously, the others wait in a FIFO with one timer for the head. Nothing is dropped, so the
 * buffer grows while the source outpaces `qps`. The bucket starts full. Completion waits for the
 * buffer to drain; an error is passed on at once and drops the buffer (like `delay`).
 *
 * ```
 * source:        abcd-------e---|
 * rateLimit({ qps: 200, burst: 2 })   (one token per 5 ms)
 * result:        ab---c----d----(e|)
 * ```
 *
 * @example
 * import { interval, take } from 'rxjs';
 * import { rateLimit } from 'svc/operators';
 * interval(1).pipe(take(20), rateLimit({ qps: 5, burst: 3 })).subscribe(console.log);
 * // 0 1 2 at once, then one item every 200 ms
 *
 * @see workqueue — per-key retries with back-off combined with the same bucket
 * @see TokenBucket — the bucket alone, for code that is not a pipeline
 */
export function rateLimit<T>(options: RateLimitOptions): MonoTypeOperatorFunction<T> {
  const { qps, burst, scheduler = asyncScheduler } = options;
  new TokenBucket({ qps, burst }); // validates the options when the operator is created
  return (source) =>
    new Observable<T>((subscriber) => {
      const bucket = new TokenBucket({ qps, burst });
      const values: T[] = [];
      const times: number[] = [];
      let head = 0;
      let timer: Subscription | null = null;
      let completed = false;

      const flush = (): void => {
        timer = null;
        const now = scheduler.now();
        while (head < values.length && times[head]! <= now) {
          const value = values[head]!;
          values[head++] = undefined as T;
          subscriber.next(value);
          if (subscriber.closed) return;
        }
        if (head === values.length) {
          values.length = times.length = head = 0;
          if (completed) subscriber.complete();
        } else {
          timer = scheduler.schedule(flush, times[head]! - now);
        }
      };

      subscribeSource(source, subscriber, {
        next(value) {
          const now = scheduler.now();
          const wait = bucket.reserve(now);
          if (wait === 0 && head === values.length) {
            subscriber.next(value);
            return;
          }
          values.push(value);
          times.push(now + wait);
          timer ??= scheduler.schedule(flush, times[head]! - now);
        },
        error: (error: unknown) => subscriber.error(error),
        complete() {
          completed = true;
          if (head === values.length) subscriber.complete();
        },
      });
      return () => timer?.unsubscribe();
    });
}
