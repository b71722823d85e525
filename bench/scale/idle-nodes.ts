// The steady load of idle nodes on the control plane (issue #26): hollow nodes (`svc hollow-nodes`,
// the node agent's own code on the simulated runtime) with no pod, added in steps, against the
// real daemons (bench/scale/control-plane.ts). At each step, once every node is Ready and a settle
// has passed, the CPU seconds each process uses per minute (/proc, user + system) over WINDOW_S,
// and the requests the API server served in that window by verb and resource (its
// apiserver_request_total), so the CPU is also read per request.
//   npm run bench:idle-nodes                          (STEPS=100,500,1000)
//   STEPS=100,1000 WINDOW_S=60 CPU_PROF=/tmp/prof npm run bench:idle-nodes
// Knobs: STEPS (node counts, ascending), WINDOW_S (60), SETTLE_S (20: after the last node is
// Ready, registrations' and first statuses' writes done), START_RATE (100 nodes/s), HOLLOW_FLAGS
// (more flags for each `svc hollow-nodes`, space-separated), HOLLOW_NODE_FLAGS (Node.js flags of
// each hollow-nodes process, e.g. `--heapsnapshot-signal=SIGUSR2`), CPU_PROF=<dir> (--cpu-prof profiles
// of the API server and of each hollow-nodes process, whole run, written when they stop), DAEMON_LOGS=1,
// HOLLOW_PROCS (1: each step's nodes split over that many processes with `--first-index`; the
// hollow-nodes figures are their sums), GC_PAUSES=1 (the API server's main-thread collection pauses
// in the window, ms a minute by kind: bench/support/gc-pauses.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { builtin, Client, Informer, loadSvcconfig } from '../../src/client/index.js';
import { cpuTicks, MS_PER_TICK, openSockets, residentMb } from '../support/proc.js';
import type { GcPauses } from '../support/gc-pauses.js';
import { log, startControlPlane } from './control-plane.js';
import { perMinute, requestCounts as requestCountsOf } from './request-counts.js';

const STEPS = (process.env['STEPS'] ?? '100,500,1000').split(',').map(Number);
const WINDOW_MS = Number(process.env['WINDOW_S'] ?? 60) * 1000;
const SETTLE_MS = Number(process.env['SETTLE_S'] ?? 20) * 1000;
const START_RATE = process.env['START_RATE'] ?? '100';
const HOLLOW_FLAGS = (process.env['HOLLOW_FLAGS'] ?? '').split(' ').filter(Boolean);
const HOLLOW_NODE_FLAGS = (process.env['HOLLOW_NODE_FLAGS'] ?? '').split(' ').filter(Boolean);
const HOLLOW_PROCS = Math.max(1, Number(process.env['HOLLOW_PROCS'] ?? 1));
const GC_PAUSES = process.env['GC_PAUSES'] === '1';
const load = () => loadavg().map((n) => n.toFixed(2)).join(' ');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-idle-nodes-'));
process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

const plane = await startControlPlane({
  dir,
  managerQps: '500',
  managerBurst: '1000',
  schedulerQps: '1000',
  schedulerBurst: '2000',
  apiserverNodeFlags: [
    ...(process.env['CPU_PROF'] ? ['--cpu-prof', `--cpu-prof-dir=${process.env['CPU_PROF']}`] : []),
    ...(process.env['APISERVER_NODE_FLAGS'] ?? '').split(' ').filter(Boolean),
  ],
});
const client = await Client.fromSvcconfig(plane.svcconfig, { userAgent: 'bench-idle-nodes' });
const target = await loadSvcconfig(plane.svcconfig);
const metricsAgent = new Agent({ connect: { ca: target.caData } });

/** The API server's collection pauses since 'gc-start' (bench/controllers/server.ts). */
function apiserverGcPauses(): Promise<GcPauses> {
  return new Promise((resolve) => {
    const take = (message: unknown) => {
      const gc = (message as { gc?: GcPauses | null }).gc;
      if (gc === undefined) return;
      plane.apiserver.off('message', take);
      resolve(gc ?? {});
    };
    plane.apiserver.on('message', take);
    plane.apiserver.send('gc-stop');
  });
}

const requestCounts = () => requestCountsOf(target.server, target.token, metricsAgent);

const ready = new Set<string>();
const nodeInformer = new Informer(client, builtin.nodes);
nodeInformer.events$.subscribe(({ type, object }) => {
  const node = object as { metadata: { name?: string }; status?: { conditions?: { type: string; status: string }[] } } | undefined;
  if (!node) return;
  if (type !== 'deleted' && node.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) ready.add(node.metadata.name!);
  else ready.delete(node.metadata.name!);
});

