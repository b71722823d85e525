// toOwnerKey: per-item cost of mapping pods to their ReplicaSet's key, against the loop by hand.
import { toOwnerKey } from '../../operators/index.js';
import { fromArray, perItem, sink, type PerItemRow } from './support.js';

export async function run(): Promise<PerItemRow[]> {
  const N = 10_000;
  const pods = Array.from({ length: N }, (_, i) => ({
    metadata: {
      namespace: 'default',
      name: `web-${i}`,
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `web-${i % 100}`, uid: `u${i % 100}`, controller: true }],
    },
  }));
  const keyed = fromArray(pods).pipe(toOwnerKey('ReplicaSet'));
  return [
    await perItem('toOwnerKey', 'pods owned by a ReplicaSet', N, () => keyed.subscribe(sink), () => {
      for (const pod of pods) {
        for (const ref of pod.metadata.ownerReferences) {
          if (ref.controller && ref.kind === 'ReplicaSet') {
            sink(`${pod.metadata.namespace}/${ref.name}`);
            break;
          }
        }
      }
    }),
  ];
}
