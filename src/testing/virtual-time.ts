import { VirtualAction, VirtualTimeScheduler } from 'rxjs';

/** Lets promise callbacks and I/O already due run: a reconcile's awaits finish between two timers. */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * A clock a test moves by hand: an RxJS `SchedulerLike` (a `VirtualTimeScheduler`, as the
 * `TestScheduler` is) whose time stands still until `advanceBy`/`advanceTo` moves it. Give it to
 * `controller({ scheduler })` (or `workqueue`) and a reconcile's `requeueAfter(30_000)` or its
 * back-off after a failure happens when the test says, without sleeping.
 *
 * Unlike `TestScheduler.run`, which runs everything synchronously inside its callback, this
 * clock lets promises settle between timers, so async reconciles (and real API calls) work.
 *
 * @example
 * const time = new VirtualTime();
 * controller({ name: 'c', for: source, scheduler: time, reconcile: () => requeueAfter(60_000) }).subscribe(...);
 * await time.advanceBy(60_000); // the requeue is due: the second reconcile has run
 */
export class VirtualTime extends VirtualTimeScheduler {
  constructor(start = 0) {
    super(VirtualAction, Infinity);
    this.frame = start;
  }

  /** When the next timer is due (`Infinity`: none is pending). */
  nextAt(): number {
    return this.actions[0]?.delay ?? Infinity;
  }

  /** Timers pending. */
  get pending(): number {
    return this.actions.length;
  }

  /** Moves the clock `ms` forward: see `advanceTo`. */
  advanceBy(ms: number): Promise<void> {
    if (!(ms >= 0)) throw new RangeError(`advanceBy(${ms}): time moves forward only`);
    return this.advanceTo(this.frame + ms);
  }

  /**
   * Moves the clock to `time`: runs each timer due by then at its own time, in time order,
   * letting promise callbacks settle before and after each; the clock then reads `time`.
   */
  async advanceTo(time: number): Promise<void> {
    if (!(time >= this.frame)) throw new RangeError(`advanceTo(${time}): the clock reads ${this.frame} already`);
    await settle();
    while (this.nextAt() <= time) {
      this.maxFrames = this.nextAt();
      try {
        this.flush();
      } finally {
        this.maxFrames = Infinity;
      }
      await settle();
    }
    this.frame = time;
    await settle();
  }

  /**
   * Runs timers until none is pending, moving the clock to each; stops after `maxTimers` (a
   * periodic timer never ends) and throws. Resolves with the time it stopped at.
   */
  async runAll(maxTimers = 10_000): Promise<number> {
    // Settled first: a failing async reconcile schedules its retry only once its promise rejects.
    for (let n = 0; (await settle(), this.pending > 0); n++) {
      if (n >= maxTimers) throw new Error(`still ${this.pending} timers pending after ${maxTimers}`);
      await this.advanceTo(this.nextAt());
    }
    return this.frame;
  }
}
