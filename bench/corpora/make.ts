// Makes the corpora svc ships (bench/corpora/README.md): a test-kit cluster running the
// controller manager's workload and namespace loops is driven through a Deployment rollout and a
// namespace teardown while `svc record` (its own code, in this process) records the watches.
// There is no node: this script plays the kubelet's one part the loops wait for, marking each
// new pod Running and Ready.
//
//   node --import tsx bench/corpora/make.ts [outDir]   (default bench/corpora)
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Deployment, Pod } from '../../src/api/index.js';
import { builtin, Informer, writeSvcconfig } from '../../src/client/index.js';
import { record } from '../../src/cli/record-command.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';

const outDir = resolve(process.argv[2] ?? 'bench/corpora');
const NAMESPACE = 'shop';
const RESOURCES = ['--resource', 'deployments.apps', '--resource', 'replicasets.apps', '--resource', 'pods'];

/** Records the namespace's watches while `drive` runs; resolves when the recording has ended. */
async function recording(svcconfig: string, out: string, seconds: number, drive: () => Promise<void>): Promise<void> {
  let started!: () => void;
  const ready = new Promise<void>((r) => (started = r));
  const done = record([...RESOURCES, '--svcconfig', svcconfig, '--namespace', NAMESPACE, '--duration', `${seconds}s`, '--out', out], {
    out: (line) => console.log(line),
    err: (line) => (line.includes('recording') ? started() : console.error(line)),
  });
  await ready;
  const t0 = performance.now();
  await drive();
  console.error(`${out}: driven in ${Math.round(performance.now() - t0)} ms; the recording runs ${seconds} s`);
  if ((await done) !== 0) throw new Error(`svc record failed for ${out}`);
}

/** Plays the kubelet's readiness: each pod of the namespace not yet Ready is marked Running and Ready. */
function kubelet(cluster: TestCluster): () => void {
  const pods = new Informer<Pod>(cluster.client, builtin.pods, { namespace: NAMESPACE });
  const marked = new Set<string>();
  const subscription = pods.events$.subscribe((event) => {
    const pod = event.object;
    const uid = pod.metadata.uid!;
    if (event.type === 'deleted' || marked.has(uid) || pod.metadata.deletionTimestamp !== undefined) return;
    marked.add(uid);
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    void cluster.client
      .patchStatus(builtin.pods, pod.metadata.name!, { status: { phase: 'Running', startTime: now, conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: now }] } }, { namespace: NAMESPACE })
      .catch(() => marked.delete(uid)); // deleted meanwhile: nothing to mark
  });
  return () => {
    subscription.unsubscribe();
    pods.stop();
  };
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
  namespaces: [NAMESPACE],
  controllers: { controllers: ['deployment-controller', 'replicaset-controller', 'namespace-controller', 'garbage-collector-controller'] },
});
const dir = mkdtempSync(join(tmpdir(), 'svc-corpora-'));
const svcconfig = join(dir, 'admin.svcconfig');
const stopKubelet = kubelet(cluster);
try {
  await writeSvcconfig(svcconfig, { name: 'corpora', server: cluster.url, caData: cluster.caPem, token: cluster.token });

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
} finally {
  stopKubelet();
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
}
