// The controller manager filling one namespace with pods, without nodes: an API server (sqlite)
// and the controller manager (every default loop), started by bench/scale/control-plane.ts (its
// scheduler runs too, but the pods name another `schedulerName`, so it leaves them alone);
// Deployments of REPLICAS (100) pods in one namespace, as the density bench makes them, scaled up
// at CREATE_RATE pods/s (500) until PODS (30,000) are asked. The question it answers (issue #26):
// does the manager's creation rate, or its CPU per created pod, grow worse with the pod count?
//
// RUNNING=1 plays the nodes' part in the density run: each pod seen created gets one status patch
// (phase Running, Ready and ContainersReady True, as a node agent writes when its container
// starts), by up to 32 writes in flight, so the ReplicaSets' and Deployments' status follow the
// pods as they do with nodes. Otherwise the pods stay Pending and nothing but the manager writes.
// NODES=<n> (with RUNNING=1) adds n Node objects without agents: Ready, their Leases renewed by
// the bench every 10 s (the node lifecycle loop keeps them healthy), each pod bound to one of them
// (the binding subresource, round robin) before its status patch, as the scheduler would. The
// Leases go where the node lifecycle loop reads them (NODE_LEASE_NAMESPACE): anywhere else the
// Nodes go NotReady after 40 s and their pods are evicted 300 s later, which spoils the counts.
//
// Per BUCKET (10,000) pods created: the seconds the bucket took, its creation rate, the manager's
// and the API server's CPU ms per created pod (from /proc: CPU per pod does not depend on the
// machine's load the way a rate does), the server's mean time per pod create, and the API requests
// per pod by verb and resource. The load average is printed beside every bucket.
//
// Knobs: PODS, BUCKET, REPLICAS, CREATE_RATE, CM_QPS/CM_BURST (500/1000 as density),
// TIMEOUT_S (1800), MANAGER_ARGS (more manager flags, e.g. `--concurrent-replicaset-syncs=20`),
// MANAGER_CPU_PROF=<dir> (the manager's --cpu-prof profile, written when it stops; cut it by time
// with bench/support/profile-window.ts), MANAGER_TREE=<dir> (the manager from another tree's sources:
// an A/B of the manager on the same settings), MANAGER_SNAPSHOT_DIR=<dir> (a heap snapshot of the
// manager at the end, every pod in its caches), DAEMON_LOGS=1.
// `NODE_OPTIONS=--max-old-space-size=12288 PODS=100000 npm run bench:manager-fill`.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { microTime } from '../../src/api/index.js';
import { builtin, Client, Informer, loadSvcconfig } from '../../src/client/index.js';
import { NODE_LEASE_NAMESPACE } from '../../controllers/index.js';
import { cpuTicks, MS_PER_TICK, residentMb } from '../support/proc.js';
import { log, snapshotManager, startControlPlane } from './control-plane.js';
import { createDeployments, createLoadNamespace, deploymentCount, paceScaleSteps } from './deployment-load.js';
import { perPod, requestCounts, type RequestCounts } from './request-counts.js';

const TOTAL = Number(process.env['PODS'] ?? 30_000);
const BUCKET = Number(process.env['BUCKET'] ?? 10_000);
const REPLICAS = Number(process.env['REPLICAS'] ?? 100);
const CREATE_RATE = Number(process.env['CREATE_RATE'] ?? 500);
const TIMEOUT_MS = Number(process.env['TIMEOUT_S'] ?? 1800) * 1000;
const RUNNING = process.env['RUNNING'] === '1';
const NODES = Number(process.env['NODES'] ?? 0);
const NAMESPACE = 'fill';
const settings = { managerQps: process.env['CM_QPS'] ?? '500', managerBurst: process.env['CM_BURST'] ?? '1000', schedulerQps: '1000', schedulerBurst: '2000' };

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-manager-fill-'));
const load = () => loadavg().map((n) => n.toFixed(2)).join(' ');
process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

const plane = await startControlPlane({ dir, ...settings });
const client = await Client.fromSvcconfig(plane.svcconfig, { userAgent: 'bench-manager-fill' });
const target = await loadSvcconfig(plane.svcconfig);
const metricsAgent = new Agent({ connect: { ca: target.caData, timeout: 60_000 } });

log(`load average at start: ${load()}`);
await createLoadNamespace(client, NAMESPACE);

