/** Exponential back-off with jitter, as client-go's reflector: 800 ms doubling to 30 s. */
export interface BackoffOptions {
  /** First delay. Default 800 ms. */
  readonly initialMs?: number;
  /** Largest delay before jitter. Default 30 s. */
  readonly maxMs?: number;
  /** Each delay is the previous one times this. Default 2. */
  readonly factor?: number;
  /** A delay d is drawn uniformly from [d, d × (1 + jitter)]. Default 0.5. */
  readonly jitter?: number;
}

export class Backoff {
  readonly #initial: number;
  readonly #max: number;
  readonly #factor: number;
  readonly #jitter: number;
  #next: number;

  constructor(options: BackoffOptions = {}, private readonly random: () => number = Math.random) {
    this.#initial = options.initialMs ?? 800;
    this.#max = options.maxMs ?? 30_000;
    this.#factor = options.factor ?? 2;
    this.#jitter = options.jitter ?? 0.5;
    this.#next = this.#initial;
  }

  /** The delay to wait now; the one after it is longer, up to the cap. */
  next(): number {
    const base = this.#next;
    this.#next = Math.min(this.#max, base * this.#factor);
    return base * (1 + this.#jitter * this.random());
  }

  /** Back to the first delay (after a success). */
  reset(): void {
    this.#next = this.#initial;
  }
}

/** Resolves after `ms`, or at once (without error) when `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
