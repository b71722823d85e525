// Density run (issue #26): NODES hollow nodes (`svc hollow-nodes`: the real node agent on the
// simulated CRI runtime) and PODS_PER_NODE pods per node created through Deployments, against
// the real daemons, each a child process started from sources with tsx: svc-apiserver (HTTPS,
// sqlite in a temp dir), svc-controller-manager (every default loop), svc-scheduler. Reported:
// time to every node Ready; pod startup latency p50/p99 (the bench's own watch: ADDED seen →
// phase Running seen); pods Running per second end to end; RSS (peak) and CPU of the four
// processes during the run and in the steady state after it; API request latency p99 by verb
// (the server's apiserver_request_duration_seconds, the run's delta).
//   npm run bench:density                     (NODES=100 PODS_PER_NODE=30)
//   NODES=1000 npm run bench:density
// CREATE_RATE=<pods/s> paces the creation: the Deployments are made with 0 replicas and scaled up
// a step every second (`PATCH deployments`, filling them in order) so that the pods asked for
// grow at that rate, as the density SLO's create rate (500 pods/s) asks; unset, every Deployment
// is created at its full size at once. Per pod (the run's requests by verb and resource over the
// pods, the store's operations by operation and type, CPU ms of each process over the pods) is reported beside the rates: counts and CPU per
// unit of work do not depend on the machine's load.
// Knobs: REPLICAS (per Deployment, 100), CM_QPS/CM_BURST (controller manager, 500/1000),
// SCHED_QPS/SCHED_BURST (scheduler, 1000/2000), START_RATE (hollow nodes/s, 100),
// TIMEOUT_S (wait for all Running, 1800), STEADY_S (steady-state window, 30), IDLE_S (the nodes'
// idle window before the first pod, 20: cpuMsPerPodLessIdle takes its rate out), DAEMON_LOGS=1 (the
// daemons' output on stderr), CPU_PROF=<dir> (--cpu-prof profiles of the API server and the
// hollow-nodes processes, written when they stop), HOLLOW_FLAGS (more flags for `svc hollow-nodes`),
// HOLLOW_FLAGS_<k> (more flags for process k only: one run's A/B, e.g. HOLLOW_PROCS=2
// HOLLOW_FLAGS_0=--write-volumes, read from `hollowProcesses`' cpuMsPerOwnPodLessIdle),
// HOLLOW_NODE_FLAGS (Node.js flags of the hollow-nodes processes, e.g. `--heapsnapshot-signal=SIGUSR2`),
// HOLLOW_NODE_FLAGS_<k> (more Node.js flags for process k only: one run's A/B of V8 flags),
// HOLLOW_TREE_<k> (process k runs `svc hollow-nodes` from the sources of that tree, e.g. an export of
// the commit before a change with this tree's node_modules linked: one run's A/B of the code itself),
// HOLLOW_PROCS (1: the nodes split over that many `svc hollow-nodes` processes, each its share of
// NODES with `--first-index`; the hollow-nodes figures are their sum, `hollowProcesses` each one's).
// Every 15 s a progress line: pods created, bound and Running, the nodes Ready once and not now,
// and each process's share of a core since the line before.
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import type { Pod } from '../../src/api/index.js';
import { builtin, Client, Informer, loadSvcconfig } from '../../src/client/index.js';
import { cpuTicks, MS_PER_TICK, openSockets, residentMb } from '../support/proc.js';
import { log, startControlPlane } from './control-plane.js';
import { createDeployments, createLoadNamespace, deploymentCount, paceScaleSteps } from './deployment-load.js';
import { perMinute, perPod, requestCounts, serverCounts } from './request-counts.js';