// Nodes without agents: created Ready, their Leases renewed from here.
const nodeName = (i: number) => `fill-node-${i}`;
const renewLeases = async (create: boolean): Promise<void> => {
  for (let i = 0; i < NODES; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, NODES - i) }, (_, j) => {
        const name = nodeName(i + j);
        const spec = { holderIdentity: name, leaseDurationSeconds: 40, renewTime: microTime() };
        return create
          ? client.create(builtin.leases, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace: NODE_LEASE_NAMESPACE }, spec }, { namespace: NODE_LEASE_NAMESPACE })
          : client.patch(builtin.leases, name, { spec }, { namespace: NODE_LEASE_NAMESPACE, type: 'merge' });
      }),
    );
  }
};
let leaseTimer: NodeJS.Timeout | undefined;
// One pass at a time: under load a pass of many renewals can outlast the period.
let renewing = false;
if (NODES > 0) {
  await client.create(builtin.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NODE_LEASE_NAMESPACE } }).catch(() => undefined);
  for (let i = 0; i < NODES; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, NODES - i) }, async (_, j) => {
        const name = nodeName(i + j);
        await client.create(builtin.nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name } }, spec: {} });
        const at = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
        await client.patchStatus(
          builtin.nodes,
          name,
          { status: { conditions: [{ type: 'Ready', status: 'True', reason: 'KubeletReady', lastHeartbeatTime: at, lastTransitionTime: at }], allocatable: { cpu: '1000', memory: '10000Gi', pods: '1000' }, capacity: { cpu: '1000', memory: '10000Gi', pods: '1000' } } },
          { type: 'merge' },
        );
      }),
    );
  }
  await renewLeases(true);
  leaseTimer = setInterval(() => {
    if (renewing) return;
    renewing = true;
    renewLeases(false)
      .catch((error: unknown) => log(`lease renewal: ${(error as Error).message}`))
      .finally(() => (renewing = false));
  }, 10_000);
  log(`${NODES} Nodes created Ready, their Leases renewed every 10 s`);
}

let created = 0;
let running = 0;
let bound = 0;
const toRun: string[] = [];
let inFlight = 0;
const runNext = (): void => {
  while (inFlight < 32 && toRun.length > 0) {
    const name = toRun.pop()!;
    inFlight += 1;
    const at = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const ready = (type: string) => ({ type, status: 'True', lastTransitionTime: at });
    const node = NODES > 0 ? nodeName(bound++ % NODES) : undefined;
    (node === undefined ? Promise.resolve() : client.bind(name, node, { namespace: NAMESPACE }))
      .then(() =>
        client.patchStatus(builtin.pods, name, { status: { phase: 'Running', startTime: at, conditions: [ready('Initialized'), ready('Ready'), ready('ContainersReady'), ready('PodScheduled')] } }, { namespace: NAMESPACE, type: 'merge' }),
      )
      .then(
        () => (running += 1),
        (error: unknown) => log(`status of ${name}: ${(error as Error).message}`),
      )
      .finally(() => {
        inFlight -= 1;
        runNext();
      });
  }
};
const podInformer = new Informer(client, builtin.pods, { namespace: NAMESPACE });
podInformer.events$.subscribe((event) => {
  if (event.type !== 'added') return;
  created += 1;
  if (RUNNING) {
    toRun.push(event.object.metadata.name!);
    runNext();
  }
});
await new Promise<void>((resolve) => podInformer.synced$.subscribe((synced) => synced && resolve()));

