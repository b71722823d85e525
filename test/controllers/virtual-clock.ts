import { Subscription, type SchedulerAction } from 'rxjs';
import { VirtualTime } from '../../src/testing/index.js';

/**
 * The test kit's `VirtualTime` (the clock stands still until the test moves it; promises settle
 * between timers) with one difference for the batch loops' suites: delays under a second — a work
 * queue's retry of a failed write, 5 ms doubling — run at real speed, so a 409 is retried without
 * the test moving time. The loops' own waits (deadlines, back-off, schedule times, TTLs, podgc's
 * passes: a second or more) wait for `advance`.
 */
export class VirtualClock extends VirtualTime {
  constructor(start: number | string) {
    super(typeof start === 'string' ? Date.parse(start) : start);
  }

  override schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay = 0, state?: T): Subscription {
    if (delay >= 1000) return super.schedule(work, delay, state);
    const subscription = new Subscription();
    // What `this` is inside the work: rescheduling (a periodic timer) arms it again on this clock.
    const action = {
      schedule: (nextState?: T, nextDelay = 0) => {
        subscription.add(this.schedule(work, nextDelay, nextState));
        return subscription;
      },
    } as unknown as SchedulerAction<T>;
    const handle = setTimeout(() => {
      if (!subscription.closed) work.call(action, state);
    }, delay);
    subscription.add(() => clearTimeout(handle));
    return subscription;
  }

  /** Moves time forward by `ms`: each timer due on the way runs at its own time, promises settling between. */
  advance(ms: number): Promise<void> {
    return this.advanceBy(ms);
  }
}
