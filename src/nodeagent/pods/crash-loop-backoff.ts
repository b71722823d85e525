/** Options of {@link CrashLoopBackoff}; the defaults are the kubelet's. */
export interface CrashLoopBackoffOptions {
  /** Delay before the second restart, ms. Default 10 s. */
  readonly initialMs?: number | undefined;
  /** Cap, ms. Default 5 min. */
  readonly maxMs?: number | undefined;
  /** A container restarted this long ago (so it ran that long) starts from the initial delay again. Default 10 min. */
  readonly resetMs?: number | undefined;
  /** Milliseconds since the epoch. Default `Date.now`. */
  readonly clock?: (() => number) | undefined;
}

interface Entry {
  delayMs: number;
  restartedAt: number;
}

/**
 * The restart back-off of containers, per key (pod UID, container name), as the kubelet: the first
 * restart is at once; each later one waits the current delay after the container exited, and the
 * delay doubles (10 s, 20 s, … 5 min). A container that ran for `resetMs` since its last restart
 * starts over. Exit times come from the runtime, `now` from the clock.
 */
export class CrashLoopBackoff {
  readonly #entries = new Map<string, Entry>();
  readonly #initialMs: number;
  readonly #maxMs: number;
  readonly #resetMs: number;
  readonly now: () => number;

  constructor(options: CrashLoopBackoffOptions = {}) {
    this.#initialMs = options.initialMs ?? 10_000;
    this.#maxMs = options.maxMs ?? 300_000;
    this.#resetMs = options.resetMs ?? 600_000;
    this.now = options.clock ?? Date.now;
  }

  /** Milliseconds left before the container that exited at `finishedAt` may restart; 0 when it may now. */
  remaining(key: string, finishedAt: number): number {
    const entry = this.#entries.get(key);
    if (!entry) return 0;
    const now = this.now();
    if (now - entry.restartedAt >= this.#resetMs) {
      this.#entries.delete(key);
      return 0;
    }
    return Math.max(0, finishedAt + entry.delayMs - now);
  }

  /** Records a restart: the next one waits twice as long (up to the cap). */
  restarted(key: string): void {
    const entry = this.#entries.get(key);
    const delayMs = entry ? Math.min(this.#maxMs, entry.delayMs * 2) : this.#initialMs;
    this.#entries.set(key, { delayMs, restartedAt: this.now() });
  }

  /** The current delay of a key (0: none), for status messages. */
  delayOf(key: string): number {
    return this.#entries.get(key)?.delayMs ?? 0;
  }

  /** Forgets every key of a pod (it terminated). */
  forgetPod(podUid: string): void {
    for (const key of this.#entries.keys()) if (key.startsWith(`${podUid}/`)) this.#entries.delete(key);
  }
}

export const backoffKey = (podUid: string, containerName: string): string => `${podUid}/${containerName}`;
