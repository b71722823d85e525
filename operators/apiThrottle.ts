import { asyncScheduler, Subject, type SchedulerLike } from 'rxjs';
import { rateLimit } from './rateLimit.js';

/**
 * The client's throttle hook (`ConnectionOptions.throttle` of svc's client), as this layer sees
 * it: operators import nothing but rxjs and ix, so the shape is spelled out here. Any function
 * of this type is a valid hook, since the client's request carries at least a signal.
 */
export type ThrottleHook = (request: { readonly signal?: AbortSignal | undefined }) => Promise<void>;

/** A request waiting for its token. */
interface Ticket {
  readonly queuedAt: number;
  readonly signal: AbortSignal | undefined;
  resolve(): void;
  reject(reason: unknown): void;
}

export interface ApiThrottleOptions {
  /** `--svc-api-qps`. */
  readonly qps: number;
  /** `--svc-api-burst`. */
  readonly burst: number;
  /** Clock and timers. Default `asyncScheduler`; tests pass a virtual one. */
  readonly scheduler?: SchedulerLike;
  /** Told how long each request waited, in ms (the manager's metrics). */
  readonly onWait?: (ms: number) => void;
}

/**
 * The client's throttle hook filled with the `rateLimit` operator: every request of every
 * controller (watches included) passes one token bucket, in the order the requests were made, as
 * client-go's shared rate limiter does. A request aborted while it waits is rejected at once; its
 * token is still spent when its turn comes (the bucket books tokens in order).
 */
export function apiThrottle(options: ApiThrottleOptions): ThrottleHook {
  const scheduler = options.scheduler ?? asyncScheduler;
  const tickets = new Subject<Ticket>();
  tickets.pipe(rateLimit({ qps: options.qps, burst: options.burst, scheduler })).subscribe((ticket) => {
    options.onWait?.(scheduler.now() - ticket.queuedAt);
    if (ticket.signal?.aborted) ticket.reject(ticket.signal.reason);
    else ticket.resolve();
  });
  return (request) =>
    new Promise<void>((resolve, reject) => {
      const signal = request.signal;
      if (signal?.aborted) {
        reject(signal.reason);
        return;
      }
      const onAbort = () => reject(signal?.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      tickets.next({
        queuedAt: scheduler.now(),
        signal,
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        reject,
      });
    });
}
