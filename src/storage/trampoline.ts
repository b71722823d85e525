/**
 * Delivers published items one at a time, in the order they were published, even when
 * delivering one publishes more (a watcher that writes from inside its own callback commits the
 * next event while this one is still being handed out). Without it, a recursive publish would
 * reach later watchers before the item in hand did. The queue only ever holds the items published
 * during one delivery: nothing waits per watcher.
 *
 * `deliver` must not throw: a throw abandons the rest of the queue for everyone.
 */
export class Trampoline<E> {
  private readonly queue: E[] = [];
  private draining = false;

  constructor(private readonly deliver: (item: E) => void) {}

  publish(items: Iterable<E>): void {
    for (const item of items) this.queue.push(item);
    if (!this.draining) this.run(noop);
  }

  /**
   * Runs `attach` with delivery held back, then delivers what was published meanwhile. A new
   * watcher that replays history and registers inside `attach` receives an item committed during
   * its replay after the replay, never before it or twice. Inside a delivery, `attach` runs at once
   * and what it publishes joins the queue being drained.
   */
  run(attach: () => void): void {
    if (this.draining) return attach();
    this.draining = true;
    try {
      attach();
      for (let i = 0; i < this.queue.length; i++) this.deliver(this.queue[i]!);
    } finally {
      this.queue.length = 0;
      this.draining = false;
    }
  }
}

const noop = (): void => {};
