// Shared by the four predicate benches: half the update events change the field, half do not.
import type { MonoTypeOperatorFunction } from 'rxjs';
import { operatorBenchmark, type BenchInput, type Benchmark } from '../../src/bench/index.js';
import type { ChangeEvent, ObjectLike } from '../../operators/index.js';

const N = 10_000;

/** A predicate operator against the same test by hand, over N update events (all at once: no timers). */
export function predicateBench(
  operator: string,
  predicate: () => MonoTypeOperatorFunction<ChangeEvent>,
  make: (i: number, changed: boolean) => [ObjectLike, ObjectLike],
  changedByHand: (event: ChangeEvent) => boolean,
): Benchmark {
  const input: BenchInput<ChangeEvent> = {
    name: `${N} updates, half changed`,
    items: Array.from({ length: N }, (_, i) => {
      const [old, next] = make(i, i % 2 === 0);
      return { at: 0, value: { type: 'updated', old, object: next } };
    }),
  };
  let kept = 0;
  return operatorBenchmark({
    name: operator,
    operator: () => predicate(),
    input,
    baseline: {
      name: 'the test by hand',
      loop: (events) => {
        for (const event of events) if (changedByHand(event)) kept++;
      },
    },
  });
}

export const sameMap = (a: Readonly<Record<string, string>> = {}, b: Readonly<Record<string, string>> = {}): boolean => {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
};
