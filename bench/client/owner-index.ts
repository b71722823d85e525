// What the owner index costs a cache's updates (issue 21): OBJECTS pods, each with a controller
// owner reference, then UPDATES new versions (an annotation changed) applied to a cache writer
// with and without the owner index, eager and lazy. In process, no server: it times the cache
// alone. Reported: ms for the updates (best of ROUNDS), and the ratio with / without.
//   node --import tsx bench/client/owner-index.ts      (OBJECTS=10000 UPDATES=40000 ROUNDS=5)
import type { KubeObject } from '../../src/api/index.js';
import { CacheWriter, LABELS_INDEX, labelsIndex, NAMESPACE_INDEX, namespaceIndex, OWNER_INDEX, ownerIndex, type IndexFunc } from '../../src/client/index.js';
import { ViewCacheWriter } from '../../src/client/lazy/view-cache.js';
import { lazyObject } from '../../src/client/lazy/json-view.js';

const OBJECTS = Number(process.env['OBJECTS'] ?? 10_000);
const UPDATES = Number(process.env['UPDATES'] ?? 40_000);
const ROUNDS = Number(process.env['ROUNDS'] ?? 5);

const pod = (i: number, rv: number): string =>
  JSON.stringify({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `web-${i}`,
      namespace: 'bench',
      uid: `pod-${i}`,
      resourceVersion: String(rv),
      labels: { app: 'web', tier: 'front' },
      annotations: { revision: String(rv) },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `web-${i % 100}`, uid: `rs-${i % 100}`, controller: true, blockOwnerDeletion: true }],
    },
    spec: { containers: [{ name: 'c', image: 'busybox' }] },
  });
const listed = Array.from({ length: OBJECTS }, (_, i) => pod(i, i + 1));
const updates = Array.from({ length: UPDATES }, (_, k) => pod(k % OBJECTS, OBJECTS + k + 1));

function run(mode: 'eager' | 'lazy', owners: boolean): number {
  const indexers: Record<string, IndexFunc<KubeObject>> = { [NAMESPACE_INDEX]: namespaceIndex, [LABELS_INDEX]: labelsIndex, ...(owners ? { [OWNER_INDEX]: ownerIndex } : {}) };
  const writer = mode === 'lazy' ? new ViewCacheWriter<KubeObject>(indexers) : new CacheWriter<KubeObject>(indexers);
  const decode = (text: string): KubeObject => (mode === 'lazy' ? lazyObject(text, 0) : (JSON.parse(text) as KubeObject));
  for (const text of listed) writer.upsert(decode(text));
  const start = process.hrtime.bigint();
  // A consumer reads each updated object's version, as the informer benchmark's do.
  for (const text of updates) void writer.upsert(decode(text))?.object.metadata.resourceVersion;
  return Number(process.hrtime.bigint() - start) / 1e6;
}

for (const mode of ['eager', 'lazy'] as const) {
  let without = Infinity;
  let withOwners = Infinity;
  for (let round = 0; round < ROUNDS; round++) {
    without = Math.min(without, run(mode, false));
    withOwners = Math.min(withOwners, run(mode, true));
  }
  console.log(`${mode}: ${UPDATES} updates of ${OBJECTS} pods: ${without.toFixed(0)} ms without the owner index, ${withOwners.toFixed(0)} ms with it (${(withOwners / without).toFixed(2)}×)`);
}
