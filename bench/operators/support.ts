// Shared by the operator benches: measure the same work through an operator and as a hand-written
// loop, and report nanoseconds per item for each. The difference is what the operator costs.
import { measure } from 'mitata';
import { Observable } from 'rxjs';

/** Minimum CPU time per measurement, in ms (`BENCH_MS`, default 400). */
const MIN_CPU_MS = Number(process.env.BENCH_MS ?? 400);

export interface PerItemRow {
  operator: string;
  case: string;
  /** ns per item through the operator (source, operator, subscriber). */
  operatorNs: number;
  /** ns per item for the hand-written loop doing the same thing. */
  loopNs: number;
}

let sunk = 0;
/** Keeps results alive so that the JIT cannot drop the work. */
export function sink(value: unknown): void {
  if (value === sunk) sunk++;
}

/** A synchronous source over an array, as cheap as an Observable source gets (like `from(array)`). */
export function fromArray<T>(items: readonly T[]): Observable<T> {
  return new Observable<T>((subscriber) => {
    for (let i = 0; i < items.length && !subscriber.closed; i++) subscriber.next(items[i]!);
    subscriber.complete();
  });
}

export async function perItem(operator: string, name: string, items: number, viaOperator: () => void, byHand: () => void): Promise<PerItemRow> {
  const options = { min_cpu_time: MIN_CPU_MS * 1e6 };
  const op = await measure(viaOperator, options);
  const loop = await measure(byHand, options);
  return { operator, case: name, operatorNs: op.avg / items, loopNs: loop.avg / items };
}

export async function time(fn: () => Promise<void> | void): Promise<number> {
  const stats = await measure(fn, { min_cpu_time: MIN_CPU_MS * 1e6 });
  return stats.avg;
}
