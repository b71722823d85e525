/**
 * A small map whose entries expire, bounded in size (the oldest entry goes first): the caches of
 * TokenReview and SubjectAccessReview answers (`--authentication-token-webhook-cache-ttl`, ...).
 * Bounded so that a flood of distinct tokens cannot grow it without limit; `now` is injectable
 * for the tests' clocks.
 */
export class TtlCache<V> {
  readonly #entries = new Map<string, { value: V; expiresAt: number }>();

  constructor(
    readonly maxEntries = 4096,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  set(key: string, value: V, ttlMs: number): void {
    if (ttlMs <= 0) return;
    this.#entries.delete(key);
    if (this.#entries.size >= this.maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
    this.#entries.set(key, { value, expiresAt: this.now() + ttlMs });
  }

  get size(): number {
    return this.#entries.size;
  }
}
