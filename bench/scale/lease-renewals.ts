// The API server's CPU per node Lease renewal as the nodes make it (issue #26): `LEASES` Leases
// renewed round-robin at `RATE` a second (a node's 10 s at LEASES = 10 × RATE) through one
// protobuf client with `--api-connections` (64) sockets over HTTPS, each renewal a PUT of the
// Lease as last written with a new renewTime, answered in protobuf; watched as the controller
// manager watches them (a full protobuf informer, as node-lifecycle's, and a metadata-only one,
// as the garbage collector's). bench:updates measures a Lease PUT alone at saturation (plain
// HTTP, JSON, no watcher); this is a renewal at the nodes' pace with what surrounds it.
// WATCHES=full drops the metadata-only watch: the controller manager's one Lease watch since it
// shares the full informer with the garbage collector (docs/benchmarks.md, branch mgrlease).
// With AB_BEFORE=<checkout> a server of that checkout runs beside this one's, both renewed at
// the same time in every window, so the machine's load touches both alike (same-run A/B); the
// figure is each server's CPU (/proc, all threads) per renewal answered in the window.
//   AB_BEFORE=/tmp/before LEASES=2000 RATE=200 WINDOW_S=30 ROUNDS=5 npm run bench:lease-renewals
// With CONNECTIONS=<n> the renewals arrive as hollow nodes send them (the quiet machine's case,
// reproducible under load): n clients of one socket each (Lease i renewed through client
// i % n), one renewal in flight per socket, sent one at a time evenly spaced (a renewal every
// 1000/RATE ms, not RATE/100 together every 10 ms), so each tends to have a loop turn to itself;
// every socket is opened (a renewal each, 64 at a time) before the warm-up starts.
// Each server runs with the V8 flags of its checkout's svc-apiserver shebang, as installed. With
// AB_FLAGS='<flags>' (and no AB_BEFORE) two servers of this checkout run side by side, "before"
// with no V8 flags and "after" with these (a same-run A/B of flags); GC_TRACE=1 runs both under
// --trace-gc and counts their collections per 1,000 renewals (a count, not a time). JIT_TRACE=1
// runs them under --trace-opt --trace-deopt and counts, per 1,000 renewals in each window, the
// functions the optimizing compiler compiled and the deoptimizations (by function and reason):
// in a steady state both should be near 0, and a function that keeps coming back is CPU spent
// compiling and running slow code on every request.
// With NICE=<n> (e.g. -10; root) every thread of the servers and of this process runs at that
// nice level, so on a loaded machine they get a core when they want one, as on a quiet machine:
// the server's turns then carry what arrives in them, not what piled up while it waited for a core.
// With PROFILE_SERVER=<file>.cpuprofile (one side only) the server profiles itself over the
// last round and the split of that profile (bench/support/profile-split.ts) is printed.
// With STRACE_S=<s> the last round also counts the server's syscalls for s seconds
// (`strace -c -f -p`) and reports them per renewal: counts, which the machine's load does not move.
//   LEASES=5000 CONNECTIONS=5000 RATE=500 WINDOW_S=30 ROUNDS=3 STRACE_S=10 npm run bench:lease-renewals
// With GC_PAUSES=1 each window also sums the server's main-thread collection pauses by kind
// (bench/support/gc-pauses.ts), per renewal: the collector's share of the event loop.
// With ALLOC_S=<s> the last round also samples, for s seconds, where each server allocates (V8's
// sampling heap profiler, collected objects included: bench/support/allocation-sampling.ts), in
// bytes per renewal by function: the volume behind its scavenges.
// With CENSUS_S=<s> the last round also counts, for s seconds, the async resources each server
// creates (promises, ticks, immediates, timers: bench/support/async-census.ts) and where a sample
// of its promises is made, per renewal: counts, which the load does not move either (after the
// CPU window, since promise hooks slow every promise).
import { fork, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Lease } from '../../src/api/index.js';
import { builtin, Client, Informer, loadProtobufCodec } from '../../src/client/index.js';
import { cpuTicks, MS_PER_TICK, residentMb } from '../support/proc.js';
import type { AsyncCensus } from '../support/async-census.js';
import type { GcPauses } from '../support/gc-pauses.js';
import type { AllocationSites } from '../support/allocation-sampling.js';

