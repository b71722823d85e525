import { requireCount, requirePositive } from './validate.js';

/** The two numbers of a token bucket: what `--svc-api-qps` and `--svc-api-burst` mean. */
export interface TokenBucketOptions {
  /** Tokens added per second: the sustained rate. Must be > 0; `Infinity` means unlimited. */
  qps: number;
  /** Tokens the bucket holds when full: how many calls may pass at once after an idle spell. An integer >= 1. */
  burst: number;
}

/**
 * A token bucket that hands out reservations: each call takes a token now or books the next one.
 *
 * Like golang.org/x/time/rate's `Limiter.Reserve` (what client-go's bucket rate limiter uses), but
 * it reads no clock of its own: callers pass `now` (a scheduler's `now()`), so virtual time works.
 * The bucket starts full. It is kept as one number, the time at which it would be full again
 * (the generic cell rate algorithm), so that integer rates add up exactly.
 *
 * @example
 * const bucket = new TokenBucket({ qps: 10, burst: 2 });
 * bucket.reserve(0); // 0: a token was there
 * bucket.reserve(0); // 0: the burst
 * bucket.reserve(0); // 100: wait 100 ms for the third token
 *
 * @see rateLimit — the operator that delays items through a bucket
 * @see workqueue — which combines a bucket with per-key back-off for retries
 */
export class TokenBucket {
  readonly #interval: number;
  readonly #tolerance: number;
  #fullAt = -Infinity;

  constructor(options: TokenBucketOptions) {
    const qps = requirePositive('qps', options.qps);
    const burst = requireCount('burst', options.burst);
    this.#interval = 1000 / qps;
    this.#tolerance = (burst - 1) * this.#interval;
  }

  /** Takes a token and returns how many milliseconds after `now` it may be used (0: at once). */
  reserve(now: number): number {
    const fullAt = this.#fullAt > now ? this.#fullAt : now;
    const at = fullAt - this.#tolerance;
    this.#fullAt = fullAt + this.#interval;
    return at > now ? at - now : 0;
  }
}
