/**
 * A small cache whose entries expire after their own TTL on an injectable clock: the review
 * answers of the webhook authenticator and authorizer. Bounded: past `max` entries the oldest
 * inserted goes first, so a flood of distinct tokens cannot grow it without limit.
 */
export class TtlCache<V> {
  readonly #entries = new Map<string, { value: V; expires: number }>();

  constructor(
    private readonly now: () => number,
    private readonly max = 4096,
  ) {}

  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (entry.expires <= this.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** A TTL of 0 or less caches nothing. */
  set(key: string, value: V, ttlMs: number): void {
    if (ttlMs <= 0) return;
    this.#entries.delete(key);
    if (this.#entries.size >= this.max) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(key, { value, expires: this.now() + ttlMs });
  }

  get size(): number {
    return this.#entries.size;
  }
}
