// A clock for loops whose behaviour depends on time (minReadySeconds, progress deadlines): it
// runs in real time plus an offset the test jumps forward, and is the scheduler of the loop's work
// queue too, so a requeue due at the jumped-to time fires at the jump, not after a real wait.
import { Subscription, type SchedulerAction, type SchedulerLike } from 'rxjs';

interface Pending {
  readonly due: number;
  readonly run: () => void;
  timer: NodeJS.Timeout | undefined;
}

export class OffsetClock implements SchedulerLike {
  #offset = 0;
  readonly #pending = new Set<Pending>();

  now = (): number => Date.now() + this.#offset;

  /** Jumps `ms` forward: everything scheduled up to the new time runs now. */
  advance(ms: number): void {
    this.#offset += ms;
    const now = this.now();
    for (const entry of [...this.#pending].sort((a, b) => a.due - b.due)) if (entry.due <= now) entry.run();
  }

  schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay = 0, state?: T): Subscription {
    const subscription = new Subscription();
    const scheduleOnce = (currentState: T | undefined, wait: number): void => {
      const entry: Pending = {
        due: this.now() + wait,
        run: () => {
          clearTimeout(entry.timer);
          this.#pending.delete(entry);
          if (subscription.closed) return;
          const action = Object.assign(subscription, {
            schedule: (next?: T, nextDelay = 0) => {
              scheduleOnce(next, nextDelay);
              return subscription;
            },
          }) as unknown as SchedulerAction<T>;
          work.call(action, currentState);
        },
        timer: undefined,
      };
      entry.timer = setTimeout(entry.run, Math.max(0, wait));
      this.#pending.add(entry);
      subscription.add(() => {
        clearTimeout(entry.timer);
        this.#pending.delete(entry);
      });
    };
    scheduleOnce(state, delay);
    return subscription;
  }
}
