import { Subscription, type SchedulerAction, type SchedulerLike } from 'rxjs';

/**
 * A scheduler whose clock moves only when the test says (`advance`): the loops' own waits
 * (deadlines, back-off, schedules, TTLs: a second or more) fire when virtual time reaches them.
 * Shorter delays (a work queue's retry of a failed write, 5 ms doubling) run at real speed after
 * their real delay, so a 409 is retried without the test having to move time.
 */
export class VirtualClock implements SchedulerLike {
  #now: number;
  readonly #timers = new Set<{ at: number; fire: () => void }>();

  constructor(start: number | string) {
    this.#now = typeof start === 'string' ? Date.parse(start) : start;
  }

  now(): number {
    return this.#now;
  }

  schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay = 0, state?: T): Subscription {
    const subscription = new Subscription();
    let pending: Subscription | undefined;
    // What `this` is inside the work: rescheduling it (a periodic timer) arms it again on this clock.
    const action = {
      schedule: (nextState?: T, nextDelay = 0) => {
        arm(nextState, nextDelay);
        return subscription;
      },
    } as unknown as SchedulerAction<T>;
    const arm = (armedState: T | undefined, armedDelay: number) => {
      pending?.unsubscribe();
      pending = this.#arm(() => {
        if (!subscription.closed) work.call(action, armedState);
      }, armedDelay);
    };
    subscription.add(() => pending?.unsubscribe());
    arm(state, delay);
    return subscription;
  }

  #arm(fire: () => void, delay: number): Subscription {
    if (delay < 1000) {
      const handle = setTimeout(fire, delay);
      return new Subscription(() => clearTimeout(handle));
    }
    const timer = { at: this.#now + delay, fire };
    this.#timers.add(timer);
    return new Subscription(() => this.#timers.delete(timer));
  }

  /** Moves time forward by `ms`, firing the timers due on the way, in time order. */
  advance(ms: number): void {
    const until = this.#now + ms;
    for (;;) {
      const due = [...this.#timers].filter((t) => t.at <= until).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.#timers.delete(due);
      this.#now = Math.max(this.#now, due.at);
      due.fire();
    }
    this.#now = until;
  }
}
