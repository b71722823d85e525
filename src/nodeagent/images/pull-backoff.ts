/**
 * Per-key pull back-off, as the kubelet keeps it per pod and image: a failed pull waits 10 s,
 * each further failure doubles the wait up to 5 minutes, and an entry idle for twice the maximum
 * starts over. Reads an injectable clock so tests step through it without waiting.
 */
export interface PullBackOffOptions {
  readonly initialMs?: number;
  readonly maxMs?: number;
  /** Milliseconds since the epoch; default `Date.now`. */
  readonly now?: () => number;
}

interface Entry {
  /** When the last failure happened. */
  at: number;
  /** How long after `at` the next attempt may run. */
  delayMs: number;
}

export const IMAGE_PULL_BACKOFF_INITIAL_MS = 10_000;
export const IMAGE_PULL_BACKOFF_MAX_MS = 300_000;

export class PullBackOff {
  readonly #entries = new Map<string, Entry>();
  readonly #initialMs: number;
  readonly #maxMs: number;
  readonly #now: () => number;

  constructor(options: PullBackOffOptions = {}) {
    this.#initialMs = options.initialMs ?? IMAGE_PULL_BACKOFF_INITIAL_MS;
    this.#maxMs = options.maxMs ?? IMAGE_PULL_BACKOFF_MAX_MS;
    this.#now = options.now ?? Date.now;
  }

  now(): number {
    return this.#now();
  }

  /** Milliseconds left before `key` may be tried again; 0 when it may be tried now. */
  remainingMs(key: string): number {
    const entry = this.#entries.get(key);
    if (!entry) return 0;
    const left = entry.at + entry.delayMs - this.#now();
    return left > 0 ? left : 0;
  }

  /** Records a failed attempt: the first (or the first after a long quiet spell) waits the initial delay, then doubles. */
  failed(key: string): number {
    const now = this.#now();
    const entry = this.#entries.get(key);
    if (!entry || now - entry.at > 2 * this.#maxMs) {
      this.#entries.set(key, { at: now, delayMs: this.#initialMs });
      this.#gc(now);
      return this.#initialMs;
    }
    entry.at = now;
    entry.delayMs = Math.min(entry.delayMs * 2, this.#maxMs);
    return entry.delayMs;
  }

  succeeded(key: string): void {
    this.#entries.delete(key);
  }

  /** Drops a key's entry (its pod is gone). */
  forget(keyPrefix: string): void {
    for (const key of this.#entries.keys()) if (key.startsWith(keyPrefix)) this.#entries.delete(key);
  }

  // Entries of pods that went away would otherwise stay forever; expired ones mean nothing.
  #gc(now: number): void {
    for (const [key, entry] of this.#entries) if (now - entry.at > 2 * this.#maxMs) this.#entries.delete(key);
  }
}
