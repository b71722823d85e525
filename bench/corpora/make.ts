// Makes the corpora svc ships (bench/corpora/README.md): a test-kit cluster running the
// controller manager's workload and namespace loops is driven through a Deployment rollout and a
// namespace teardown while `svc record` (its own code, in this process) records the watches.
// There is no node and no scheduler: this script plays their part the loops wait for, binding each
// new pod (to the node a DaemonSet's pod names, else the first) and marking it Running and Ready (a
// Job's pod then Succeeded).
//
//   node --import tsx bench/corpora/make.ts [outDir]   (default bench/corpora)
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { targetNodeOf } from '../../controllers/index.js';
import type { Deployment, Node, Pod } from '../../src/api/index.js';
import { builtin, Informer, writeSvcconfig } from '../../src/client/index.js';
import { record } from '../../src/cli/record-command.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';

const outDir = resolve(process.argv[2] ?? 'bench/corpora');
const NAMESPACE = 'shop';
const RESOURCES = ['--resource', 'deployments.apps', '--resource', 'replicasets.apps', '--resource', 'pods'];
const WORKLOAD_RESOURCES = ['pods', 'nodes', 'jobs.batch', 'cronjobs.batch', 'daemonsets.apps', 'statefulsets.apps', 'controllerrevisions.apps', 'replicationcontrollers'].flatMap((r) => ['--resource', r]);

/** Records the namespace's watches while `drive` runs; resolves when the recording has ended. */
async function recording(svcconfig: string, out: string, seconds: number, drive: () => Promise<void>, resources: readonly string[] = RESOURCES, namespace = NAMESPACE): Promise<void> {
  let started!: () => void;
  const ready = new Promise<void>((r) => (started = r));
  const done = record([...resources, '--svcconfig', svcconfig, '--namespace', namespace, '--duration', `${seconds}s`, '--out', out], {
    out: (line) => console.log(line),
    err: (line) => (line.includes('recording') ? started() : console.error(line)),
  });
  await ready;
  const t0 = performance.now();
  await drive();
  console.error(`${out}: driven in ${Math.round(performance.now() - t0)} ms; the recording runs ${seconds} s`);
  if ((await done) !== 0) throw new Error(`svc record failed for ${out}`);
}

/**
 * Plays the scheduler's and the kubelet's parts: each pod of `namespace` not yet bound is bound (a
 * DaemonSet's pod to the node it names, any other to the first node), then marked Running and
 * Ready; a Job's pod is marked Succeeded after that.
 */
function kubelet(cluster: TestCluster, namespace: string, nodes: readonly string[] = []): () => void {
  const pods = new Informer<Pod>(cluster.client, builtin.pods, { namespace });
  const marked = new Set<string>();
  const now = () => new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  const subscription = pods.events$.subscribe((event) => {
    const pod = event.object;
    const uid = pod.metadata.uid!;
    const name = pod.metadata.name!;
    if (event.type === 'deleted' || pod.metadata.deletionTimestamp !== undefined) return;
    if (!pod.spec.nodeName && nodes.length > 0) {
      if (marked.has(`bind:${uid}`)) return;
      marked.add(`bind:${uid}`);
      void cluster.client.bind(name, targetNodeOf(pod) ?? nodes[0]!, { namespace }).catch(() => marked.delete(`bind:${uid}`));
      return;
    }
    const ofJob = pod.metadata.ownerReferences?.some((ref) => ref.kind === 'Job') ?? false;
    if (!marked.has(uid)) {
      marked.add(uid);
      const at = now();
      void cluster.client
        .patchStatus(builtin.pods, name, { status: { phase: 'Running', startTime: at, conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: at }] } }, { namespace })
        .catch(() => marked.delete(uid)); // deleted meanwhile: nothing to mark
    } else if (ofJob && pod.status?.phase === 'Running' && !marked.has(`done:${uid}`)) {
      marked.add(`done:${uid}`);
      const at = now();
      void cluster.client
        .patchStatus(builtin.pods, name, { status: { phase: 'Succeeded', conditions: [{ type: 'Ready', status: 'False', lastTransitionTime: at }] } }, { namespace })
        .catch(() => marked.delete(`done:${uid}`));
    }
  });
  return () => {
    subscription.unsubscribe();
    pods.stop();
  };
}

const readyNode = (name: string): Node => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels: { 'kubernetes.io/hostname': name } },
  spec: {},
});

async function gzip(file: string): Promise<void> {
  await pipeline(createReadStream(file), createGzip({ level: 9 }), createWriteStream(`${file}.gz`));
  rmSync(file);
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const rolledOut = async (cluster: TestCluster, replicas: number): Promise<boolean> => {
  const d = await cluster.client.get(builtin.deployments, 'web', { namespace: NAMESPACE });
  const s = d.status;
  return s?.observedGeneration === d.metadata.generation && s?.updatedReplicas === replicas && s?.replicas === replicas && s?.availableReplicas === replicas;
};

const deployment = (replicas: number, image: string): Deployment => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: NAMESPACE },
  spec: {
    replicas,
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image }] } },
  },
});