const fleets: number[] = [];
const pids = () => ({ apiserver: [plane.apiserver.pid!], 'controller-manager': [plane.manager.pid!], scheduler: [plane.scheduler.pid!], 'hollow-nodes': fleets });
const ticks = () => Object.fromEntries(Object.entries(pids()).map(([name, list]) => [name, list.reduce((sum, pid) => sum + cpuTicks(pid), 0)]));

log(`load average at start: ${load()}`);
const results = [];
let started = 0;
for (const [step, nodes] of STEPS.entries()) {
  // Each step adds a fleet of its own (its own name prefix and address ranges): the earlier nodes keep running.
  // HOLLOW_PROCS processes per step, each a contiguous share of the step's indexes (`--first-index`).
  const count = nodes - started;
  const procs = Math.min(HOLLOW_PROCS, count);
  for (let k = 0, first = 0; k < procs; k++) {
    const share = Math.floor(count / procs) + (k < count % procs ? 1 : 0);
    const fleet = plane.daemon(`svc hollow-nodes ${step}${procs === 1 ? '' : `.${k}`}`, 'src/cli/svc.ts', [
      'hollow-nodes',
      `--svcconfig=${plane.svcconfig}`,
      `--count=${share}`,
      `--first-index=${first}`,
      `--name-prefix=idle-${step}-`,
      `--node-cidr=100.${64 + step}.0.0/16`,
      `--pod-cidr=10.${64 * (step + 1)}.0.0/10`,
      `--start-rate=${Number(START_RATE) / procs}`,
      `--root-dir=${join(dir, `hollow-${step}-${k}`)}`,
      ...HOLLOW_FLAGS,
    ], [...HOLLOW_NODE_FLAGS, ...(process.env['CPU_PROF'] ? ['--cpu-prof', `--cpu-prof-dir=${process.env['CPU_PROF']}`] : [])]);
    fleets.push(fleet.pid!);
    first += share;
  }
  started = nodes;
  const began = performance.now();
  for (let said = began; ready.size < nodes; ) {
    await sleep(500);
    if (performance.now() - said < 30_000) continue;
    said = performance.now();
    log(`${ready.size} of ${nodes} nodes Ready after ${((said - began) / 1000).toFixed(0)} s; hollow-nodes RSS ${Math.round(fleets.reduce((sum, pid) => sum + residentMb(pid).rss, 0))} MB; load ${load()}`);
  }
  log(`${nodes} nodes Ready (${((performance.now() - began) / 1000).toFixed(1)} s for the step's ${count}); settling ${SETTLE_MS / 1000} s; load ${load()}`);
  await sleep(SETTLE_MS);
  const loadBefore = load();
  const countsBefore = await requestCounts();
  if (GC_PAUSES) plane.apiserver.send('gc-start');
  const from = ticks();
  const fromAt = performance.now();
  await sleep(WINDOW_MS);
  const to = ticks();
  const gc = GC_PAUSES ? await apiserverGcPauses() : undefined;
  const minutes = (performance.now() - fromAt) / 60_000;
  const countsAfter = await requestCounts();
  const requests = perMinute(countsBefore, countsAfter, minutes);
  const cpuSecondsPerMinute = Object.fromEntries(Object.keys(from).map((name) => [name, Number((((to[name]! - from[name]!) * MS_PER_TICK) / 1000 / minutes).toFixed(2))]));
  const totalRequests = Object.values(requests).reduce((a, b) => a + b, 0);
  const result = {
    nodes,
    cpuSecondsPerMinute,
    controlPlanePercentOfOneCore: Number((((cpuSecondsPerMinute['apiserver']! + cpuSecondsPerMinute['controller-manager']! + cpuSecondsPerMinute['scheduler']!) / 60) * 100).toFixed(1)),
    apiRequestsPerMinute: totalRequests,
    apiserverCpuMsPerRequest: totalRequests ? Number(((cpuSecondsPerMinute['apiserver']! * 1000) / totalRequests).toFixed(2)) : null,
    requestsPerMinute: requests,
    rssMb: Object.fromEntries(Object.entries(pids()).map(([name, list]) => [name, Math.round(list.reduce((sum, pid) => sum + residentMb(pid).rss, 0))])),
    sockets: Object.fromEntries(Object.entries(pids()).map(([name, list]) => [name, list.reduce((sum, pid) => sum + openSockets(pid), 0)])),
    loadAverage: { before: loadBefore, after: load() },
    ...(gc ? { apiserverGcPauseMsPerMinute: Object.fromEntries(Object.entries(gc).map(([kind, { count, ms }]) => [kind, `${(ms / minutes).toFixed(0)} ms (${count})`])) } : {}),
  };
  log(JSON.stringify(result));
  results.push(result);
}
console.log(JSON.stringify(results, null, 2));
nodeInformer.stop();
await client.close();
await metricsAgent.close();
await plane.stop();
process.exit(0);