const NODES = Number(process.env['NODES'] ?? 100);
const PODS_PER_NODE = Number(process.env['PODS_PER_NODE'] ?? 30);
const REPLICAS = Number(process.env['REPLICAS'] ?? 100);
const START_RATE = process.env['START_RATE'] ?? '100';
const TIMEOUT_MS = Number(process.env['TIMEOUT_S'] ?? 1800) * 1000;
const STEADY_MS = Number(process.env['STEADY_S'] ?? 30) * 1000;
const IDLE_MS = Number(process.env['IDLE_S'] ?? 20) * 1000;
const TOTAL = NODES * PODS_PER_NODE;
const CREATE_RATE = process.env['CREATE_RATE'] ? Number(process.env['CREATE_RATE']) : undefined;
const HOLLOW_FLAGS = (process.env['HOLLOW_FLAGS'] ?? '').split(' ').filter(Boolean);
const HOLLOW_NODE_FLAGS = (process.env['HOLLOW_NODE_FLAGS'] ?? '').split(' ').filter(Boolean);
const HOLLOW_PROCS = Math.max(1, Math.min(NODES, Number(process.env['HOLLOW_PROCS'] ?? 1)));
const NAMESPACE = 'density';
const settings = { managerQps: process.env['CM_QPS'] ?? '500', managerBurst: process.env['CM_BURST'] ?? '1000', schedulerQps: process.env['SCHED_QPS'] ?? '1000', schedulerBurst: process.env['SCHED_BURST'] ?? '2000' };

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-density-'));
const load = () => loadavg().map((n) => n.toFixed(2)).join(' ');
process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

// ---- the daemons ----

const plane = await startControlPlane({ dir, ...settings, ...(process.env['CPU_PROF'] ? { apiserverNodeFlags: ['--cpu-prof', `--cpu-prof-dir=${process.env['CPU_PROF']}`] } : {}) });
const { svcconfig, apiserver, manager, scheduler: schedulerProc } = plane;
const client = await Client.fromSvcconfig(svcconfig, { userAgent: 'bench-density' });
const target = await loadSvcconfig(svcconfig);
// A saturated server may take more than undici's 10 s to accept and handshake a new connection.
const metricsAgent = new Agent({ connect: { ca: target.caData, timeout: 60_000 } });

// ---- measurement helpers ----

interface Usage {
  readonly cpuTicks: number;
  readonly at: number;
}
// Each name's processes: the hollow nodes may be several (HOLLOW_PROCS), their figures summed.
const processes: Record<'apiserver' | 'controller-manager' | 'scheduler' | 'hollow-nodes', number[]> = { apiserver: [apiserver.pid!], 'controller-manager': [manager.pid!], scheduler: [schedulerProc.pid!], 'hollow-nodes': [] };
type ProcName = keyof typeof processes;
const sum = (pids: readonly number[], of: (pid: number) => number) => pids.reduce((total, pid) => total + of(pid), 0);
const peakRss: Record<ProcName, number> = { apiserver: 0, 'controller-manager': 0, scheduler: 0, 'hollow-nodes': 0 };
/** Each hollow-nodes process's own peak RSS, by pid. */
const hollowPeakRss = new Map<number, number>();
function usage(): Record<ProcName, Usage> {
  const out = {} as Record<ProcName, Usage>;
  for (const [name, pids] of Object.entries(processes) as [ProcName, number[]][]) out[name] = { cpuTicks: sum(pids, cpuTicks), at: performance.now() };
  return out;
}
const hollowTicks = () => processes['hollow-nodes'].map((pid) => cpuTicks(pid));
const peakSockets: Record<ProcName, number> = { apiserver: 0, 'controller-manager': 0, scheduler: 0, 'hollow-nodes': 0 };
function sampleRss(): void {
  for (const [name, pids] of Object.entries(processes) as [ProcName, number[]][]) {
    if (pids.length === 0) continue;
    peakRss[name] = Math.max(peakRss[name], Math.round(sum(pids, (pid) => residentMb(pid).rss)));
    peakSockets[name] = Math.max(peakSockets[name], sum(pids, openSockets));
  }
  for (const pid of processes['hollow-nodes']) hollowPeakRss.set(pid, Math.max(hollowPeakRss.get(pid) ?? 0, residentMb(pid).rss));
}
const cpuPercent = (from: Record<ProcName, Usage>, to: Record<ProcName, Usage>, name: ProcName) =>
  Math.round(((to[name].cpuTicks - from[name].cpuTicks) * MS_PER_TICK * 100) / (to[name].at - from[name].at));

