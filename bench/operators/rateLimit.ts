// rateLimit: per-item cost of passing items through a token bucket that always has a token (the
// common case: the limit is not reached), against the same bucket arithmetic inline; and ten
// virtual minutes of 100 items/s offered to a limit of 50/s, every timer on the virtual clock.
import { operatorBenchmark, syntheticEvents, type Benchmark } from '../../src/bench/index.js';
import { rateLimit } from '../../operators/index.js';
import { atOnce, sink } from './support.js';

const N = 10_000;

export const benches: Benchmark[] = [
  operatorBenchmark({
    name: 'rateLimit',
    input: atOnce('token available (qps 1e12)', Array.from({ length: N }, (_, i) => i)),
    operator: (scheduler) => rateLimit<number>({ qps: 1e12, burst: 1e9, scheduler }),
    baseline: {
      name: 'bucket by hand',
      loop: (items) => {
        const interval = 1000 / 1e12;
        const tolerance = (1e9 - 1) * interval;
        let fullAt = -Infinity;
        for (const item of items) {
          const now = Date.now();
          const full = fullAt > now ? fullAt : now;
          const at = full - tolerance;
          fullAt = full + interval;
          if (at <= now) sink(item);
        }
      },
    },
  }),
  operatorBenchmark({
    name: 'rateLimit 50/s, 10 virtual minutes',
    input: syntheticEvents({ keys: 1_000, events: 60_000, ratePerSecond: 100 }),
    operator: (scheduler) => rateLimit({ qps: 50, burst: 10, scheduler }),
    // 60,000 items at 50/s leave the limit 20 minutes after the first.
    drainMs: 30 * 60_000,
  }),
];
