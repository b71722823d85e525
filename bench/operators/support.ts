// Shared by the operator benches: inputs of plain values fed all at once (no timers), and a sink
// that keeps results alive so the JIT cannot drop the work.
import type { BenchInput } from '../../src/bench/index.js';

let sunk = 0;
/** Keeps results alive so that the JIT cannot drop the work. */
export function sink(value: unknown): void {
  if (value === sunk) sunk++;
}

/** `values` as a bench input, every item at time 0 (as a synchronous source would give them). */
export function atOnce<T>(name: string, values: readonly T[]): BenchInput<T> {
  return { name, items: values.map((value) => ({ at: 0, value })) };
}
