import { Backoff } from '../../src/client/index.js';

/** Upstream's failedPodsBackoff: 1 s doubling to 15 minutes, per DaemonSet and node. */
const INITIAL_MS = 1_000;
const MAX_MS = 15 * 60_000;

interface Entry {
  readonly backoff: Backoff;
  /** Before this, a failed pod on the node is left alone. */
  until: number;
}

/**
 * How soon a failed daemon pod may be deleted again on one node (upstream's failedPodsBackoff):
 * a daemon that keeps failing on a node is replaced after 1 s, then 2 s, 4 s … up to 15 minutes,
 * instead of as fast as it fails. An entry unused for twice the longest delay is forgotten.
 */
export class FailedPodBackoff {
  readonly #entries = new Map<string, Entry>();

  constructor(private readonly now: () => number) {}

  /** Whether the failed pod of `key` (`<daemonset key>/<node>`) may be deleted now; if not, in how many ms. */
  take(key: string): { readonly allowed: true } | { readonly allowed: false; readonly waitMs: number } {
    const now = this.now();
    this.#forgetIdle(now);
    let entry = this.#entries.get(key);
    if (entry !== undefined && now < entry.until) return { allowed: false, waitMs: entry.until - now };
    entry ??= { backoff: new Backoff({ initialMs: INITIAL_MS, maxMs: MAX_MS, jitter: 0 }), until: 0 };
    entry.until = now + entry.backoff.next();
    this.#entries.set(key, entry);
    return { allowed: true };
  }

  #forgetIdle(now: number): void {
    for (const [key, entry] of this.#entries) if (now - entry.until > 2 * MAX_MS) this.#entries.delete(key);
  }
}
