// Node lifecycle benchmark (issue 24): NODES simulated nodes on a real svc-apiserver (HTTPS,
// sqlite, loopback, a child process) and the node lifecycle controller in this process with the
// manager's defaults (--node-monitor-period 5s, --node-monitor-grace-period 50s, rates 0.1/0.01,
// --svc-api-qps/--svc-api-burst 20/30). SIMULATED: there are no node agents; the bench itself
// creates the Nodes (Ready) and their Leases in svc-node-lease, and renews every live Lease every
// 10 s as an agent would (spread over the interval). STOPPED nodes, spread over the zones, stop
// renewing one every STAGGER_S seconds; reported is the time from a node's last renewal to the
// controller's unreachable NoSchedule taint (and to the NoExecute one) seen in a watch, p50/p99/max,
// against the goal grace period + one monitor period.
//   npm run bench:node-lifecycle     (NODES=1000 ZONES=10 STOPPED=40 STAGGER_S=2)
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Subject } from 'rxjs';
import { microTime, rfc3339, type Lease, type Node } from '../../src/api/index.js';
import { builtin, Client, DiscoveryCache, EventRecorder, InformerFactory } from '../../src/client/index.js';
import { nodeLifecycleController } from '../../controllers/index.js';
import { throttle } from './throttle.js';

const NODES = Number(process.env['NODES'] ?? 1000);
const ZONES = Number(process.env['ZONES'] ?? 10);
const STOPPED = Number(process.env['STOPPED'] ?? 40);
const STAGGER_MS = Number(process.env['STAGGER_S'] ?? 2) * 1000;
const PERIOD_MS = 5_000;
const GRACE_MS = 50_000;
const RENEW_MS = 10_000;
const LEASE_NS = 'svc-node-lease';

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-node-lifecycle-'));
const proc = spawn(process.execPath, ['--import', 'tsx', new URL('./server.ts', import.meta.url).pathname, dir], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
process.once('exit', () => {
  proc.kill();
  rmSync(dir, { recursive: true, force: true });
});
const { svcconfig } = JSON.parse(await new Promise<string>((resolve) => createInterface({ input: proc.stdout! }).once('line', resolve))) as { svcconfig: string };
const driver = await Client.fromSvcconfig(svcconfig);

const names = Array.from({ length: NODES }, (_, i) => `sim-${String(i).padStart(4, '0')}`);
const leases = new Map<string, Lease>();
const lastRenewal = new Map<string, number>();

async function pool<T>(items: readonly T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < items.length) await work(items[next++]!);
  }));
}

const t0 = performance.now();
await pool(names, 32, async (name) => {
  const zone = `zone-${Number(name.slice(4)) % ZONES}`;
  const node = await driver.create(builtin.nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'topology.svc.io/zone': zone } } });
  const at = rfc3339(Date.now());
  await driver.updateStatus(builtin.nodes, { ...node, status: { conditions: [{ type: 'Ready', status: 'True', reason: 'NodeAgentReady', message: 'simulated', lastHeartbeatTime: at, lastTransitionTime: at }] } } as Node);
  leases.set(name, await driver.create(builtin.leases, { apiVersion: 'coordination.svc.io/v1', kind: 'Lease', metadata: { name, namespace: LEASE_NS }, spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: microTime(Date.now()) } } as Lease));
  lastRenewal.set(name, performance.now());
});
const setupS = (performance.now() - t0) / 1000;

// The simulated agents: every live Lease renewed every 10 s, a tenth of a second's share at a time.
const stopped = new Set<string>();
let renewals = 0;
let renewErrors = 0;
let slot = 0;
const SLOTS = RENEW_MS / 100;
const renewTimer = setInterval(() => {
  const mine = names.filter((_, i) => i % SLOTS === slot);
  slot = (slot + 1) % SLOTS;
  for (const name of mine) {
    if (stopped.has(name)) continue;
    void driver.update(builtin.leases, { ...leases.get(name)!, spec: { ...leases.get(name)!.spec, renewTime: microTime(Date.now()) } }).then(
      (lease) => {
        if (stopped.has(name)) return;
        leases.set(name, lease);
        lastRenewal.set(name, performance.now());
        renewals++;
      },
      () => void renewErrors++,
    );
  }
}, 100);

