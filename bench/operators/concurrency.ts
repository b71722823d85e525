// concurrency: per-task cost of running synchronous tasks through the limiter, against calling them in a loop.
import { operatorBenchmark, type Benchmark } from '../../src/bench/index.js';
import { concurrency, type Task } from '../../operators/index.js';
import { atOnce, sink } from './support.js';

const N = 10_000;
const work = (i: number): number[] => [i];
const tasks: Task<number>[] = Array.from({ length: N }, (_, i) => () => work(i));

export const benches: Benchmark[] = [
  operatorBenchmark({
    name: 'concurrency',
    input: atOnce('task functions, n = 4', tasks),
    operator: () => concurrency<number>(4),
    baseline: {
      name: 'calls in a loop',
      loop: (all) => {
        for (let i = 0; i < all.length; i++) for (const value of work(i)) sink(value);
      },
    },
  }),
];
