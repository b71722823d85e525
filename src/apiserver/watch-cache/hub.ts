import type { SequencedEvent } from './events.js';

/** A live watcher, as the hub sees it (an object, not a closure: a watcher is one small instance). */
export interface HubListener<T> {
  receive(entry: SequencedEvent<T>): void;
}

/**
 * Hands every applied event to every live watcher, in order. A watcher that writes from its own
 * callback makes the cache apply (and publish) the next event while this one is still being
 * delivered; publishing through one trampoline queue keeps every watcher's view in revision order
 * (the same reason src/storage/fanout.ts has one). The queue only ever holds events produced
 * during one dispatch: nothing is queued per watcher.
 *
 * Listeners must not throw: a throw would abandon the rest of the queue for everyone.
 */
export class Hub<T> {
  private readonly listeners = new Set<HubListener<T>>();
  private readonly queue: SequencedEvent<T>[] = [];
  private draining = false;

  publish(entries: Iterable<SequencedEvent<T>>): void {
    for (const entry of entries) this.queue.push(entry);
    if (!this.draining) this.run(() => {});
  }

  /**
   * Runs `attach` with delivery held back, then delivers what it published. A new watcher replays
   * history and registers inside `attach`, so an event committed meanwhile (say by the new
   * watcher's own callback) reaches it after its replay, never before or twice.
   */
  run(attach: () => void): void {
    if (this.draining) return attach();
    this.draining = true;
    try {
      attach();
      for (let i = 0; i < this.queue.length; i++) {
        const entry = this.queue[i]!;
        for (const listener of this.listeners) listener.receive(entry);
      }
    } finally {
      this.queue.length = 0;
      this.draining = false;
    }
  }

  add(listener: HubListener<T>): void {
    this.listeners.add(listener);
  }

  delete(listener: HubListener<T>): void {
    this.listeners.delete(listener);
  }

  get size(): number {
    return this.listeners.size;
  }
}