// The controller, as the manager runs it.
const client = await Client.fromSvcconfig(svcconfig);
const limiter = throttle(client, { qps: 20, burst: 30 });
const stop$ = new Subject<void>();
const informers = new InformerFactory(client);
const loop = nodeLifecycleController(
  { name: 'node-lifecycle-controller', client, informers, discovery: new DiscoveryCache(client), events: new EventRecorder({ client, component: 'node-lifecycle-controller' }), stop$, controllerDefaults: () => ({}) },
  { monitorPeriodMs: PERIOD_MS, gracePeriodMs: GRACE_MS, startupGracePeriodMs: 60_000, evictionRate: 0.1, secondaryEvictionRate: 0.01, largeClusterThreshold: 50, unhealthyZoneThreshold: 0.55 },
).subscribe();

// What the bench watches: when each stopped node's taints appear.
const watcher = new InformerFactory(driver).informer(builtin.nodes);
const noScheduleAt = new Map<string, number>();
const noExecuteAt = new Map<string, number>();
const falseTaints = new Set<string>();
watcher.events$.subscribe((event) => {
  if (event.type === 'deleted') return;
  const node = event.object;
  const name = node.metadata.name!;
  for (const taint of node.spec?.taints ?? []) {
    if (taint.key !== 'node.kubernetes.io/unreachable') continue;
    if (!stopped.has(name)) falseTaints.add(name);
    const map = taint.effect === 'NoSchedule' ? noScheduleAt : noExecuteAt;
    if (!map.has(name)) map.set(name, performance.now());
  }
});
watcher.start();
await watcher.waitForSync();
// A full grace period of steady state first: no live node may be tainted.
await new Promise((r) => setTimeout(r, GRACE_MS + 2 * PERIOD_MS));
const steadyRequests = limiter.requests();

// Stop nodes one at a time, round robin over the zones (a few per zone of 100: each zone stays Normal).
const victims = Array.from({ length: STOPPED }, (_, i) => names[(i % ZONES) + ZONES * Math.floor(i / ZONES) * 7 + ZONES * 3]!);
for (const name of victims) {
  stopped.add(name);
  await new Promise((r) => setTimeout(r, STAGGER_MS));
}
const deadline = performance.now() + GRACE_MS + 4 * PERIOD_MS + 60_000;
while (performance.now() < deadline && victims.some((n) => !noScheduleAt.has(n) || !noExecuteAt.has(n))) await new Promise((r) => setTimeout(r, 200));

clearInterval(renewTimer);
loop.unsubscribe();
stop$.next();
informers.stop();
watcher.stop();
limiter.stop();

const latencies = (map: Map<string, number>) => victims.filter((n) => map.has(n)).map((n) => (map.get(n)! - lastRenewal.get(n)!) / 1000).sort((a, b) => a - b);
const pct = (xs: number[], p: number) => xs[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!;
const row = (what: string, xs: number[]) => `| ${what} | ${xs.length}/${victims.length} | ${pct(xs, 50).toFixed(1)} | ${pct(xs, 99).toFixed(1)} | ${xs.at(-1)!.toFixed(1)} | ${(GRACE_MS + PERIOD_MS) / 1000} |`;
console.log(`node ${process.version}, ${process.platform}/${process.arch}; ${NODES} simulated nodes (the bench writes their Nodes and Leases; no agents) in ${ZONES} zones, sqlite, HTTPS loopback`);
console.log(`setup ${setupS.toFixed(1)} s; ${renewals} Lease renewals (${renewErrors} failed); controller requests in the steady grace period: ${steadyRequests}; live nodes tainted: ${falseTaints.size}\n`);
console.log('| last Lease renewal → taint seen | nodes | p50 (s) | p99 (s) | max (s) | goal: grace + 1 period (s) |');
console.log('| --- | --- | --- | --- | --- | --- |');
console.log(row('unreachable NoSchedule', latencies(noScheduleAt)));
console.log(row('unreachable NoExecute (zone rate 0.1/s)', latencies(noExecuteAt)));
proc.send('stop');
await driver.destroy();
await client.destroy();
process.exit(0);
