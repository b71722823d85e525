// concurrency: per-task cost of running synchronous tasks through the limiter, against calling them in a loop.
import { concurrency, type Task } from '../../operators/index.js';
import { fromArray, perItem, sink, type PerItemRow } from './support.js';

export async function run(): Promise<PerItemRow[]> {
  const N = 10_000;
  const work = (i: number): number[] => [i];
  const tasks: Task<number>[] = Array.from({ length: N }, (_, i) => () => work(i));
  const limited = fromArray(tasks).pipe(concurrency(4));
  return [
    await perItem(
      'concurrency',
      'task functions, n = 4',
      N,
      () => limited.subscribe(sink),
      () => {
        for (let i = 0; i < N; i++) for (const value of work(i)) sink(value);
      },
    ),
  ];
}
