// The workload loops replayed over the corpora svc ships (bench/corpora/README.md), on svc/bench's
// controller replay (docs/benchmarking.md#replaying-a-corpus-through-a-controller): the recorded
// watch events feed the loop's informers, an in-process API server answers its writes.
//   npm run bench:replay                        (svc bench bench/controllers/replay.bench.ts)
//   npm run bench:replay -- --json > base.json; …; npm run bench:replay -- --compare base.json
//   npm run bench:replay -- --filter '5,000'    (the 5,000-pod churn rows alone: minutes a run)
import { fileURLToPath } from 'node:url';
import { controllerBenchmark, defineBenchmarks, readCorpus } from '../../src/bench/index.js';
import {
  cronJobController,
  daemonSetController,
  deploymentController,
  jobController,
  replicaSetController,
  replicationControllerController,
  statefulSetController,
} from '../../controllers/index.js';

const corpus = (file: string) => readCorpus(fileURLToPath(new URL(`../corpora/${file}`, import.meta.url)));
const rollout = corpus('deployment-rollout.ndjson');
const teardown = corpus('namespace-teardown.ndjson');
// A StatefulSet, a ReplicationController, a DaemonSet on two nodes, a Job and a CronJob's firing.
const workloads = corpus('workloads.ndjson.gz');
const nodeGone = corpus('node-going-away.ndjson.gz');
// 1,000 pods made and deleted by two Deployments scaled to 500 and back, on svc up.
const churn = corpus('pod-churn-1000.ndjson.gz');
// 5,000 pods made, run and deleted by five Deployments scaled to 1,000 and back, on svc up's hollow
// nodes (simulated containers): 105 MB of NDJSON, so read in the runs that replay it, not here.
const churn5k = () => corpus('pod-churn-5000.ndjson.br');

export default defineBenchmarks([
  controllerBenchmark({ name: 'replicaset over a rollout', loop: (ctx, now) => replicaSetController(ctx, { now }), corpus: rollout, corpusName: 'deployment-rollout' }),
  controllerBenchmark({ name: 'replicaset over a rollout, flooded', loop: (ctx, now) => replicaSetController(ctx, { now }), corpus: rollout, corpusName: 'deployment-rollout', pace: 'flood' }),
  controllerBenchmark({ name: 'replicaset over a rollout, recorded clock ×10', loop: (ctx, now) => replicaSetController(ctx, { now }), corpus: rollout, corpusName: 'deployment-rollout', pace: { speed: 10 } }),
  controllerBenchmark({ name: 'deployment over a rollout', loop: (ctx, now) => deploymentController(ctx, { now }), corpus: rollout, corpusName: 'deployment-rollout' }),
  controllerBenchmark({ name: 'replicaset over a namespace teardown', loop: (ctx, now) => replicaSetController(ctx, { now }), corpus: teardown, corpusName: 'namespace-teardown' }),
  controllerBenchmark({ name: 'replicaset over a node going away', loop: (ctx, now) => replicaSetController(ctx, { now }), corpus: nodeGone, corpusName: 'node-going-away' }),
  controllerBenchmark({ name: 'replicaset over a pod churn', loop: (ctx, now) => replicaSetController(ctx, { now }), corpus: churn, corpusName: 'pod-churn-1000' }),
  controllerBenchmark({ name: 'deployment over a pod churn', loop: (ctx, now) => deploymentController(ctx, { now }), corpus: churn, corpusName: 'pod-churn-1000' }),
  controllerBenchmark({ name: 'replicaset over 5,000 pods churning', loop: (ctx, now) => replicaSetController(ctx, { now }), corpus: churn5k, corpusName: 'pod-churn-5000' }),
  controllerBenchmark({ name: 'deployment over 5,000 pods churning', loop: (ctx, now) => deploymentController(ctx, { now }), corpus: churn5k, corpusName: 'pod-churn-5000' }),
  controllerBenchmark({ name: 'statefulset over the workloads', loop: (ctx, now) => statefulSetController(ctx, { concurrency: 5, now }), corpus: workloads, corpusName: 'workloads' }),
  controllerBenchmark({ name: 'replicationcontroller over the workloads', loop: (ctx, now) => replicationControllerController(ctx, { now }), corpus: workloads, corpusName: 'workloads' }),
  controllerBenchmark({ name: 'daemonset over the workloads', loop: (ctx, now) => daemonSetController(ctx, { concurrency: 5, now }), corpus: workloads, corpusName: 'workloads' }),
  // The Job and CronJob loops read the clock through their scheduler (the real one here), not `now`.
  controllerBenchmark({ name: 'job over the workloads', loop: (ctx) => jobController(ctx, { concurrency: 5 }), corpus: workloads, corpusName: 'workloads' }),
  controllerBenchmark({ name: 'cronjob over the workloads', loop: (ctx) => cronJobController(ctx, { concurrency: 5 }), corpus: workloads, corpusName: 'workloads' }),
]);
