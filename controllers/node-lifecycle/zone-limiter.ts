/**
 * The rate at which one zone's failed nodes are tainted NoExecute: tokens accrue at the zone's
 * rate and are taken one per node. A pass of the monitor may use what one monitor period earned
 * (at least one token), so that a rate above one node per period is honoured although the pass
 * runs once per period (upstream runs its tainting queue every 100 ms with a burst of one).
 * Time is what the caller passes (the loop's scheduler), so virtual time works.
 */
export class ZoneLimiter {
  #tokens: number;
  #at: number | undefined;
  #rate: number;

  constructor(
    rate: number,
    private readonly periodMs: number,
  ) {
    this.#rate = rate;
    // Full at the start, as a new bucket is upstream: the first failed node is tainted at once.
    this.#tokens = rate > 0 ? 1 : 0;
  }

  get rate(): number {
    return this.#rate;
  }

  /** Changes the rate from now on; a rate of 0 stops tainting (what has accrued is dropped). */
  setRate(rate: number, now: number): void {
    this.#refill(now);
    if (rate === 0) this.#tokens = 0;
    else if (this.#rate === 0) this.#tokens = 1;
    this.#rate = rate;
  }

  /** Takes a token when there is one. */
  tryTake(now: number): boolean {
    this.#refill(now);
    if (this.#tokens < 1) return false;
    this.#tokens -= 1;
    return true;
  }

  #refill(now: number): void {
    const cap = Math.max(1, (this.#rate * this.periodMs) / 1000);
    if (this.#at !== undefined && now > this.#at) this.#tokens = Math.min(cap, this.#tokens + ((now - this.#at) * this.#rate) / 1000);
    this.#at = now;
  }
}