const cluster = await startTestCluster({
  // The test kit makes each namespace with its default ServiceAccount (pods need one).
  namespaces: [NAMESPACE, 'batch'],
  controllers: {
    controllers: [
      'deployment-controller',
      'replicaset-controller',
      'namespace-controller',
      'garbage-collector-controller',
      'job-controller',
      'cronjob-controller',
      'daemonset-controller',
      'statefulset-controller',
      'replicationcontroller-controller',
    ],
  },
});
const dir = mkdtempSync(join(tmpdir(), 'svc-corpora-'));
const svcconfig = join(dir, 'admin.svcconfig');
const stopKubelet = kubelet(cluster, NAMESPACE);
let stopWorkloadKubelet = (): void => {};
try {
  await writeSvcconfig(svcconfig, { name: 'corpora', server: cluster.url, caData: cluster.caPem, token: cluster.token });

  // CORPORA=workloads (a comma list of the corpora's names) makes only those.
  const only = process.env['CORPORA'] ?? 'deployment-rollout,namespace-teardown,workloads';
  if (only.includes('deployment-rollout') || only.includes('namespace-teardown')) {
    const rollout = join(outDir, 'deployment-rollout.ndjson');
    await recording(svcconfig, rollout, 15, async () => {
      await cluster.client.create(builtin.deployments, deployment(5, 'registry.local/web:1'));
      await until('the first rollout', () => rolledOut(cluster, 5));
      const d = await cluster.client.get(builtin.deployments, 'web', { namespace: NAMESPACE });
      await cluster.client.update(builtin.deployments, { ...d, spec: { ...d.spec, template: { ...d.spec.template, spec: { containers: [{ name: 'web', image: 'registry.local/web:2' }] } } } });
      await until('the image rollout', () => rolledOut(cluster, 5));
    });

    const teardown = join(outDir, 'namespace-teardown.ndjson');
    await recording(svcconfig, teardown, 10, async () => {
      await cluster.client.delete(builtin.namespaces, NAMESPACE);
      await until('the namespace to go', async () => (await cluster.client.list(builtin.namespaces)).items.every((n) => n.metadata.name !== NAMESPACE));
    });
    for (const file of [rollout, teardown]) console.log(`${file}: ${statSync(file).size} bytes`);
  }

  if (only.includes('workloads')) {
  // Every other workload kind in one recording: a StatefulSet, a ReplicationController and a
  // DaemonSet reach Ready on two nodes, a Job runs its three completions two at a time, and a
  // CronJob fires once at the next minute (the recording lasts past it).
  const WORKLOADS = 'batch';
  const nodes = ['node-a', 'node-b'];
  for (const name of nodes) {
    await cluster.client.create(builtin.nodes, readyNode(name));
    const at = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    await cluster.client.patchStatus(builtin.nodes, name, { status: { conditions: [{ type: 'Ready', status: 'True', lastHeartbeatTime: at, lastTransitionTime: at }], allocatable: { cpu: '8', memory: '16Gi', pods: '110' } } });
  }
  stopWorkloadKubelet = kubelet(cluster, WORKLOADS, nodes);
  const template = (app: string) => ({ metadata: { labels: { app } }, spec: { containers: [{ name: app, image: `registry.local/${app}:1` }] } });
  const workloads = join(outDir, 'workloads.ndjson');
  const secondsToNextMinute = 60 - new Date().getSeconds();
  await recording(
    svcconfig,
    workloads,
    secondsToNextMinute + 20,
    async () => {
      const ns = { namespace: WORKLOADS };
      await cluster.client.create(builtin.statefulSets, { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'db', ...ns }, spec: { replicas: 3, serviceName: 'db', selector: { matchLabels: { app: 'db' } }, template: template('db') } });
      await cluster.client.create(builtin.replicationControllers, { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'legacy', ...ns }, spec: { replicas: 3, selector: { app: 'legacy' }, template: template('legacy') } });
      await cluster.client.create(builtin.daemonSets, { apiVersion: 'apps/v1', kind: 'DaemonSet', metadata: { name: 'agent', ...ns }, spec: { selector: { matchLabels: { app: 'agent' } }, template: template('agent') } });
      await cluster.client.create(builtin.jobs, { apiVersion: 'batch/v1', kind: 'Job', metadata: { name: 'pi', ...ns }, spec: { completions: 3, parallelism: 2, template: { ...template('pi'), spec: { ...template('pi').spec, restartPolicy: 'Never' } } } });
      await cluster.client.create(builtin.cronJobs, { apiVersion: 'batch/v1', kind: 'CronJob', metadata: { name: 'tick', ...ns }, spec: { schedule: '* * * * *', jobTemplate: { spec: { template: { ...template('tick'), spec: { ...template('tick').spec, restartPolicy: 'Never' } } } } } });
      await until(
        'the workloads to settle',
        async () => {
          const [sts, rc, ds, job] = await Promise.all([
            cluster.client.get(builtin.statefulSets, 'db', ns),
            cluster.client.get(builtin.replicationControllers, 'legacy', ns),
            cluster.client.get(builtin.daemonSets, 'agent', ns),
            cluster.client.get(builtin.jobs, 'pi', ns),
          ]);
          console.error(`statefulset ready ${sts.status?.readyReplicas}, rc ready ${rc.status?.readyReplicas}, daemonset ready ${ds.status?.numberReady}, job succeeded ${job.status?.succeeded}`);
          return sts.status?.readyReplicas === 3 && rc.status?.readyReplicas === 3 && ds.status?.numberReady === 2 && job.status?.succeeded === 3;
        },
        60_000,
      );
    },
    WORKLOAD_RESOURCES,
    WORKLOADS,
  );
  await gzip(workloads);
  console.log(`${workloads}.gz: ${statSync(`${workloads}.gz`).size} bytes`);
  }
} finally {
  stopWorkloadKubelet();
  stopKubelet();
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
}
