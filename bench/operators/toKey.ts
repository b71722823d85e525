// toKey: per-item cost of keying watch events, against building the key by hand.
import { toKey } from '../../operators/index.js';
import { fromArray, perItem, sink, type PerItemRow } from './support.js';

export async function run(): Promise<PerItemRow[]> {
  const N = 10_000;
  const events = Array.from({ length: N }, (_, i) => ({ type: 'MODIFIED', object: { metadata: { namespace: 'default', name: `pod-${i}` } } }));
  const keyed = fromArray(events).pipe(toKey());
  return [
    await perItem('toKey', 'watch events', N, () => keyed.subscribe(sink), () => {
      for (const event of events) {
        const meta = event.object.metadata;
        sink(meta.namespace ? `${meta.namespace}/${meta.name}` : meta.name);
      }
    }),
  ];
}
