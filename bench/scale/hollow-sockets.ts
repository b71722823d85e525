// The hollow nodes' sockets to the API server (issue #26, branch hollowconn): NODES hollow nodes
// (one `svc hollow-nodes` process) on the scale benches' control plane, their TCP sockets counted
// (/proc/<pid>/fd) when every node is Ready and idle, then at their peak while PODS_PER_NODE pods
// a node arrive through one Deployment, and once those are Running; CPU and RSS of the process
// beside them.   NODES=50 PODS_PER_NODE=3 node --import tsx bench/scale/hollow-sockets.ts
// HOLLOW_FLAGS: more flags for `svc hollow-nodes` (e.g. `--api-connections=8`).
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtin, Client } from '../../src/client/index.js';
import { cpuTicks, MS_PER_TICK, openSockets, residentMb } from '../support/proc.js';
import { log, startControlPlane } from './control-plane.js';
import { createDeployments, createLoadNamespace } from './deployment-load.js';

const NODES = Number(process.env['NODES'] ?? 50);
const PODS_PER_NODE = Number(process.env['PODS_PER_NODE'] ?? 3);
const HOLLOW_FLAGS = (process.env['HOLLOW_FLAGS'] ?? '').split(' ').filter(Boolean);
const TOTAL = NODES * PODS_PER_NODE;
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-hollow-sockets-'));
process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
const load = () => loadavg().map((n) => n.toFixed(2)).join(' ');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

log(`load average at start: ${load()}`);
const plane = await startControlPlane({ dir, managerQps: '500', managerBurst: '1000', schedulerQps: '1000', schedulerBurst: '2000' });
const client = await Client.fromSvcconfig(plane.svcconfig, { userAgent: 'bench-hollow-sockets' });
await createLoadNamespace(client, 'sockets');
const hollow = plane.daemon('svc hollow-nodes', 'src/cli/svc.ts', ['hollow-nodes', `--svcconfig=${plane.svcconfig}`, `--count=${NODES}`, '--start-rate=100', `--root-dir=${join(dir, 'hollow')}`, ...HOLLOW_FLAGS]);
const pid = hollow.pid!;
let peak = 0;
const sampler = setInterval(() => (peak = Math.max(peak, openSockets(pid))), 200);

const readyNodes = async () => (await client.list(builtin.nodes)).items.filter((n) => n.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')).length;
while ((await readyNodes()) < NODES) await sleep(1000);
await sleep(5000);
const idle = { sockets: openSockets(pid), rssMb: residentMb(pid).rss };
log(`${NODES} nodes Ready; sockets idle ${idle.sockets}`);
peak = idle.sockets;
const t0 = { ticks: cpuTicks(pid), at: performance.now() };
await createDeployments(client, { namespace: 'sockets', prefix: 'sockets', total: TOTAL, replicas: 100 }, false);
const runningPods = async () => (await client.list(builtin.pods, { namespace: 'sockets' })).items.filter((p) => p.status?.phase === 'Running').length;
while ((await runningPods()) < TOTAL) await sleep(1000);
const t1 = { ticks: cpuTicks(pid), at: performance.now() };
const running = { sockets: openSockets(pid), peak, rssMb: residentMb(pid).rss };
clearInterval(sampler);
const result = {
  nodes: NODES,
  podsPerNode: PODS_PER_NODE,
  hollowFlags: HOLLOW_FLAGS,
  socketsIdle: idle.sockets,
  socketsPeakWhilePodsArrived: running.peak,
  socketsAllRunning: running.sockets,
  socketsPerNode: { idle: +(idle.sockets / NODES).toFixed(2), peak: +(running.peak / NODES).toFixed(2) },
  hollowCpuMsPerPod: Math.round(((t1.ticks - t0.ticks) * MS_PER_TICK) / TOTAL),
  hollowRssMb: { idle: idle.rssMb, running: running.rssMb },
  podsRunningInS: +((t1.at - t0.at) / 1000).toFixed(1),
  load: load(),
};
console.log(JSON.stringify(result, null, 2));
await client.close();
await plane.stop();
process.exit(0);