const LEASES = Number(process.env['LEASES'] ?? 2000);
const RATE = Number(process.env['RATE'] ?? 200);
const WINDOW_MS = Number(process.env['WINDOW_S'] ?? 30) * 1000;
const ROUNDS = Number(process.env['ROUNDS'] ?? 4);
const WARMUP_MS = Number(process.env['WARMUP_S'] ?? 20) * 1000;
const CONNECTIONS = process.env['CONNECTIONS'] === undefined ? undefined : Number(process.env['CONNECTIONS']);
const AB_FLAGS = process.env['AB_FLAGS'];
// Node flags added to every server's (e.g. --perf-basic-prof, for `perf record -g -p <pid>`).
const SERVER_NODE_FLAGS = (process.env['SERVER_NODE_FLAGS'] ?? '').split(' ').filter(Boolean);
const GC_TRACE = process.env['GC_TRACE'] === '1';
const JIT_TRACE = process.env['JIT_TRACE'] === '1';
// The manager has watched Leases once since the mgrlease branch (the collector reads the full informer).
const WATCHES = process.env['WATCHES'] ?? 'full,metadata';
if (WATCHES !== 'full' && WATCHES !== 'full,metadata') throw new Error('WATCHES is full or full,metadata');
const GC_PAUSES = process.env['GC_PAUSES'] === '1';
const NICE = process.env['NICE'];
const PROFILE = process.env['PROFILE_SERVER'] !== undefined;
const STRACE_MS = Number(process.env['STRACE_S'] ?? 0) * 1000;
const CENSUS_MS = Number(process.env['CENSUS_S'] ?? 0) * 1000;
const ALLOC_MS = Number(process.env['ALLOC_S'] ?? 0) * 1000;
const here = fileURLToPath(new URL('../..', import.meta.url));
const before = process.env['AB_BEFORE'];
const load = () => loadavg().map((n) => n.toFixed(2)).join(' ');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const microTime = (ms: number) => `${new Date(ms).toISOString().slice(0, 23)}000Z`;
/** A made-up uid for node n's Lease owner (no Node exists: the servers run no controller). */
const nodeUid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

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
  /** The renewals' clients: `client` alone, or CONNECTIONS clients of one socket each. */
  readonly renewers: Client[];
  readonly informers: Informer<Lease>[];
  readonly last: Lease[];
  /** Collections seen in the server's --trace-gc output (GC_TRACE=1). */
  readonly collections: { scavenges: number; marks: number };
  /** Optimizing compiles and deoptimizations seen in the server's --trace-opt/--trace-deopt output since the window began (JIT_TRACE=1). */
  readonly jit: { compiled: Map<string, number>; deopts: Map<string, number> };
  renewed: number;
  failed: number;
}

