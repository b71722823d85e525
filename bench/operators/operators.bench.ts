// The project's operator benches on svc/bench (docs/benchmarking.md): each operator against the
// hand-written loop doing the same, with the harness's repeat runs and spread; the ones with
// timers (rateLimit, batch) also over ten virtual minutes.
// `npm run bench:operators` runs them (bench/operators/run.ts); alone:
//   node --import tsx src/cli/svc.ts bench bench/operators/operators.bench.ts [--json | --compare base.json]
import { defineBenchmarks, operatorBenchmark, type BenchInput } from '../../src/bench/index.js';
import { annotationsChanged, generationChanged, labelsChanged, resourceVersionChanged, toKey, toOwnerKey, type ObjectLike } from '../../operators/index.js';
import { benches as batch } from './batch.js';
import { predicateBench, sameMap } from './changed.js';
import { benches as concurrency } from './concurrency.js';
import { benches as leaderElection } from './leaderElection.js';
import { benches as mergeByKey } from './mergeByKey.js';
import { benches as rateLimit } from './rateLimit.js';
import { benches as resync } from './resync.js';
import { benches as workqueue } from './workqueue.js';

const N = 10_000;
let sunk = 0;
const sink = (_value: unknown): void => void sunk++;

const watchEvents: BenchInput<{ type: string; object: ObjectLike }> = {
  name: `${N} watch events`,
  items: Array.from({ length: N }, (_, i) => ({ at: 0, value: { type: 'MODIFIED', object: { metadata: { namespace: 'default', name: `pod-${i}` } } } })),
};

const ownedPods: BenchInput<ObjectLike> = {
  name: `${N} pods owned by a ReplicaSet`,
  items: Array.from({ length: N }, (_, i) => ({
    at: 0,
    value: { metadata: { namespace: 'default', name: `web-${i}`, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `web-${i % 100}`, uid: `u${i % 100}`, controller: true }] } },
  })),
};

export default defineBenchmarks([
  operatorBenchmark({
    name: 'toKey',
    operator: () => toKey(),
    input: watchEvents,
    baseline: {
      name: 'key by hand',
      loop: (events) => {
        for (const event of events) {
          const meta = event.object.metadata!;
          sink(meta.namespace ? `${meta.namespace}/${meta.name}` : meta.name);
        }
      },
    },
  }),
  operatorBenchmark({
    name: 'toOwnerKey',
    operator: () => toOwnerKey('ReplicaSet'),
    input: ownedPods,
    baseline: {
      name: 'owner key by hand',
      loop: (pods) => {
        for (const pod of pods) {
          for (const ref of pod.metadata?.ownerReferences ?? []) {
            if (ref.controller && ref.kind === 'ReplicaSet') {
              sink(`${pod.metadata!.namespace}/${ref.name}`);
              break;
            }
          }
        }
      },
    },
  }),
  predicateBench(
    'generationChanged',
    generationChanged,
    (i, changed) => [{ metadata: { name: `p${i}`, generation: 1 } }, { metadata: { name: `p${i}`, generation: changed ? 2 : 1 } }],
    (e) => e.old?.metadata?.generation !== e.object.metadata?.generation,
  ),
  predicateBench(
    'labelsChanged',
    labelsChanged,
    (i, changed) => [
      { metadata: { name: `p${i}`, labels: { app: 'web', tier: 'front' } } },
      { metadata: { name: `p${i}`, labels: { app: changed ? 'api' : 'web', tier: 'front' } } },
    ],
    (e) => !sameMap(e.old?.metadata?.labels, e.object.metadata?.labels),
  ),
  predicateBench(
    'annotationsChanged',
    annotationsChanged,
    (i, changed) => [
      { metadata: { name: `p${i}`, annotations: { app: 'web', tier: 'front' } } },
      { metadata: { name: `p${i}`, annotations: { app: changed ? 'api' : 'web', tier: 'front' } } },
    ],
    (e) => !sameMap(e.old?.metadata?.annotations, e.object.metadata?.annotations),
  ),
  predicateBench(
    'resourceVersionChanged',
    resourceVersionChanged,
    (i, changed) => [{ metadata: { name: `p${i}`, resourceVersion: '7' } }, { metadata: { name: `p${i}`, resourceVersion: changed ? '8' : '7' } }],
    (e) => e.old?.metadata?.resourceVersion !== e.object.metadata?.resourceVersion,
  ),
  ...workqueue,
  ...rateLimit,
  ...batch,
  ...concurrency,
  ...resync,
  ...leaderElection,
  ...mergeByKey,
]);
