/**
 * Collects items as they arrive and hands them over once per animation frame: a burst of a
 * thousand watch events costs one DOM update, not a thousand.
 */
export class FrameBatcher<T> {
  #pending: T[] = [];
  #scheduled = false;

  constructor(private readonly apply: (items: T[]) => void) {}

  push(item: T): void {
    this.#pending.push(item);
    if (this.#scheduled) return;
    this.#scheduled = true;
    requestAnimationFrame(() => {
      this.#scheduled = false;
      const items = this.#pending;
      this.#pending = [];
      this.apply(items);
    });
  }

  clear(): void {
    this.#pending = [];
  }
}
