// resync: per-item cost of passing events through while keeping the latest per key, against a Map by hand.
import { resync } from '../../operators/index.js';
import { fromArray, perItem, sink, type PerItemRow } from './support.js';

export async function run(): Promise<PerItemRow[]> {
  const N = 10_000;
  const items = Array.from({ length: N }, (_, i) => ({ type: 'MODIFIED', object: { metadata: { namespace: 'default', name: `pod-${i % 1000}` } } }));
  const resynced = fromArray(items).pipe(resync({ period: 60_000 }));
  return [
    await perItem(
      'resync',
      'pass-through, 1k keys',
      N,
      () => resynced.subscribe(sink),
      () => {
        const latest = new Map<string, unknown>();
        for (const item of items) {
          const meta = item.object.metadata;
          latest.set(`${meta.namespace}/${meta.name}`, item);
          sink(item);
        }
      },
    ),
  ];
}
