import type { Store } from './store.js';

export interface RetentionOptions {
  /** How much history to keep (default 5 minutes, kube-apiserver's compaction interval). */
  windowMs?: number;
  /** How often to sample the revision and compact (default: a fifth of the window). */
  intervalMs?: number;
  /** The clock (tests pass their own and call `tick`). */
  now?: () => number;
  onError?: (error: unknown) => void;
}

/**
 * Keeps `windowMs` of history and compacts the rest. Every tick records (now, revision); the
 * store is compacted to the newest recorded revision that is at least a window old. History is
 * therefore kept for between one window and one window plus one interval.
 */
export class Retention {
  readonly windowMs: number;
  readonly intervalMs: number;
  private readonly now: () => number;
  private readonly samples: { at: number; revision: number }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number | undefined> | undefined;

  constructor(
    private readonly store: Store<unknown>,
    private readonly options: RetentionOptions = {},
  ) {
    this.windowMs = options.windowMs ?? 5 * 60_000;
    this.intervalMs = options.intervalMs ?? Math.max(1000, Math.floor(this.windowMs / 5));
    this.now = options.now ?? Date.now;
  }

  start(): this {
    if (this.timer) return this;
    void this.tick();
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    this.timer.unref();
    return this;
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Samples the revision and compacts what fell out of the window; returns the compacted revision. */
  tick(): Promise<number | undefined> {
    // One tick at a time: a slow compaction must not overlap the next.
    this.running ??= this.runTick().finally(() => (this.running = undefined));
    return this.running;
  }

  private async runTick(): Promise<number | undefined> {
    try {
      const now = this.now();
      this.samples.push({ at: now, revision: await this.store.revision() });
      let target: number | undefined;
      while (this.samples.length > 0 && this.samples[0]!.at <= now - this.windowMs) target = this.samples.shift()!.revision;
      if (target === undefined || target <= (await this.store.compactedRevision())) return undefined;
      await this.store.compact(target);
      return target;
    } catch (error) {
      this.options.onError?.(error);
      return undefined;
    }
  }
}
