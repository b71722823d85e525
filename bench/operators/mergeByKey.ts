// mergeByKey: per-set cost of following a changing set of 100 members (each set swaps 10 of them),
// against keeping the map of subscriptions by hand.
import { NEVER, type Subscription } from 'rxjs';
import { operatorBenchmark, type Benchmark } from '../../src/bench/index.js';
import { mergeByKey } from '../../operators/index.js';
import { atOnce, sink } from './support.js';

const N = 1_000;
const sets = Array.from({ length: N }, (_, i) => Array.from({ length: 100 }, (_, j) => `type-${j < 90 ? j : j + (i % 10) * 10}`));

export const benches: Benchmark[] = [
  operatorBenchmark({
    name: 'mergeByKey',
    input: atOnce('sets of 100 members, 10 changed each', sets),
    // The run's end unsubscribes, as the old bench did after each pass.
    operator: () => mergeByKey((member: string) => member, () => NEVER),
    baseline: {
      name: 'Map of subscriptions by hand',
      loop: (all) => {
        const running = new Map<string, Subscription>();
        for (const set of all) {
          const now = new Set(set);
          for (const [k, s] of running) if (!now.has(k)) (s.unsubscribe(), running.delete(k));
          for (const k of now) if (!running.has(k)) running.set(k, NEVER.subscribe(sink));
        }
        for (const s of running.values()) s.unsubscribe();
      },
    },
  }),
];
