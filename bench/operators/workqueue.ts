// workqueue: per-item cost of the queue against a hand-written loop that keys each item, calls the
// work and builds the result; and throughput (add → get → done cycles) with 10k keys, the work
// synchronous (virtual clock) or a resolved promise (real clock: the queue waits for it).
import { map, type Observable } from 'rxjs';
import { operatorBenchmark, type Benchmark } from '../../src/bench/index.js';
import { workqueue, type WorkResult } from '../../operators/index.js';
import { atOnce, sink } from './support.js';

const KEYS = 10_000;
const N = 10_000;
const ADDS = 100_000;

const items = Array.from({ length: N }, (_, i) => `default/pod-${i % KEYS}`);
const work = (key: string): void => sink(key);
// 100k adds over 10k keys, in an order that spreads each key's adds.
const adds = Array.from({ length: ADDS }, (_, i) => `default/pod-${(i * 7919) % KEYS}`);

export const benches: Benchmark[] = [
  operatorBenchmark({
    name: 'workqueue',
    input: atOnce('10k keys, synchronous work', items),
    operator: (scheduler) => workqueue({ work, scheduler }),
    baseline: {
      name: 'by hand',
      loop: (keys) => {
        const running = new Set<string>();
        for (const item of keys) {
          const key = String(item);
          running.add(key);
          work(item);
          running.delete(key);
          const result: WorkResult<string> = { type: 'awaitChange', key, item, attempts: 1, value: undefined };
          sink(result);
        }
      },
    },
  }),
  operatorBenchmark({
    name: 'workqueue throughput, synchronous work',
    input: atOnce(`${ADDS / 1000}k adds over ${KEYS / 1000}k keys`, adds),
    operator: (scheduler) => workqueue({ work, scheduler }),
  }),
  ...[1, 8].map((concurrency) =>
    operatorBenchmark({
      name: `workqueue throughput, promise work, concurrency ${concurrency}`,
      input: atOnce(`${ADDS / 1000}k adds over ${KEYS / 1000}k keys`, adds),
      // Promise work runs between the adds only on the real clock (a virtual run is synchronous).
      clock: 'real',
      operator: () => (source: Observable<string>) => source.pipe(workqueue({ concurrency, work: (key: string) => Promise.resolve(sink(key)) }), map(() => undefined)),
    }),
  ),
];
