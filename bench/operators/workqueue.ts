// workqueue: per-item cost of the queue against a hand-written loop that keys each item, calls the
// work and builds the result; and throughput (add → get → done cycles per second) with 10k keys.
import { Subject, lastValueFrom } from 'rxjs';
import { workqueue, type WorkResult } from '../../operators/index.js';
import { fromArray, perItem, sink, time, type PerItemRow } from './support.js';

export interface ThroughputRow {
  case: string;
  adds: number;
  runs: number;
  ms: number;
}

const KEYS = 10_000;

export async function run(): Promise<PerItemRow[]> {
  const N = 10_000;
  const items = Array.from({ length: N }, (_, i) => `default/pod-${i % KEYS}`);
  const work = (key: string): void => sink(key);
  const queued = fromArray(items).pipe(workqueue({ work }));
  return [
    await perItem(
      'workqueue',
      'synchronous work, 10k keys',
      N,
      () => queued.subscribe(sink),
      () => {
        const running = new Set<string>();
        for (const item of items) {
          const key = String(item);
          running.add(key);
          work(item);
          running.delete(key);
          const result: WorkResult<string> = { type: 'awaitChange', key, item, attempts: 1, value: undefined };
          sink(result);
        }
      },
    ),
  ];
}

/** add/get/done cycles per second: 100k adds over 10k keys, work synchronous or a resolved promise. */
export async function throughput(): Promise<ThroughputRow[]> {
  const ADDS = 100_000;
  const keys = Array.from({ length: ADDS }, (_, i) => `default/pod-${(i * 7919) % KEYS}`);
  const rows: ThroughputRow[] = [];

  let runs = 0;
  const syncMs =
    (await time(() => {
      runs = 0;
      const adds = new Subject<string>();
      adds.pipe(workqueue({ work: () => void runs++ })).subscribe();
      for (const key of keys) adds.next(key);
      adds.complete();
    })) / 1e6;
  rows.push({ case: 'synchronous work, concurrency 1', adds: ADDS, runs, ms: syncMs });

  for (const concurrency of [1, 8]) {
    let asyncRuns = 0;
    const ms =
      (await time(async () => {
        asyncRuns = 0;
        const adds = new Subject<string>();
        const done = lastValueFrom(adds.pipe(workqueue({ concurrency, work: () => (asyncRuns++, Promise.resolve()) })), { defaultValue: undefined });
        // Adds arrive in slices of 1,000 between the promise turns, so keys are added while others run.
        for (let i = 0; i < ADDS; i += 1000) {
          for (let j = i; j < i + 1000; j++) adds.next(keys[j]!);
          await Promise.resolve();
        }
        adds.complete();
        await done;
      })) / 1e6;
    rows.push({ case: `promise work, concurrency ${concurrency}`, adds: ADDS, runs: asyncRuns, ms });
  }
  return rows;
}
