// The controller manager's CPU per node Lease renewal (issue #26, idle nodes), as a same-run A/B:
// one API server (bench/controllers/server.ts, sqlite), `LEASES` Leases in svc-node-lease renewed
// round-robin at `RATE` a second (a node's 10 s at LEASES = 10 × RATE) by this process, and two
// controller managers with every default loop watching the same server at the same time: this
// checkout's and the one at AB_BEFORE=<checkout> (its node_modules linked or installed). The
// renewals reach both alike, so the machine's load touches both alike; the figure is each
// manager's CPU (/proc, user + system, all threads) per renewal in each window. No hollow nodes:
// there are no Node objects, so the node lifecycle's pass has no node to judge; what is measured
// is what every renewal costs the manager (its watches' decode, caches, handlers, collections).
//   AB_BEFORE=/tmp/before LEASES=2000 RATE=200 WINDOW_S=60 ROUNDS=3 npm run bench:manager-leases
// Knobs: LEASES (2000), RATE (200 a second), WINDOW_S (60), ROUNDS (3), WARMUP_S (30),
// MANAGER_NODE_FLAGS (V8 flags of both managers, space-separated; default none, as the benches
// that start the daemons through tsx run them).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { microTime, type Lease } from '../../src/api/index.js';
import { builtin, Client } from '../../src/client/index.js';
import { cpuTicks, MS_PER_TICK, residentMb } from '../support/proc.js';
import { log, repo, startControlPlane } from './control-plane.js';

const LEASES = Number(process.env['LEASES'] ?? 2000);
const RATE = Number(process.env['RATE'] ?? 200);
const WINDOW_MS = Number(process.env['WINDOW_S'] ?? 60) * 1000;
const WARMUP_MS = Number(process.env['WARMUP_S'] ?? 30) * 1000;
const ROUNDS = Number(process.env['ROUNDS'] ?? 3);
const BEFORE = process.env['AB_BEFORE'];
const NODE_FLAGS = (process.env['MANAGER_NODE_FLAGS'] ?? '').split(' ').filter(Boolean);
const NS = 'svc-node-lease';
if (!BEFORE) throw new Error('AB_BEFORE=<checkout> names the tree to compare with');
const load = () => loadavg().map((n) => n.toFixed(2)).join(' ');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-manager-leases-'));
process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));

// The plane's own manager is this checkout's ("after"); the "before" one is started beside it with the same flags.
process.env['MANAGER_NODE_FLAGS'] = NODE_FLAGS.join(' ');
const plane = await startControlPlane({ dir, managerQps: '500', managerBurst: '1000', schedulerQps: '1000', schedulerBurst: '2000' });
const managerArgs = (checkout: string) => [
  ...NODE_FLAGS,
  '--import',
  'tsx',
  join(checkout, 'src/cli/svc-controller-manager.ts'),
  `--svcconfig=${plane.svcconfig}`,
  '--secure-port=0',
  '--leader-elect=false',
  '--svc-api-qps=500',
  '--svc-api-burst=1000',
  `--service-account-private-key-file=${join(dir, 'data', 'service-account.key')}`,
];
const before: ChildProcess = spawn(process.execPath, managerArgs(BEFORE), { stdio: ['ignore', 'ignore', 'inherit'], cwd: BEFORE });
process.prependOnceListener('exit', () => before.kill('SIGKILL'));
log(`svc-controller-manager (before, ${BEFORE}) pid ${before.pid}; (after, ${repo}) pid ${plane.manager.pid}`);

const client = await Client.fromSvcconfig(plane.svcconfig, { userAgent: 'bench-manager-leases' });
for (let made = false; !made; ) {
  made = await client.create(builtin.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } }).then(
    () => true,
    (error: { code?: unknown }) => error.code === 409,
  );
}
// Created 20 at a time, each tried again until it is there: on a loaded machine the server may
// not accept a connection within the client's 10 s.
async function createLease(name: string): Promise<Lease> {
  for (;;) {
    try {
      return await client.create(builtin.leases, { apiVersion: 'coordination.svc.io/v1', kind: 'Lease', metadata: { name, namespace: NS }, spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: microTime(Date.now()) } } as Lease);
    } catch (error) {
      if ((error as { code?: unknown }).code === 409) return client.get(builtin.leases, name, { namespace: NS });
      await sleep(1000);
    }
  }
}
const leases: Lease[] = [];
for (let i = 0; i < LEASES; i += 20) leases.push(...(await Promise.all(Array.from({ length: Math.min(20, LEASES - i) }, (_, k) => createLease(`lease-${i + k}`)))));
log(`${LEASES} Leases created; renewing ${RATE} a second; load ${load()}`);

// Renewals, one every 1000/RATE ms in batches of 10 ms, each a PUT of the Lease as last written.
let renewed = 0;
let failed = 0;
let next = 0;
let running = true;
const renewals = (async () => {
  const perTick = RATE / 100;
  let owed = 0;
  for (let tick = performance.now(); running; ) {
    owed += perTick;
    while (owed >= 1) {
      owed -= 1;
      const i = next;
      next = (next + 1) % LEASES;
      const lease = leases[i]!;
      client
        .update(builtin.leases, { ...lease, spec: { ...lease.spec, renewTime: microTime(Date.now()) } })
        .then((written) => {
          leases[i] = written;
          renewed += 1;
        })
        .catch(() => (failed += 1));
    }
    tick += 10;
    await sleep(Math.max(0, tick - performance.now()));
  }
})();

await sleep(WARMUP_MS);
const pids = { before: before.pid!, after: plane.manager.pid! };
const results = [];
for (let round = 1; round <= ROUNDS; round++) {
  const loadBefore = load();
  const from = { before: cpuTicks(pids.before), after: cpuTicks(pids.after) };
  const renewedFrom = renewed;
  const fromAt = performance.now();
  await sleep(WINDOW_MS);
  const minutes = (performance.now() - fromAt) / 60_000;
  const count = renewed - renewedFrom;
  const cpu = (side: 'before' | 'after') => ((cpuTicks(pids[side]) - from[side]) * MS_PER_TICK) / 1000;
  const seconds = { before: cpu('before'), after: cpu('after') };
  const result = {
    round,
    renewalsInWindow: count,
    failedSoFar: failed,
    managerCpuSecondsPerMinute: { before: Number((seconds.before / minutes).toFixed(2)), after: Number((seconds.after / minutes).toFixed(2)) },
    managerCpuMsPerRenewal: { before: Number(((seconds.before * 1000) / count).toFixed(3)), after: Number(((seconds.after * 1000) / count).toFixed(3)) },
    rssMb: { before: Math.round(residentMb(pids.before).rss), after: Math.round(residentMb(pids.after).rss) },
    loadAverage: { before: loadBefore, after: load() },
  };
  log(JSON.stringify(result));
  results.push(result);
}
running = false;
await renewals;
console.log(JSON.stringify(results, null, 2));
before.kill('SIGTERM');
await client.close();
await plane.stop();
process.exit(0);