/** CPU ticks of the process's main thread (its task id is its pid): the rest is V8's and libuv's helper threads. */
function mainThreadTicks(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

/** Every thread of `pid` (setpriority is per thread on Linux) at nice `level`. */
function renice(pid: number, level: string): void {
  const tids = readdirSync(`/proc/${pid}/task`);
  const result = spawnSync('renice', ['-n', level, '-p', ...tids], { stdio: ['ignore', 'ignore', 'pipe'] });
  if (result.status !== 0) throw new Error(`renice ${level} of ${pid} failed: ${result.stderr.toString()}`);
}

/** The V8 flags of a bin's shebang (`#!/usr/bin/env -S node --flag …`), as it runs installed. */
function shebangFlags(file: string): string[] {
  return /^#!\/usr\/bin\/env -S (?:\S+=\S+ )*node((?: --\S+)*)/.exec(readFileSync(file, 'utf8').split('\n', 1)[0]!)?.[1]?.trim().split(' ').filter((f) => f !== '') ?? [];
}

async function start(name: string, checkout: string, nodeFlags = shebangFlags(join(checkout, 'src/cli/svc-apiserver.ts'))): Promise<Side> {
  const server = fork(join(checkout, 'bench/controllers/server.ts'), [join(dir, name)], {
    cwd: checkout,
    execArgv: [...nodeFlags, ...SERVER_NODE_FLAGS, ...(GC_TRACE ? ['--trace-gc'] : []), ...(JIT_TRACE ? ['--trace-opt', '--trace-deopt'] : []), '--import', 'tsx'],
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  children.push(server);
  const lines = createInterface({ input: server.stdout! });
  const collections = { scavenges: 0, marks: 0 };
  const jit = { compiled: new Map<string, number>(), deopts: new Map<string, number>() };
  const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
  const { svcconfig } = JSON.parse(
    await new Promise<string>((resolve) =>
      lines.on('line', (line) => {
        if (line.startsWith('{')) return resolve(line);
        // --trace-gc's lines: "[pid:addr:n] 1234 ms: Scavenge 40.1 (…) -> …" or "Mark-Compact" / "Mark-sweep".
        if (/ ms: Scavenge/.test(line)) collections.scavenges++;
        else if (/ ms: Mark/.test(line)) collections.marks++;
        // "[completed compiling 0x… <JSFunction name (sfi = …)> (target TURBOFAN) …" and
        // "[bailout (kind: deopt-eager, reason: wrong map): begin. deoptimizing 0x… <JSFunction name (sfi = …)>, …".
        const compiled = /^\[completed compiling \S+ <JSFunction ?(\S*) \(sfi/.exec(line);
        if (compiled) bump(jit.compiled, compiled[1] || '(anonymous)');
        const deopt = /^\[bailout \(kind: ([^,]+), reason: ([^)]*)\): begin\. deoptimizing \S+ <JSFunction ?(\S*) \(sfi/.exec(line);
        if (deopt) bump(jit.deopts, `${deopt[3] || '(anonymous)'}: ${deopt[2]}`);
      }),
    ),
  ) as { svcconfig: string };
  const client = await Client.fromSvcconfig(svcconfig, { userAgent: 'bench-lease-renewals', codec: await loadProtobufCodec(), connections: 64 });
  const last: Lease[] = [];
  for (let i = 0; i < LEASES; i += 64) {
    const batch = Array.from({ length: Math.min(64, LEASES - i) }, (_, j) => i + j);
    last.push(
      ...(await Promise.all(
        batch.map((n) =>
          client.create(builtin.leases, {
            apiVersion: 'coordination.svc.io/v1',
            kind: 'Lease',
            // Owned by its Node, as a node agent's Lease is (src/nodeagent/node/node-lease.ts).
            metadata: { name: `node-${n}`, namespace: 'default', ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name: `node-${n}`, uid: nodeUid(n) }] },
            spec: { holderIdentity: `node-${n}`, leaseDurationSeconds: 40, renewTime: microTime(Date.now()) },
          }),
        ),
      )),
    );
  }
  const informers = [new Informer(client, builtin.leases), ...(WATCHES === 'full' ? [] : [new Informer(client, builtin.leases, { metadataOnly: true })])];
  for (const informer of informers) informer.start();
  await Promise.all(informers.map((informer) => informer.waitForSync()));
  const codec = await loadProtobufCodec();
  const renewers = CONNECTIONS === undefined ? [client] : await Promise.all(Array.from({ length: CONNECTIONS }, () => Client.fromSvcconfig(svcconfig, { userAgent: 'bench-lease-renewals', codec, connections: 1 })));
  return { name, server, client, renewers, informers, last, collections, jit, renewed: 0, failed: 0 };
}

const sides = before
  ? [await start('before', before), await start('after', here)]
  : AB_FLAGS !== undefined
    ? [await start('before', here, []), await start('after', here, AB_FLAGS.split(' ').filter(Boolean))]
    : [await start('this checkout', here)];
if (NICE !== undefined) for (const pid of [process.pid, ...sides.map((side) => side.server.pid!)]) renice(pid, NICE);
process.stderr.write(`${sides.map((s) => `${s.name} pid ${s.server.pid}`).join(', ')}; ${LEASES} Leases at ${RATE}/s; load ${load()}\n`);

/** Lease i renewed once through its client. */
const renewOnce = (side: Side, i: number): Promise<void> => {
  const lease = side.last[i]!;
  return side.renewers[i % side.renewers.length]!.update(builtin.leases, { ...lease, spec: { ...lease.spec, renewTime: microTime(Date.now()) } }).then(
    (renewed) => {
      side.last[i] = renewed;
      side.renewed++;
    },
    () => void side.failed++,
  );
};

// Every client's socket opened (its TLS handshake done) before the pacing starts, 64 at a time.
if (CONNECTIONS !== undefined) {
  for (const side of sides) {
    for (let i = 0; i < Math.min(LEASES, CONNECTIONS); i += 64) await Promise.all(Array.from({ length: Math.min(64, LEASES - i, CONNECTIONS - i) }, (_, j) => renewOnce(side, i + j)));
  }
  process.stderr.write(`${CONNECTIONS} sockets open per server; load ${load()}\n`);
}

// Renewals round-robin; a Lease whose last renewal is still in flight waits its next turn.
let next = 0;
const inFlight = sides.map(() => new Set<number>());
const renew = (): void => {
  const i = next++ % LEASES;
  sides.forEach((side, s) => {
    if (inFlight[s]!.has(i)) return;
    inFlight[s]!.add(i);
    void renewOnce(side, i).finally(() => inFlight[s]!.delete(i));
  });
};
// Without CONNECTIONS: RATE/100 renewals together every 10 ms. With it: each when it is due
// (a 1 ms timer sends those owed by now, usually one), so they arrive spread as the nodes' do.
const paceStart = performance.now();
let sent = 0;
const ticker =
  CONNECTIONS === undefined
    ? setInterval(() => {
        for (let k = 0; k < RATE / 100; k++) renew();
      }, 10)
    : setInterval(() => {
        const owed = Math.floor(((performance.now() - paceStart) * RATE) / 1000);
        // A stall of the bench (GC, a loaded machine) is not made up in a burst.
        if (owed - sent > RATE / 50) sent = owed - 1;
        while (sent < owed) {
          sent++;
          renew();
        }
      }, 1);

/** The server's syscalls over `ms` (strace -c -f), by name: calls. */
async function syscalls(pid: number, ms: number): Promise<Map<string, number>> {
  const strace = spawn('strace', ['-c', '-f', '-p', String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
  let out = '';
  strace.stderr!.on('data', (chunk: Buffer) => void (out += chunk.toString()));
  await sleep(ms);
  strace.kill('SIGINT');
  await new Promise((resolve) => strace.once('exit', resolve));
  const calls = new Map<string, number>();
  // strace -c's table: % time, seconds, usecs/call, calls, [errors,] syscall.
  for (const line of out.split('\n')) {
    const fields = line.trim().split(/\s+/);
    if (fields.length >= 5 && /^\d+\.\d+$/.test(fields[0]!) && fields.at(-1) !== 'total') calls.set(fields.at(-1)!, Number(fields[3]));
  }
  return calls;
}

/** Each server's syscalls per renewal over STRACE_MS, the sides traced one after the other. */
async function traceRound(): Promise<Record<string, string>> {
  const row: Record<string, string> = {};
  for (const side of sides) {
    const renewedBefore = side.renewed;
    const calls = await syscalls(side.server.pid!, STRACE_MS);
    const renewals = Math.max(1, side.renewed - renewedBefore);
    const per = [...calls].filter(([, n]) => n / renewals >= 0.05).sort((a, b) => b[1] - a[1]);
    row[`${side.name} syscalls per renewal`] = per.map(([name, n]) => `${name} ${(n / renewals).toFixed(2)}`).join(', ');
  }
  return row;
}

/** Each server's async resources per renewal over CENSUS_MS, the sides counted one after the other. */
async function censusRound(): Promise<Record<string, string>> {
  const row: Record<string, string> = {};
  for (const side of sides) {
    const renewedBefore = side.renewed;
    side.server.send('census-start');
    await sleep(CENSUS_MS);
    const answer = new Promise<{ census: AsyncCensus }>((resolve) => side.server.once('message', (m) => resolve(m as { census: AsyncCensus })));
    side.server.send('census-stop');
    const { census } = await answer;
    const renewals = Math.max(1, side.renewed - renewedBefore);
    const per = (n: number) => (n / renewals).toFixed(2);
    row[`${side.name} async resources per renewal`] = Object.entries(census.byType)
      .filter(([, n]) => n / renewals >= 0.05)
      .map(([type, n]) => `${type} ${per(n)}`)
      .join(', ');
    row[`${side.name} promises per renewal by site`] = census.promiseSites
      .filter(([, n]) => n / renewals >= 0.1)
      .map(([site, n]) => `${per(n)} ${site}`)
      .join('; ');
  }
  return row;
}

/** Each server's allocations per renewal over ALLOC_MS, by the allocating function, the sides one after the other. */
async function allocationRound(): Promise<Record<string, string>> {
  const row: Record<string, string> = {};
  for (const side of sides) {
    const renewedBefore = side.renewed;
    side.server.send('alloc-start');
    await sleep(ALLOC_MS);
    const answer = new Promise<{ alloc: AllocationSites }>((resolve) => {
      const take = (m: unknown) => {
        if ((m as { alloc?: unknown }).alloc === undefined) return;
        side.server.off('message', take);
        resolve(m as { alloc: AllocationSites });
      };
      side.server.on('message', take);
    });
    side.server.send('alloc-stop');
    const { alloc } = await answer;
    const renewals = Math.max(1, side.renewed - renewedBefore);
    const kb = (bytes: number) => (bytes / renewals / 1024).toFixed(1);
    row[`${side.name} KiB allocated per renewal`] = kb(alloc.bytes);
    row[`${side.name} KiB per renewal by site`] = alloc.sites.slice(0, 25).map(([site, bytes]) => `${kb(bytes)} ${site}`).join('; ');
  }
  return row;
}

await sleep(WARMUP_MS);
const rounds: Record<string, number | string>[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const loadBefore = load();
  const from = sides.map((side) => ({ ticks: cpuTicks(side.server.pid!), main: mainThreadTicks(side.server.pid!), renewed: side.renewed, ...side.collections }));
  for (const side of sides) {
    side.jit.compiled.clear();
    side.jit.deopts.clear();
  }
  if (GC_PAUSES) for (const side of sides) side.server.send('gc-start');
  const profiled = round === ROUNDS - 1 && PROFILE && sides.length === 1 ? sides[0]!.server : undefined;
  profiled?.send('profile-start');
  await sleep(WINDOW_MS);
  const row: Record<string, number | string> = { round, load: `${loadBefore} → ${load()}` };
  sides.forEach((side, s) => {
    const renewals = side.renewed - from[s]!.renewed;
    row[`${side.name} renewals/s`] = Math.round(renewals / (WINDOW_MS / 1000));
    const ticks = cpuTicks(side.server.pid!) - from[s]!.ticks;
    row[`${side.name} CPU µs per renewal`] = Math.round((ticks * MS_PER_TICK * 1000) / Math.max(1, renewals));
    row[`${side.name} helper threads' share`] = Number((1 - (mainThreadTicks(side.server.pid!) - from[s]!.main) / Math.max(1, ticks)).toFixed(3));
    row[`${side.name} RSS MB`] = residentMb(side.server.pid!).rss;
    if (GC_TRACE) {
      const per1000 = (n: number) => Number(((n * 1000) / Math.max(1, renewals)).toFixed(2));
      row[`${side.name} scavenges / mark-compacts per 1,000 renewals`] = `${per1000(side.collections.scavenges - from[s]!.scavenges)} / ${per1000(side.collections.marks - from[s]!.marks)}`;
    }
    if (JIT_TRACE) {
      const total = (map: Map<string, number>) => [...map.values()].reduce((a, b) => a + b, 0);
      const top = (map: Map<string, number>) => [...map].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([what, n]) => `${what} ×${n}`).join('; ');
      row[`${side.name} optimized / deoptimized per 1,000 renewals`] = `${((total(side.jit.compiled) * 1000) / Math.max(1, renewals)).toFixed(2)} / ${((total(side.jit.deopts) * 1000) / Math.max(1, renewals)).toFixed(2)}`;
      row[`${side.name} deoptimizations`] = top(side.jit.deopts);
      row[`${side.name} optimized`] = top(side.jit.compiled);
    }
  });
  if (GC_PAUSES) {
    for (const side of sides) {
      const answer = new Promise<{ gc: GcPauses }>((resolve) => {
        const take = (m: unknown) => {
          if ((m as { gc?: unknown }).gc === undefined) return;
          side.server.off('message', take);
          resolve(m as { gc: GcPauses });
        };
        side.server.on('message', take);
      });
      side.server.send('gc-stop');
      const { gc } = await answer;
      const renewals = Math.max(1, (row[`${side.name} renewals/s`] as number) * (WINDOW_MS / 1000));
      row[`${side.name} GC pause µs per renewal`] = Object.entries(gc)
        .map(([kind, { count, ms }]) => `${kind} ${((ms * 1000) / renewals).toFixed(1)} (${count})`)
        .join(', ');
    }
  }
  // Stopping the profile (its encoding) and strace cost the server CPU: both come after the window's figures.
  if (profiled) {
    const split = new Promise((resolve) => profiled.once('message', resolve));
    profiled.send('profile-stop');
    process.stderr.write(`profile: ${JSON.stringify(await split)}\n`);
  }
  if (round === ROUNDS - 1 && STRACE_MS > 0) Object.assign(row, await traceRound());
  if (round === ROUNDS - 1 && CENSUS_MS > 0) Object.assign(row, await censusRound());
  if (round === ROUNDS - 1 && ALLOC_MS > 0) Object.assign(row, await allocationRound());
  if (sides.length === 2) row['after / before'] = Number(((row['after CPU µs per renewal'] as number) / (row['before CPU µs per renewal'] as number)).toFixed(3));
  process.stderr.write(`${JSON.stringify(row)}\n`);
  rounds.push(row);
}
clearInterval(ticker);
const ratios = rounds.map((r) => r['after / before']).filter((r): r is number => typeof r === 'number').sort((a, b) => a - b);
console.log(JSON.stringify({ leases: LEASES, rate: RATE, connections: CONNECTIONS ?? 64, windowS: WINDOW_MS / 1000, rounds, medianRatio: ratios[Math.floor(ratios.length / 2)], failed: Object.fromEntries(sides.map((s) => [s.name, s.failed])) }, null, 2));
for (const side of sides) for (const informer of side.informers) informer.stop();
for (const side of sides) for (const renewer of side.renewers) if (renewer !== side.client) void renewer.close();
for (const side of sides) side.server.send('stop');
await sleep(2000);
process.exit(0);
