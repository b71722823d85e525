/**
 * A min-heap of (time, key) used for delayed re-adds: one timer serves all keys. Entries are never
 * removed from the middle; a caller that moves a key's time pushes again and skips stale entries
 * when they surface (it knows each key's current time).
 */
export class DelayHeap {
  #times: number[] = [];
  #keys: string[] = [];

  get size(): number {
    return this.#times.length;
  }

  /** The earliest time, or Infinity when empty. */
  peekTime(): number {
    return this.#times.length === 0 ? Infinity : this.#times[0]!;
  }

  peekKey(): string | undefined {
    return this.#keys[0];
  }

  push(time: number, key: string): void {
    const times = this.#times;
    const keys = this.#keys;
    let i = times.length;
    times.push(time);
    keys.push(key);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (times[parent]! <= time) break;
      times[i] = times[parent]!;
      keys[i] = keys[parent]!;
      i = parent;
    }
    times[i] = time;
    keys[i] = key;
  }

  pop(): void {
    const times = this.#times;
    const keys = this.#keys;
    const lastTime = times.pop()!;
    const lastKey = keys.pop()!;
    const n = times.length;
    if (n === 0) return;
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && times[child + 1]! < times[child]!) child++;
      if (times[child]! >= lastTime) break;
      times[i] = times[child]!;
      keys[i] = keys[child]!;
      i = child;
    }
    times[i] = lastTime;
    keys[i] = lastKey;
  }

  clear(): void {
    this.#times = [];
    this.#keys = [];
  }
}
