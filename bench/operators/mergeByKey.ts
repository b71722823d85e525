// mergeByKey: per-set cost of following a changing set of 100 members (each set swaps 10 of them),
// against keeping the map of subscriptions by hand.
import { NEVER, type Subscription } from 'rxjs';
import { mergeByKey } from '../../operators/index.js';
import { fromArray, perItem, sink, type PerItemRow } from './support.js';

export async function run(): Promise<PerItemRow[]> {
  const N = 1_000;
  const sets = Array.from({ length: N }, (_, i) => Array.from({ length: 100 }, (_, j) => `type-${j < 90 ? j : j + (i % 10) * 10}`));
  const followed = fromArray(sets).pipe(mergeByKey((m) => m, () => NEVER));
  return [
    await perItem('mergeByKey', 'sets of 100 members, 10 changed each', N, () => followed.subscribe(sink).unsubscribe(), () => {
      const running = new Map<string, Subscription>();
      for (const set of sets) {
        const now = new Set(set);
        for (const [k, s] of running) if (!now.has(k)) (s.unsubscribe(), running.delete(k));
        for (const k of now) if (!running.has(k)) running.set(k, NEVER.subscribe(sink));
      }
      for (const s of running.values()) s.unsubscribe();
    }),
  ];
}
