// The workload loops replayed over the corpora svc ships (bench/corpora/README.md), on svc/bench's
// controller replay (docs/benchmarking.md#replaying-a-corpus-through-a-controller): the recorded
// watch events feed the loop's informers, an in-process API server answers its writes.
//   npm run bench:replay                        (svc bench bench/controllers/replay.bench.ts)
//   npm run bench:replay -- --json > base.json; …; npm run bench:replay -- --compare base.json
import { readFileSync } from 'node:fs';
import { controllerBenchmark, defineBenchmarks } from '../../src/bench/index.js';
import { deploymentController, replicaSetController } from '../../controllers/index.js';

const corpus = (name: string) => readFileSync(new URL(`../corpora/${name}.ndjson`, import.meta.url), 'utf8');
const rollout = corpus('deployment-rollout');
const teardown = corpus('namespace-teardown');

export default defineBenchmarks([
  controllerBenchmark({ name: 'replicaset over a rollout', loop: (ctx, now) => replicaSetController(ctx, { now }), corpus: rollout, corpusName: 'deployment-rollout' }),
  controllerBenchmark({ name: 'replicaset over a rollout, flooded', loop: (ctx, now) => replicaSetController(ctx, { now }), corpus: rollout, corpusName: 'deployment-rollout', pace: 'flood' }),
  controllerBenchmark({ name: 'replicaset over a rollout, recorded clock ×10', loop: (ctx, now) => replicaSetController(ctx, { now }), corpus: rollout, corpusName: 'deployment-rollout', pace: { speed: 10 } }),
  controllerBenchmark({ name: 'deployment over a rollout', loop: (ctx, now) => deploymentController(ctx, { now }), corpus: rollout, corpusName: 'deployment-rollout' }),
  controllerBenchmark({ name: 'replicaset over a namespace teardown', loop: (ctx, now) => replicaSetController(ctx, { now }), corpus: teardown, corpusName: 'namespace-teardown' }),
]);
