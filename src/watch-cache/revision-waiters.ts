interface Waiter {
  readonly revision: number;
  readonly done: (reached: boolean) => void;
}

/**
 * Callbacks waiting for the cache to reach a revision, sorted by that revision so releasing the
 * reached ones looks only at the front. Woken from the apply path: no polling.
 */
export class RevisionWaiters {
  private waiters: Waiter[] = [];

  /** Calls `done(true)` once `release` reaches `revision`; the returned function cancels. */
  add(revision: number, done: (reached: boolean) => void): () => void {
    const waiter: Waiter = { revision, done };
    let lo = 0;
    let hi = this.waiters.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.waiters[mid]!.revision <= revision) lo = mid + 1;
      else hi = mid;
    }
    this.waiters.splice(lo, 0, waiter);
    return () => {
      const i = this.waiters.indexOf(waiter);
      if (i >= 0) this.waiters.splice(i, 1);
    };
  }

  release(revision: number): void {
    let n = 0;
    while (n < this.waiters.length && this.waiters[n]!.revision <= revision) n++;
    if (n === 0) return;
    for (const waiter of this.waiters.splice(0, n)) waiter.done(true);
  }

  /** Ends every wait unreached (the cache stopped). */
  abandon(): void {
    for (const waiter of this.waiters.splice(0)) waiter.done(false);
  }

  get size(): number {
    return this.waiters.length;
  }

  /** The highest revision anyone waits for. */
  get highest(): number | undefined {
    return this.waiters[this.waiters.length - 1]?.revision;
  }
}
