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
    const action = { schedule: () => subscription } as unknown as SchedulerAction<T>;
    const fire = () => {
      if (!subscription.closed) work.call(action, state);
    };
    if (delay < 1000) {
      const handle = setTimeout(fire, delay);
      subscription.add(() => clearTimeout(handle));
      return subscription;
    }
    const timer = { at: this.#now + delay, fire };
    this.#timers.add(timer);
    subscription.add(() => this.#timers.delete(timer));
    return subscription;
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
