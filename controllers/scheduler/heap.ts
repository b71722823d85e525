/** A binary min-heap by `less`, with removal by key (the scheduling queue deletes pods from its middle). */
export class KeyedHeap<T> {
  readonly #items: T[] = [];
  readonly #index = new Map<string, number>();

  constructor(
    readonly keyOf: (item: T) => string,
    readonly less: (a: T, b: T) => boolean,
  ) {}

  get size(): number {
    return this.#items.length;
  }

  has(key: string): boolean {
    return this.#index.has(key);
  }

  get(key: string): T | undefined {
    const i = this.#index.get(key);
    return i === undefined ? undefined : this.#items[i];
  }

  peek(): T | undefined {
    return this.#items[0];
  }

  /** Adds, or replaces the item of the same key and restores the order. */
  push(item: T): void {
    const key = this.keyOf(item);
    const at = this.#index.get(key);
    if (at !== undefined) {
      this.#items[at] = item;
      this.#down(this.#up(at));
      return;
    }
    this.#items.push(item);
    this.#index.set(key, this.#items.length - 1);
    this.#up(this.#items.length - 1);
  }

  pop(): T | undefined {
    const top = this.#items[0];
    if (top !== undefined) this.#removeAt(0);
    return top;
  }

  delete(key: string): T | undefined {
    const at = this.#index.get(key);
    if (at === undefined) return undefined;
    const item = this.#items[at]!;
    this.#removeAt(at);
    return item;
  }

  values(): readonly T[] {
    return this.#items;
  }

  #removeAt(at: number): void {
    const items = this.#items;
    this.#index.delete(this.keyOf(items[at]!));
    const last = items.pop()!;
    if (at === items.length) return;
    items[at] = last;
    this.#index.set(this.keyOf(last), at);
    this.#down(this.#up(at));
  }

  #swap(i: number, j: number): void {
    const items = this.#items;
    const a = items[i]!;
    const b = items[j]!;
    items[i] = b;
    items[j] = a;
    this.#index.set(this.keyOf(b), i);
    this.#index.set(this.keyOf(a), j);
  }

  #up(i: number): number {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(this.#items[i]!, this.#items[parent]!)) break;
      this.#swap(i, parent);
      i = parent;
    }
    return i;
  }

  #down(i: number): void {
    const n = this.#items.length;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let min = i;
      if (l < n && this.less(this.#items[l]!, this.#items[min]!)) min = l;
      if (r < n && this.less(this.#items[r]!, this.#items[min]!)) min = r;
      if (min === i) return;
      this.#swap(i, min);
      i = min;
    }
  }
}