/** The API server's POST pods requests: count and seconds in all (apiserver_request_duration_seconds, summed over the other labels). */
async function createLatency(): Promise<{ count: number; sum: number }> {
  const res = await request(new URL('/metrics', target.server), { dispatcher: metricsAgent, headers: target.token ? { authorization: `Bearer ${target.token}` } : {} });
  const out = { count: 0, sum: 0 };
  for (const line of (await res.body.text()).split('\n')) {
    const sum = line.startsWith('apiserver_request_duration_seconds_sum{');
    if (!sum && !line.startsWith('apiserver_request_duration_seconds_count{')) continue;
    if (!line.includes('verb="POST"') || !line.includes('resource="pods"') || /subresource="[^"]+"/.test(line)) continue;
    out[sum ? 'sum' : 'count'] += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return out;
}

interface Mark {
  readonly pods: number;
  readonly at: number;
  readonly manager: number;
  readonly apiserver: number;
  readonly counts: RequestCounts;
  readonly creates: { count: number; sum: number };
  readonly load: string;
}
const mark = async (pods: number): Promise<Mark> => ({
  pods,
  at: performance.now(),
  manager: cpuTicks(plane.manager.pid!),
  apiserver: cpuTicks(plane.apiserver.pid!),
  counts: await requestCounts(target.server, target.token, metricsAgent),
  creates: await createLatency(),
  load: load(),
});

const deploymentLoad = { namespace: NAMESPACE, prefix: 'fill', total: TOTAL, replicas: REPLICAS, schedulerName: 'manager-fill-none' };
const deployments = deploymentCount(deploymentLoad);
await createDeployments(client, deploymentLoad, true);
log(`${deployments} Deployments of ≤${REPLICAS} created (0 replicas); scaling at ${CREATE_RATE} pods/s`);

let stop = false;
const paced = paceScaleSteps(
  deploymentLoad,
  CREATE_RATE,
  async (name, replicas) => {
    await client.patch(builtin.deployments, name, { spec: { replicas } }, { namespace: NAMESPACE, type: 'merge' });
  },
  () => stop,
);
paced.catch(() => undefined);

const marks: Mark[] = [await mark(0)];
const runStart = performance.now();
let lastReport = 0;
while (created < TOTAL) {
  await new Promise((resolve) => setTimeout(resolve, 250));
  const elapsed = performance.now() - runStart;
  const next = marks.at(-1)!.pods + BUCKET;
  if (created >= Math.min(next, TOTAL)) {
    const m = await mark(created);
    const prev = marks.at(-1)!;
    marks.push(m);
    const pods = m.pods - prev.pods;
    log(`${m.pods} pods: bucket ${((m.at - prev.at) / 1000).toFixed(1)} s, ${((pods * 1000) / (m.at - prev.at)).toFixed(1)} pods/s, manager ${(((m.manager - prev.manager) * MS_PER_TICK) / pods).toFixed(2)} ms/pod, apiserver ${(((m.apiserver - prev.apiserver) * MS_PER_TICK) / pods).toFixed(2)} ms/pod, create ${(((m.creates.sum - prev.creates.sum) * 1000) / Math.max(1, m.creates.count - prev.creates.count)).toFixed(1)} ms mean; load ${m.load}`);
  }
  if (elapsed - lastReport > 15_000) {
    lastReport = elapsed;
    log(`${(elapsed / 1000).toFixed(0)} s: ${created} pods created, ${running} Running; manager RSS ${residentMb(plane.manager.pid!).rss} MB; load ${load()}`);
  }
  if (elapsed > TIMEOUT_MS) {
    log(`TIMEOUT: ${created} of ${TOTAL} pods created after ${TIMEOUT_MS / 1000} s`);
    marks.push(await mark(created));
    break;
  }
}
stop = true;
await paced;
// With RUNNING=1 the bench's own status patches may trail the creations: the pods' Running
// changes (and the ReplicaSets' status work they cause) would then fall outside the buckets.
// One last bucket of no new pods takes them in, so the run's CPU per pod counts every one.
if (RUNNING && running < created) {
  while (running + 10 < created && performance.now() - runStart < TIMEOUT_MS) await new Promise((resolve) => setTimeout(resolve, 500));
  await new Promise((resolve) => setTimeout(resolve, 5000));
  marks.push({ ...(await mark(created)), pods: created });
  log(`Running caught up: ${running} of ${created}; load ${load()}`);
}
clearInterval(leaseTimer);

const first = marks[0]!;
const last = marks.at(-1)!;
const wholeRun = {
  managerCpuMsPerPod: Number((((last.manager - first.manager) * MS_PER_TICK) / Math.max(1, last.pods)).toFixed(2)),
  apiserverCpuMsPerPod: Number((((last.apiserver - first.apiserver) * MS_PER_TICK) / Math.max(1, last.pods)).toFixed(2)),
  seconds: Number(((last.at - first.at) / 1000).toFixed(1)),
};
const buckets = marks.slice(1).map((m, i) => {
  const prev = marks[i]!;
  // The catch-up bucket creates nothing: its CPU is given per pod of the whole run.
  const pods = m.pods - prev.pods || m.pods;
  return {
    pods: `${prev.pods}-${m.pods}`,
    seconds: Number(((m.at - prev.at) / 1000).toFixed(1)),
    podsPerS: Number(((pods * 1000) / (m.at - prev.at)).toFixed(1)),
    managerCpuMsPerPod: Number((((m.manager - prev.manager) * MS_PER_TICK) / pods).toFixed(2)),
    apiserverCpuMsPerPod: Number((((m.apiserver - prev.apiserver) * MS_PER_TICK) / pods).toFixed(2)),
    managerCpuPercent: Math.round(((m.manager - prev.manager) * MS_PER_TICK * 100) / (m.at - prev.at)),
    // The server's time per pod create (mean): with the manager's CPU well below a core, what
    // paces the ReplicaSet loop's slow-start rounds.
    podCreateMeanMs: Number((((m.creates.sum - prev.creates.sum) * 1000) / Math.max(1, m.creates.count - prev.creates.count)).toFixed(1)),
    requestsPerPod: perPod(prev.counts, m.counts, pods),
    load: `${prev.load} → ${m.load}`,
  };
});
console.log(JSON.stringify({ pods: TOTAL, created, running, wholeRun, buckets, settings: { runningPatches: RUNNING, nodes: NODES, createRate: CREATE_RATE, replicasPerDeployment: REPLICAS, cmQps: `${settings.managerQps}/${settings.managerBurst}` }, managerRssMb: residentMb(plane.manager.pid!), apiserverRssMb: residentMb(plane.apiserver.pid!) }, null, 2));
// MANAGER_SNAPSHOT_DIR: the manager's live heap now, every pod in its caches (heap-summary.ts reads
// it); after the figures above, whose RSS the snapshot's own work would inflate.
const snapshot = await snapshotManager(plane);
if (snapshot) log(`manager heap snapshot: ${snapshot}`);
podInformer.stop();
await client.close();
await plane.stop();
process.exit(created >= TOTAL ? 0 : 1);