/** apiserver_request_duration_seconds buckets by verb, summed over the other labels. */
async function latencyBuckets(): Promise<Map<string, Map<number, number>>> {
  const res = await request(new URL('/metrics', target.server), { dispatcher: metricsAgent, headers: { authorization: `Bearer ${target.token}` } });
  const text = await res.body.text();
  const out = new Map<string, Map<number, number>>();
  for (const line of text.split('\n')) {
    if (!line.startsWith('apiserver_request_duration_seconds_bucket{')) continue;
    const verb = /verb="([^"]+)"/.exec(line)?.[1] ?? '?';
    const le = /le="([^"]+)"/.exec(line)?.[1] ?? '+Inf';
    const value = Number(line.slice(line.lastIndexOf(' ') + 1));
    const bound = le === '+Inf' ? Infinity : Number(le);
    const byLe = out.get(verb) ?? new Map<number, number>();
    byLe.set(bound, (byLe.get(bound) ?? 0) + value);
    out.set(verb, byLe);
  }
  return out;
}
/** The p99 bucket bound of each verb between two scrapes (Prometheus' histogram_quantile without interpolation: an upper bound). */
function p99ByVerb(before: Map<string, Map<number, number>>, after: Map<string, Map<number, number>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [verb, buckets] of after) {
    const bounds = [...buckets.keys()].sort((a, b) => a - b);
    const count = (le: number) => (buckets.get(le) ?? 0) - (before.get(verb)?.get(le) ?? 0);
    const total = count(Infinity);
    if (total === 0) continue;
    const bound = bounds.find((le) => count(le) >= total * 0.99) ?? Infinity;
    out[verb] = `≤${bound === Infinity ? '+Inf' : `${bound * 1000}ms`} (n=${total})`;
  }
  return out;
}
const quantile = (sorted: readonly number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;

// ---- the run ----

log(`load average at start: ${load()}`);
await createLoadNamespace(client, NAMESPACE);

const nodesReadyAt = new Map<string, number>();
// Nodes that were Ready once and are not now (the node lifecycle loop judged them Unknown): the
// progress lines show them, since such a judgement makes the manager write every pod of the node.
const notReadyNow = new Set<string>();
const nodeInformer = new Informer(client, builtin.nodes);
nodeInformer.events$.subscribe(({ object }) => {
  if (!object) return;
  const node = object as { metadata: { name?: string }; status?: { conditions?: { type: string; status: string }[] } };
  const ready = node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
  if (ready && !nodesReadyAt.has(node.metadata.name!)) nodesReadyAt.set(node.metadata.name!, performance.now());
  if (ready) notReadyNow.delete(node.metadata.name!);
  else if (nodesReadyAt.has(node.metadata.name!)) notReadyNow.add(node.metadata.name!);
});

const hollowStart = performance.now();
// HOLLOW_PROCS processes, each a contiguous share of the node indexes (same prefix and ranges,
// `--first-index`), started together: each paces its own start at START_RATE / HOLLOW_PROCS, so the
// fleet's registrations come at START_RATE as from one process.
const hollowShares: { pid: number; firstIndex: number; count: number }[] = [];
const hollowFlagsOf = (k: number) => (process.env[`HOLLOW_FLAGS_${k}`] ?? '').split(' ').filter(Boolean);
for (let k = 0, first = 0; k < HOLLOW_PROCS; k++) {
  const count = Math.floor(NODES / HOLLOW_PROCS) + (k < NODES % HOLLOW_PROCS ? 1 : 0);
  const startRate = Number(START_RATE) / HOLLOW_PROCS;
  const hollow = plane.daemon(
    HOLLOW_PROCS === 1 ? 'svc hollow-nodes' : `svc hollow-nodes ${k}`,
    process.env[`HOLLOW_TREE_${k}`] ? join(process.env[`HOLLOW_TREE_${k}`]!, 'src/cli/svc.ts') : 'src/cli/svc.ts',
    ['hollow-nodes', `--svcconfig=${svcconfig}`, `--count=${count}`, `--first-index=${first}`, `--start-rate=${startRate}`, `--root-dir=${join(dir, `hollow-${k}`)}`, ...HOLLOW_FLAGS, ...hollowFlagsOf(k)],
    [...HOLLOW_NODE_FLAGS, ...(process.env[`HOLLOW_NODE_FLAGS_${k}`] ?? '').split(' ').filter(Boolean), ...(process.env['CPU_PROF'] ? ['--cpu-prof', `--cpu-prof-dir=${process.env['CPU_PROF']}`] : [])],
  );
  processes['hollow-nodes'].push(hollow.pid!);
  hollowShares.push({ pid: hollow.pid!, firstIndex: first, count });
  first += count;
}
const sampler = setInterval(sampleRss, 2000);
while (nodesReadyAt.size < NODES) {
  await new Promise((resolve) => setTimeout(resolve, 500));
  if (performance.now() - hollowStart > TIMEOUT_MS) throw new Error(`only ${nodesReadyAt.size} of ${NODES} nodes Ready after ${TIMEOUT_MS / 1000}s`);
}
const nodesReadyS = ([...nodesReadyAt.values()].reduce((a, b) => Math.max(a, b), -Infinity) - hollowStart) / 1000;
log(`${NODES} nodes Ready in ${nodesReadyS.toFixed(1)}s; load ${load()}`);

const added = new Map<string, number>();
/** Pods bound to each hollow-nodes process's nodes, for its CPU per pod of its own. */
const podsOfProcess: number[] = [];
const bound = new Map<string, number>();
const running = new Map<string, number>();
const podInformer = new Informer(client, builtin.pods, { namespace: NAMESPACE });
podInformer.events$.subscribe(({ object }) => {
  if (!object) return;
  const pod = object as Pod;
  const uid = pod.metadata.uid!;
  const now = performance.now();
  if (!added.has(uid)) added.set(uid, now);
  if (pod.spec?.nodeName && !bound.has(uid)) {
    bound.set(uid, now);
    const index = Number(/(\d+)$/.exec(pod.spec.nodeName)?.[1]);
    const k = hollowShares.findIndex((share) => index >= share.firstIndex && index < share.firstIndex + share.count);
    if (k >= 0) podsOfProcess[k] = (podsOfProcess[k] ?? 0) + 1;
  }
  if (pod.status?.phase === 'Running' && !running.has(uid)) running.set(uid, now);
});
await new Promise<void>((resolve) => podInformer.synced$.subscribe((synced) => synced && resolve()));

// The nodes' idle cost, before any pod: CPU per pod over the run includes every node's Lease
// renewals and status checks for the run's length (at 1,000 nodes about 6 CPU s a minute), which
// depends on how long the run took, so the report also gives CPU per pod less this idle rate.
const idleFrom = usage();
const hollowIdleBase = hollowTicks();
await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
const idleTo = usage();
const hollowIdleTicks = hollowTicks();
const idleMsPerS = (name: ProcName) => ((idleTo[name].cpuTicks - idleFrom[name].cpuTicks) * MS_PER_TICK * 1000) / (idleTo[name].at - idleFrom[name].at);

const metricsBefore = await latencyBuckets();
const { requests: countsBefore, storage: storageBefore } = await serverCounts(target.server, target.token, metricsAgent);
const usageBefore = usage();
const hollowTicksBefore = hollowTicks();
const runStart = performance.now();
const deploymentLoad = { namespace: NAMESPACE, prefix: 'density', total: TOTAL, replicas: REPLICAS };
const deployments = deploymentCount(deploymentLoad);
await createDeployments(client, deploymentLoad, CREATE_RATE !== undefined);
// A scale step that meets a transport failure (a connection the saturated server did not accept in
// time) is tried again and counted: the run measures the cluster, it does not end on one lost socket.
let scaleRetries = 0;
async function scaleTo(name: string, replicas: number): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await client.patch(builtin.deployments, name, { spec: { replicas } }, { namespace: NAMESPACE, type: 'merge' });
      return;
    } catch (error) {
      if (attempt >= 10 || (error as { code?: unknown }).code === 422) throw error;
      scaleRetries++;
      log(`scale ${name} to ${replicas}: ${(error as Error).message}; trying again`);
    }
  }
}
let paced: Promise<void> = Promise.resolve();
if (CREATE_RATE !== undefined) {
  paced = (async () => {
    const began = performance.now();
    await paceScaleSteps(deploymentLoad, CREATE_RATE, scaleTo);
    log(`all ${TOTAL} pods asked for, ${((performance.now() - began) / 1000).toFixed(1)} s after the first step (${CREATE_RATE} pods/s asked)`);
  })();
}
// Its failure is reported where it is awaited, after the wait below, not as an unhandled rejection.
paced.catch(() => undefined);
log(`${deployments} Deployments of ≤${REPLICAS} created; waiting for ${TOTAL} pods Running`);
let lastReport = 0;
let lastUsage = usage();
while (running.size < TOTAL) {
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const elapsed = performance.now() - runStart;
  if (elapsed - lastReport > 15_000) {
    lastReport = elapsed;
    // Each process's share of a core since the last line: who was busy when the rate changed.
    const now = usage();
    const cpu = (Object.keys(processes) as ProcName[]).map((name) => `${name} ${Math.round(((now[name].cpuTicks - lastUsage[name].cpuTicks) * MS_PER_TICK * 100) / (now[name].at - lastUsage[name].at))}%`).join(', ');
    lastUsage = now;
    log(`${(elapsed / 1000).toFixed(0)}s: ${added.size} pods created, ${bound.size} bound, ${running.size} Running; nodes not Ready ${notReadyNow.size}; cpu ${cpu}; load ${load()}`);
  }
  if (elapsed > TIMEOUT_MS) {
    log(`TIMEOUT: ${running.size} of ${TOTAL} Running after ${TIMEOUT_MS / 1000}s`);
    break;
  }
}
await paced;
const runEnd = performance.now();
const usageRun = usage();
const hollowTicksRun = hollowTicks();
const metricsAfter = await latencyBuckets();
const { requests: countsAfter, storage: storageAfter } = await serverCounts(target.server, target.token, metricsAgent);
const loadAfterRun = load();

