// Rolling update of a REPLICAS-replica Deployment (issue #22; maxSurge 25 %, maxUnavailable 25 %):
// wall time from the template change to the rollout complete, and the controller manager's API
// writes per replaced pod beyond the pod's own create and delete (goal ≤ 3). No node runs the
// pods: THE BENCH MAKES THEM READY itself (one pods/status write each, its own user agent, not
// counted) as they appear; unbound pods are deleted at once by the API server, so no node has to
// finish a deletion. The manager runs the replicaset and deployment loops (svc/testing: API server
// in-process on the memory store, HTTPS loopback; manager writes counted by user agent).
//   npm run bench:rolling-update            (REPLICAS=1000)
import type { Deployment, Pod } from '../../src/api/index.js';
import { builtin, Informer, type Client } from '../../src/client/index.js';
import { startTestCluster } from '../../src/testing/index.js';
import { until } from './fill.js';

const REPLICAS = Number(process.env['REPLICAS'] ?? 1_000);
const NS = 'bench';
const MANAGER = 'svc-testing/controller-manager';

const cluster = await startTestCluster({ namespaces: [NS], controllers: { controllers: ['replicaset-controller', 'deployment-controller'] } });
console.log(`node ${process.version}, ${process.platform}/${process.arch}; Deployment of ${REPLICAS} (maxSurge 25 %, maxUnavailable 25 %); replicaset + deployment loops; svc/testing cluster (memory store, HTTPS loopback, in-process); pods made Ready by the bench itself (no node runs them)\n`);

/** The kubelet's part: each pod not Ready is made Running and Ready through pods/status, 32 at a time. */
function readier(client: Client): { stop(): void; informer: Informer<Pod> } {
  const informer = new Informer<Pod>(client, builtin.pods, { namespace: NS });
  const queue: Pod[] = [];
  let inFlight = 0;
  const ready = (pod: Pod) => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
  const pump = () => {
    while (inFlight < 32 && queue.length > 0) {
      const pod = queue.shift()!;
      inFlight++;
      const at = new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
      client
        .updateStatus(builtin.pods, { ...pod, status: { ...pod.status, phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: at }] } }, { namespace: NS })
        .catch(() => undefined) // gone or changed meanwhile: its next event brings it back
        .finally(() => {
          inFlight--;
          pump();
        });
    }
  };
  const subscription = informer.events$.subscribe((event) => {
    if ((event.type === 'added' || event.type === 'updated') && !event.object.metadata.deletionTimestamp && !ready(event.object)) {
      queue.push(event.object);
      pump();
    }
  });
  return {
    informer,
    stop() {
      subscription.unsubscribe();
      informer.stop();
    },
  };
}

const node = readier(cluster.newClient({ userAgent: 'bench-kubelet' }));
const created = new Set<string>();
const deleted = new Set<string>();
node.informer.events$.subscribe((event) => {
  if (event.type === 'added') created.add(event.object.metadata.uid!);
  if (event.type === 'deleted') deleted.add(event.object.metadata.uid!);
});

const template = (image: string) => ({ metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image }] } });
const deployment: Deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: NS },
  spec: { replicas: REPLICAS, selector: { matchLabels: { app: 'web' } }, template: template('busybox:1'), strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } } },
} as Deployment;

let t0 = performance.now();
await cluster.client.create(builtin.deployments, deployment, { namespace: NS });
let d: Deployment | undefined;
const complete = async (image: string) => {
  d = await cluster.client.get(builtin.deployments, 'web', { namespace: NS });
  return (
    d.spec.template.spec.containers[0]?.image === image &&
    (d.status?.observedGeneration ?? 0) >= (d.metadata.generation ?? 0) &&
    d.status?.updatedReplicas === REPLICAS &&
    d.status.replicas === REPLICAS &&
    d.status.availableReplicas === REPLICAS
  );
};
const poll = async (check: () => Promise<boolean>) => {
  for (;;) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};
await poll(() => complete('busybox:1'));
const firstS = (performance.now() - t0) / 1000;
// Let the first rollout's last status writes land before counting.
await new Promise((resolve) => setTimeout(resolve, 2_000));

const writesBefore = cluster.writes(MANAGER);
const createdBefore = created.size;
const deletedBefore = deleted.size;
t0 = performance.now();
await cluster.client.update(builtin.deployments, { ...d!, spec: { ...d!.spec, template: template('busybox:2') } }, { namespace: NS });
await poll(() => complete('busybox:2'));
await until(() => node.informer.store.size === REPLICAS);
const rolloutS = (performance.now() - t0) / 1000;
await new Promise((resolve) => setTimeout(resolve, 2_000));
const writes = cluster.writes(MANAGER) - writesBefore;
const podCreates = created.size - createdBefore;
const podDeletes = deleted.size - deletedBefore;
node.stop();
await cluster.stop();

const beyond = writes - podCreates - podDeletes;
console.log('| replicas | first rollout 0 → N available (s) | rolling update to all new pods available (s) | pods created, deleted | manager writes | writes per replaced pod beyond its create and delete |');
console.log('| --- | --- | --- | --- | --- | --- |');
console.log(`| ${REPLICAS} | ${firstS.toFixed(1)} | ${rolloutS.toFixed(1)} | ${podCreates}, ${podDeletes} | ${writes} | ${(beyond / REPLICAS).toFixed(2)} (${beyond} writes: ReplicaSet scales and status, Deployment status, Events) |`);
