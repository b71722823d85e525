import { jsonEqual } from './json-value.js';

/** A value no list item has: what `keyOf` answers for an item without the key. */
export const MISSING = Symbol('no key');

/**
 * Where values sit in a list, found in constant time for scalars (the merge keys and set items
 * Kubernetes lists have); values that are objects or arrays are compared one by one, as before.
 * The first of equal values wins, as a scan from the start would find.
 */
export class ValueIndex {
  readonly #scalars = new Map<unknown, number>();
  readonly #others: { value: unknown; at: number }[] = [];

  constructor(values: readonly unknown[]) {
    values.forEach((value, at) => this.add(value, at));
  }

  add(value: unknown, at: number): void {
    if (value === MISSING) return;
    if (value !== null && typeof value === 'object') this.#others.push({ value, at });
    else if (!this.#scalars.has(value)) this.#scalars.set(value, at);
  }

  find(value: unknown): number {
    if (value !== null && typeof value === 'object') return this.#others.find((entry) => jsonEqual(entry.value, value))?.at ?? -1;
    return this.#scalars.get(value) ?? -1;
  }

  has(value: unknown): boolean {
    return this.find(value) >= 0;
  }

  remove(value: unknown, at: number): void {
    if (value !== null && typeof value === 'object') {
      const i = this.#others.findIndex((entry) => entry.at === at);
      if (i >= 0) this.#others.splice(i, 1);
    } else if (this.#scalars.get(value) === at) {
      this.#scalars.delete(value);
    }
  }
}
