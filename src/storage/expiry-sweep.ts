import { EXPIRE_BATCH } from './keys.js';
import type { Store } from './store.js';

export interface ExpirySweepOptions {
  /** How often to look for keys whose time to live ran out (default 1 s: etcd's lessor looks every 0.5 s). */
  intervalMs?: number;
  /** Keys deleted per `expire` call; a full batch is followed by the next at once (default 1,000; 0: all at once). */
  batch?: number;
  onError?: (error: unknown) => void;
}

/**
 * Deletes the keys whose time to live (`WriteOptions.ttlSeconds`) has run out, every `intervalMs`:
 * the sqlite and memory stores keep each key's expiry and delete it when asked (`Store.expire`);
 * etcd needs no sweep (its leases do it) and answers 0. A tick deletes every key due, a batch at
 * a time, each batch one group of compare-and-swap deletes, so writers are never held for long.
 */
export class ExpirySweep {
  readonly intervalMs: number;
  private readonly batch: number;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<number> | undefined;

  constructor(
    private readonly store: Pick<Store<unknown>, 'expire'>,
    private readonly options: ExpirySweepOptions = {},
  ) {
    this.intervalMs = options.intervalMs ?? 1000;
    this.batch = options.batch ?? EXPIRE_BATCH;
  }

  start(): this {
    if (this.timer) return this;
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    this.timer.unref();
    return this;
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Deletes every key due now; resolves with how many were due. One tick at a time. */
  tick(): Promise<number> {
    this.running ??= this.runTick().finally(() => (this.running = undefined));
    return this.running;
  }

  private async runTick(): Promise<number> {
    let due = 0;
    try {
      for (;;) {
        const found = await this.store.expire(this.batch);
        due += found;
        if (this.batch === 0 || found < this.batch) return due;
      }
    } catch (error) {
      this.options.onError?.(error);
      return due;
    }
  }
}
