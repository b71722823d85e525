/**
 * How many Events one source may write about one object: a token bucket per source and object,
 * `burst` at once and then one per `refillMs` (client-go's EventSourceObjectSpamFilter: 25, and
 * one every 5 minutes), so an object that is always unhealthy cannot keep a component writing
 * about it. The buckets of the `size` sources and objects seen last are kept (least recently seen
 * forgotten first: a forgotten one starts full again, as client-go's LRU does).
 */
export class EventSpamFilter {
  readonly #burst: number;
  readonly #refillMs: number;
  readonly #size: number;
  /** Tokens left and when they were counted, by source and object, least recently seen first. */
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(options: { readonly burst: number; readonly refillMs: number; readonly size: number }) {
    this.#burst = options.burst;
    this.#refillMs = options.refillMs;
    this.#size = options.size;
  }

  /** Whether an Event of `key` (its source and object) may be written at `nowMs`: takes a token if so. */
  allow(key: string, nowMs: number): boolean {
    let bucket = this.#buckets.get(key);
    if (bucket === undefined) {
      bucket = { tokens: this.#burst, at: nowMs };
      if (this.#buckets.size >= this.#size) this.#buckets.delete(this.#buckets.keys().next().value!);
    } else {
      this.#buckets.delete(key); // to the most recently seen end
      // A clock that steps back refills nothing.
      if (nowMs > bucket.at) {
        bucket.tokens = Math.min(this.#burst, bucket.tokens + (nowMs - bucket.at) / this.#refillMs);
        bucket.at = nowMs;
      }
    }
    this.#buckets.set(key, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }
}
