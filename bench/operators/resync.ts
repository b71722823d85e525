// resync: per-item cost of passing events through while keeping the latest per key, against a Map by hand.
import { operatorBenchmark, type Benchmark } from '../../src/bench/index.js';
import { resync } from '../../operators/index.js';
import { atOnce, sink } from './support.js';

const N = 10_000;
const items = Array.from({ length: N }, (_, i) => ({ type: 'MODIFIED', object: { metadata: { namespace: 'default', name: `pod-${i % 1000}` } } }));

export const benches: Benchmark[] = [
  operatorBenchmark({
    name: 'resync',
    input: atOnce('pass-through, 1k keys', items),
    operator: (scheduler) => resync({ period: 60_000, scheduler }),
    // Pass-through only: the clock stops at the last item, before the first resync.
    drainMs: 0,
    baseline: {
      name: 'Map by hand',
      loop: (events) => {
        const latest = new Map<string, unknown>();
        for (const item of events) {
          const meta = item.object.metadata;
          latest.set(`${meta.namespace}/${meta.name}`, item);
          sink(item);
        }
      },
    },
  }),
];
