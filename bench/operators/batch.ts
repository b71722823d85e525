// batch: per-item cost of collecting items into batches of 100, against pushing into an array by
// hand; and ten virtual minutes of 100 items/s in 1-second windows, on the virtual clock.
import { operatorBenchmark, syntheticEvents, type Benchmark, type WatchEvent } from '../../src/bench/index.js';
import { batch } from '../../operators/index.js';
import { atOnce, sink } from './support.js';

const N = 10_000;
const keyOf = (event: WatchEvent) => `${event.object.metadata.namespace}/${event.object.metadata.name}`;

export const benches: Benchmark[] = [
  operatorBenchmark({
    name: 'batch',
    input: atOnce('max 100', Array.from({ length: N }, (_, i) => i)),
    operator: (scheduler) => batch<number>({ period: 1000, max: 100, scheduler }),
    baseline: {
      name: 'array by hand',
      loop: (items) => {
        let open: number[] = [];
        for (const item of items) {
          open.push(item);
          if (open.length >= 100) {
            sink(open);
            open = [];
          }
        }
        if (open.length > 0) sink(open);
      },
    },
  }),
  operatorBenchmark({
    name: 'batch 1 s / 100, 10 virtual minutes',
    input: syntheticEvents({ keys: 1_000, events: 60_000, ratePerSecond: 100 }),
    operator: (scheduler) => batch<WatchEvent>({ period: 1_000, max: 100, scheduler }),
    keyOf,
    outputKeys: (events) => events.map(keyOf),
  }),
];