log(`steady state: ${STEADY_MS / 1000}s without changes`);
const steadyFrom = usage();
await new Promise((resolve) => setTimeout(resolve, STEADY_MS));
const steadyTo = usage();
const countsSteady = await requestCounts(target.server, target.token, metricsAgent);
clearInterval(sampler);
sampleRss();

const latencies = [...running].map(([uid, at]) => at - (added.get(uid) ?? at)).sort((a, b) => a - b);
const toBind = [...bound].map(([uid, at]) => at - (added.get(uid) ?? at)).sort((a, b) => a - b);
const boundToRunning = [...running].map(([uid, at]) => at - (bound.get(uid) ?? at)).sort((a, b) => a - b);
const ms = (sorted: readonly number[]) => ({ p50: Math.round(quantile(sorted, 0.5)), p99: Math.round(quantile(sorted, 0.99)) });
// Reduced, not Math.min(...values): spreading 150,000 arguments overflows the stack.
const firstAdded = [...added.values()].reduce((a, b) => Math.min(a, b), Infinity);
const lastRunning = [...running.values()].reduce((a, b) => Math.max(a, b), -Infinity);
const report = {
  nodes: NODES,
  podsPerNode: PODS_PER_NODE,
  pods: TOTAL,
  running: running.size,
  scaleRetries,
  nodesReadyS: Number(nodesReadyS.toFixed(1)),
  runS: Number(((runEnd - runStart) / 1000).toFixed(1)),
  podStartupMs: { p50: Math.round(quantile(latencies, 0.5)), p99: Math.round(quantile(latencies, 0.99)), max: Math.round(latencies.at(-1) ?? NaN) },
  createdToBoundMs: ms(toBind),
  boundToRunningMs: ms(boundToRunning),
  podsRunningPerS: Number((running.size / ((lastRunning - firstAdded) / 1000)).toFixed(1)),
  cpuPercentDuringRun: Object.fromEntries((Object.keys(processes) as ProcName[]).map((n) => [n, cpuPercent(usageBefore, usageRun, n)])),
  cpuPercentSteady: Object.fromEntries((Object.keys(processes) as ProcName[]).map((n) => [n, cpuPercent(steadyFrom, steadyTo, n)])),
  peakRssMb: peakRss,
  peakSockets,
  rssMbAtEnd: Object.fromEntries((Object.entries(processes) as [ProcName, number[]][]).map(([n, pids]) => [n, Math.round(sum(pids, (pid) => residentMb(pid).rss))])),
  // Each hollow-nodes process: its nodes, CPU ms per pod of the whole run's pods (the sum is the
  // hollow-nodes figure of cpuMsPerPod), and RSS; with one process the same as the sums above.
  hollowProcesses: hollowShares.map(({ pid, firstIndex, count }, k) => ({
    firstIndex,
    nodes: count,
    cpuMsPerPod: Number((((hollowTicksRun[k]! - hollowTicksBefore[k]!) * MS_PER_TICK) / TOTAL).toFixed(2)),
    flags: hollowFlagsOf(k).join(' '),
    nodeFlags: process.env[`HOLLOW_NODE_FLAGS_${k}`] ?? '',
    tree: process.env[`HOLLOW_TREE_${k}`] ?? '.',
    pods: podsOfProcess[k] ?? 0,
    // Its CPU over the pods its nodes ran, less its own idle rate over the run: with
    // HOLLOW_FLAGS_<k>, the two sides of one run's A/B.
    cpuMsPerOwnPodLessIdle: Number(
      (((hollowTicksRun[k]! - hollowTicksBefore[k]!) * MS_PER_TICK - ((hollowIdleTicks[k]! - hollowIdleBase[k]!) * MS_PER_TICK * (runEnd - runStart)) / (idleTo['hollow-nodes'].at - idleFrom['hollow-nodes'].at)) / Math.max(1, podsOfProcess[k] ?? 0)).toFixed(2),
    ),
    peakRssMb: Math.round(hollowPeakRss.get(pid) ?? 0),
    rssMbAtEnd: Math.round(residentMb(pid).rss),
  })),
  apiP99ByVerb: p99ByVerb(metricsBefore, metricsAfter),
  apiRequestsPerPod: perPod(countsBefore, countsAfter, TOTAL),
  storageOpsPerPod: perPod(storageBefore, storageAfter, TOTAL),
  cpuMsPerPod: Object.fromEntries((Object.keys(processes) as ProcName[]).map((n) => [n, Number((((usageRun[n].cpuTicks - usageBefore[n].cpuTicks) * MS_PER_TICK) / TOTAL).toFixed(2))])),
  // The same less each process's idle CPU rate (the IDLE_S window after the nodes were Ready, before any pod) over the run's length.
  cpuMsPerPodLessIdle: Object.fromEntries(
    (Object.keys(processes) as ProcName[]).map((n) => [n, Number((((usageRun[n].cpuTicks - usageBefore[n].cpuTicks) * MS_PER_TICK - (idleMsPerS(n) * (usageRun[n].at - usageBefore[n].at)) / 1000) / TOTAL).toFixed(2))]),
  ),
  idleCpuPercent: Object.fromEntries((Object.keys(processes) as ProcName[]).map((n) => [n, Number((idleMsPerS(n) / 10).toFixed(1))])),
  apiRequestsPerMinuteDuringRun: perMinute(countsBefore, countsAfter, (runEnd - runStart) / 60_000),
  apiRequestsPerMinuteSteady: perMinute(countsAfter, countsSteady, STEADY_MS / 60_000),
  settings: { createRate: CREATE_RATE ?? 'all at once', hollowProcs: HOLLOW_PROCS, hollowFlags: HOLLOW_FLAGS.join(' '), replicasPerDeployment: REPLICAS, cmQps: `${settings.managerQps}/${settings.managerBurst}`, schedulerQps: `${settings.schedulerQps}/${settings.schedulerBurst}`, startRate: START_RATE },
  loadAverage: { afterRun: loadAfterRun, end: load() },
};
console.log(JSON.stringify(report, null, 2));
nodeInformer.stop();
podInformer.stop();
await client.close();
await plane.stop();
process.exit(running.size === TOTAL ? 0 : 1);
