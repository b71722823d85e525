// The API server's CPU per node Lease renewal as the nodes make it (issue #26): `LEASES` Leases
// renewed round-robin at `RATE` a second (a node's 10 s at LEASES = 10 × RATE) through one
// protobuf client with `--api-connections` (64) sockets over HTTPS, each renewal a PUT of the
// Lease as last written with a new renewTime, answered in protobuf; watched as the controller
// manager watches them (a full protobuf informer, as node-lifecycle's, and a metadata-only one,
// as the garbage collector's). bench:updates measures a Lease PUT alone at saturation (plain
// HTTP, JSON, no watcher); this is a renewal at the nodes' pace with what surrounds it.
// With AB_BEFORE=<checkout> a server of that checkout runs beside this one's, both renewed at
// the same time in every window, so the machine's load touches both alike (same-run A/B); the
// figure is each server's CPU (/proc, all threads) per renewal answered in the window.
//   AB_BEFORE=/tmp/before LEASES=2000 RATE=200 WINDOW_S=30 ROUNDS=5 npm run bench:lease-renewals
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Lease } from '../../src/api/index.js';
import { builtin, Client, Informer, loadProtobufCodec } from '../../src/client/index.js';
import { cpuTicks, MS_PER_TICK } from '../support/proc.js';

const LEASES = Number(process.env['LEASES'] ?? 2000);
const RATE = Number(process.env['RATE'] ?? 200);
const WINDOW_MS = Number(process.env['WINDOW_S'] ?? 30) * 1000;
const ROUNDS = Number(process.env['ROUNDS'] ?? 4);
const WARMUP_MS = Number(process.env['WARMUP_S'] ?? 20) * 1000;
const here = fileURLToPath(new URL('../..', import.meta.url));
const before = process.env['AB_BEFORE'];
const load = () => loadavg().map((n) => n.toFixed(2)).join(' ');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const microTime = (ms: number) => `${new Date(ms).toISOString().slice(0, 23)}000Z`;

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-lease-renewals-'));
const children: ChildProcess[] = [];
process.once('exit', () => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

interface Side {
  readonly name: string;
  readonly server: ChildProcess;
  readonly client: Client;
  readonly informers: Informer<Lease>[];
  readonly last: Lease[];
  renewed: number;
  failed: number;
}

async function start(name: string, checkout: string): Promise<Side> {
  const server = fork(join(checkout, 'bench/controllers/server.ts'), [join(dir, name)], { cwd: checkout, execArgv: ['--import', 'tsx'], stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  children.push(server);
  const { svcconfig } = JSON.parse(await new Promise<string>((resolve) => createInterface({ input: server.stdout! }).once('line', resolve))) as { svcconfig: string };
  const client = await Client.fromSvcconfig(svcconfig, { userAgent: 'bench-lease-renewals', codec: await loadProtobufCodec(), connections: 64 });
  const last: Lease[] = [];
  for (let i = 0; i < LEASES; i += 64) {
    const batch = Array.from({ length: Math.min(64, LEASES - i) }, (_, j) => i + j);
    last.push(
      ...(await Promise.all(
        batch.map((n) =>
          client.create(builtin.leases, { apiVersion: 'coordination.svc.io/v1', kind: 'Lease', metadata: { name: `node-${n}`, namespace: 'default' }, spec: { holderIdentity: `node-${n}`, leaseDurationSeconds: 40, renewTime: microTime(Date.now()) } }),
        ),
      )),
    );
  }
  const informers = [new Informer(client, builtin.leases), new Informer(client, builtin.leases, { metadataOnly: true })];
  for (const informer of informers) informer.start();
  await Promise.all(informers.map((informer) => informer.waitForSync()));
  return { name, server, client, informers, last, renewed: 0, failed: 0 };
}

const sides = before ? [await start('before', before), await start('after', here)] : [await start('this checkout', here)];
process.stderr.write(`${sides.map((s) => `${s.name} pid ${s.server.pid}`).join(', ')}; ${LEASES} Leases at ${RATE}/s; load ${load()}\n`);

// Renewals round-robin, a tick every 10 ms; a Lease whose last renewal is still in flight waits its next turn.
let next = 0;
const inFlight = sides.map(() => new Set<number>());
const ticker = setInterval(() => {
  const n = RATE / 100;
  for (let k = 0; k < n; k++) {
    const i = next++ % LEASES;
    sides.forEach((side, s) => {
      if (inFlight[s]!.has(i)) return;
      inFlight[s]!.add(i);
      const lease = side.last[i]!;
      side.client
        .update(builtin.leases, { ...lease, spec: { ...lease.spec, renewTime: microTime(Date.now()) } })
        .then(
          (renewed) => {
            side.last[i] = renewed;
            side.renewed++;
          },
          () => void side.failed++,
        )
        .finally(() => inFlight[s]!.delete(i));
    });
  }
}, 10);

await sleep(WARMUP_MS);
const rounds: Record<string, number | string>[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const loadBefore = load();
  const from = sides.map((side) => ({ ticks: cpuTicks(side.server.pid!), renewed: side.renewed }));
  await sleep(WINDOW_MS);
  const row: Record<string, number | string> = { round, load: `${loadBefore} → ${load()}` };
  sides.forEach((side, s) => {
    const renewals = side.renewed - from[s]!.renewed;
    row[`${side.name} renewals/s`] = Math.round(renewals / (WINDOW_MS / 1000));
    row[`${side.name} CPU µs per renewal`] = Math.round(((cpuTicks(side.server.pid!) - from[s]!.ticks) * MS_PER_TICK * 1000) / Math.max(1, renewals));
  });
  if (sides.length === 2) row['after / before'] = Number(((row['after CPU µs per renewal'] as number) / (row['before CPU µs per renewal'] as number)).toFixed(3));
  process.stderr.write(`${JSON.stringify(row)}\n`);
  rounds.push(row);
}
clearInterval(ticker);
const ratios = rounds.map((r) => r['after / before']).filter((r): r is number => typeof r === 'number').sort((a, b) => a - b);
console.log(JSON.stringify({ leases: LEASES, rate: RATE, windowS: WINDOW_MS / 1000, rounds, medianRatio: ratios[Math.floor(ratios.length / 2)], failed: Object.fromEntries(sides.map((s) => [s.name, s.failed])) }, null, 2));
for (const side of sides) for (const informer of side.informers) informer.stop();
for (const side of sides) side.server.send('stop');
await sleep(2000);
process.exit(0);
