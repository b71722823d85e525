// A Service selecting PODS pods while FLIP_RATE pod readiness flips per second hit it for SECONDS
// (issue #24): slice updates per second, the loop's writes per flip, and how long a flip takes to
// be visible in a slice (patch answered → slice event showing it, read by a watch of its own),
// once with --endpointslice-updates-batch-period 0 and once with BATCH_MS. Three processes, as in
// a cluster: a real svc-apiserver (bench/controllers/server.ts: HTTPS, memory store), the load
// (endpointslice-load.ts: the observer, and the flipper in a worker thread of it) and this one,
// which runs the loop alone on its own client and times each sync. Each flip's latency is split
// where it is spent: answered → the loop's pod event → its sync starts → the sync's desired slices
// computed → the write of its slice answered → the observer's event. CPU per flip of each process
// (from /proc) over the flipping window.
//   npm run bench:endpointslice          (PODS=5000, FLIP_RATE=1000, SECONDS=10, BATCH_MS=1000, SETTLE_S=120,
//                                         COOLDOWN_MS=2000: a pod is not flipped again sooner;
//                                         WRITES_IN_FLIGHT=n: a sync's slice writes in flight at once,
//                                         WRITER=phase: a whole phase at once;
//                                         PHASES=0,1000 overrides the batch periods run, PHASES=0::planned,0
//                                         writes the slices' conditions as planned, then as they are when sent;
//                                         PROFILE_SERVER=<file>.cpuprofile: the API server's CPU profile
//                                         over the flips (the last phase's is kept), split by innermost
//                                         svc file; the server's store reads per flip are always printed)
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Subject } from 'rxjs';
import { builtin, Client, DiscoveryCache, EventRecorder, InformerFactory } from '../../src/client/index.js';
import { endpointSliceController, type SyncReport } from '../../controllers/index.js';
import type { PhaseResult } from './endpointslice-load.js';
import { quantile } from './fill.js';
import type { splitProfile } from '../support/profile-split.js';

const PODS = Number(process.env['PODS'] ?? 5_000);
const FLIP_RATE = Number(process.env['FLIP_RATE'] ?? 1_000);
const SECONDS = Number(process.env['SECONDS'] ?? 10);
const BATCH_MS = Number(process.env['BATCH_MS'] ?? 1_000);
/**
 * The phases run: `batch period[:writes in flight[:planned]]`, comma-separated (a same-run A/B of
 * writers: `PHASES=0:1,0:8`; `0:4:planned` writes the conditions as planned, not as they are when
 * each write is sent: `PHASES=0:4:planned,0:4`; an empty width is the loop's default).
 */
const PHASES = (process.env['PHASES'] ?? `0,${BATCH_MS}`).split(',').map((entry) => {
  const [batch, inFlight, planned] = entry.split(':');
  return { batchMs: Number(batch), inFlight: inFlight === undefined || inFlight === '' ? undefined : inFlight === 'inf' ? Infinity : Number(inFlight), planned: planned === 'planned' };
});
/** `WRITES_IN_FLIGHT=n`: a sync's slice writes in flight at once (`WRITER=phase`: a whole phase; default: the loop's). */
const WRITES_IN_FLIGHT = process.env['WRITER'] === 'phase' ? Infinity : process.env['WRITES_IN_FLIGHT'] !== undefined ? Number(process.env['WRITES_IN_FLIGHT']) : undefined;
const NS = 'bench';

const ipOf = (i: number): string => `10.${64 + Math.floor(i / 65_536)}.${Math.floor(i / 256) % 256}.${i % 256}`;
const epoch = (): number => performance.timeOrigin + performance.now();

// The API server, a process of its own.
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-endpointslice-'));
const server = spawn(process.execPath, ['--import', 'tsx', new URL('./server.ts', import.meta.url).pathname, dir, 'memory'], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
process.once('exit', () => {
  server.kill();
  rmSync(dir, { recursive: true, force: true });
});
const { svcconfig } = JSON.parse(await new Promise<string>((resolve) => createInterface({ input: server.stdout! }).once('line', resolve))) as { svcconfig: string };
/** Asks the API server process something over IPC (bench/controllers/server.ts) and waits for the answer with `field`. */
const askServer = <T>(message: string, field: string): Promise<T> =>
  new Promise((resolve) => {
    const listener = (answer: Record<string, unknown>) => {
      if (!(field in answer)) return;
      server.off('message', listener);
      resolve(answer[field] as T);
    };
    server.on('message', listener);
    server.send(message);
  });
const admin = await Client.fromSvcconfig(svcconfig, { userAgent: 'bench-setup' });
console.log(`node ${process.version}, ${process.platform}/${process.arch}; svc-apiserver in a child process (memory store, HTTPS loopback); ${PODS} pods, ${FLIP_RATE} flips/s asked for ${SECONDS} s; slice writes in flight: ${WRITES_IN_FLIGHT ?? "the loop's default"}; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}\n`);

async function inParallel(count: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (next < count) await work(next++);
  }));
}

await admin.create(builtin.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
// No serviceaccount loop runs: the pods' ServiceAccount is made here (the server's admission asks for it).
await admin.create(builtin.serviceAccounts, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: NS } }, { namespace: NS });
await admin.create(builtin.services, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'big', namespace: NS }, spec: { selector: { app: 'big' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] } }, { namespace: NS });
const setupStart = performance.now();
await inParallel(PODS, async (i) => {
  await admin.create(builtin.pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: `p-${i}`, namespace: NS, labels: { app: 'big' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } }, { namespace: NS });
  await admin.patchStatus(builtin.pods, `p-${i}`, { status: { phase: 'Running', podIP: ipOf(i), podIPs: [{ ip: ipOf(i) }], conditions: [{ type: 'Ready', status: 'True' }] } }, { namespace: NS });
});
console.log(`setup: ${PODS} pods created and Running in ${((performance.now() - setupStart) / 1000).toFixed(1)} s\n`);

// The load: observer and flipper, a process of their own.
type LoadMessage =
  | { kind: 'ready' | 'synced' }
  | { kind: 'flipping'; at: number }
  | { kind: 'flipped'; at: number; seconds: number }
  | { kind: 'error'; error: string }
  | { kind: 'done'; result: PhaseResult };
const load = spawn(process.execPath, ['--import', 'tsx', new URL('./endpointslice-load.ts', import.meta.url).pathname, svcconfig], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
process.once('exit', () => load.kill());
const fromLoad = (kind: LoadMessage['kind']): Promise<LoadMessage> =>
  new Promise((resolve, reject) => {
    const listener = (message: LoadMessage) => {
      if (message.kind === 'error') reject(new Error(message.error));
      if (message.kind !== kind) return;
      load.off('message', listener);
      resolve(message);
    };
    load.on('message', listener);
  });
await fromLoad('ready');

/** CPU time (ms) of a child process so far, from /proc (Linux). */
function cpuOf(child: ChildProcess): number {
  const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
}
/** The kernel's share of a child's CPU time so far (ms): its syscalls (sockets, TLS records' writes). */
function systemCpuOf(child: ChildProcess): number {
  const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[12]) * 1000) / 100;
}
const ownCpu = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const cpuNow = () => ({ loop: ownCpu(), server: cpuOf(server), serverSystem: systemCpuOf(server), load: cpuOf(load) });

interface Recorded {
  readonly syncs: (SyncReport & { readonly byPod: Map<number, { at: number; ready: boolean }> })[];
  /** The loop's pod events per pod: when, and the Ready it showed. */
  readonly podEvents: Map<number, { at: number; ready: boolean }[]>;
}

async function phase(batchMs: number, inFlight: number | undefined, planned: boolean) {
  const client = await Client.fromSvcconfig(svcconfig, { userAgent: `endpointslice-${batchMs}` });
  const stop$ = new Subject<void>();
  let watchErrors = 0;
  const informers = new InformerFactory(client, { onError: () => watchErrors++ });
  const events = new EventRecorder({ client, component: 'endpointslice-controller' });
  const outcomes = new Map<string, number>();
  const recorded: Recorded = { syncs: [], podEvents: new Map() };
  const origin = performance.timeOrigin;
  const onSync = (_key: string, sync: SyncReport) => {
    const byPod = new Map<number, { at: number; ready: boolean }>();
    for (const { slice, at } of sync.written) for (const e of slice.endpoints ?? []) byPod.set(Number(e.targetRef!.name!.slice(2)), { at: origin + at, ready: e.conditions?.ready === true });
    recorded.syncs.push({ ...sync, startedAt: origin + sync.startedAt, computedAt: origin + sync.computedAt, endedAt: origin + sync.endedAt, byPod });
  };
  const podEvents = informers.informer(builtin.pods).events$.subscribe((event) => {
    if (event.type === 'deleted' || event.type === 'resync') return;
    const i = Number(event.object.metadata.name!.slice(2));
    const ready = event.object.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
    let list = recorded.podEvents.get(i);
    if (!list) recorded.podEvents.set(i, (list = []));
    list.push({ at: epoch(), ready });
  });
  const loop = endpointSliceController(
    { name: 'endpointslice-controller', client, informers, discovery: new DiscoveryCache(client), events, stop$, controllerDefaults: () => ({}) },
    { concurrency: 5, batchPeriodMs: batchMs, ...(inFlight !== undefined ? { writesInFlight: inFlight } : {}), conditionsAtWrite: !planned, onSync },
  ).subscribe((result) => {
    const what = result.type === 'retry' ? `retry (${(result.error as { code?: number }).code ?? String(result.error)})` : result.type;
    outcomes.set(what, (outcomes.get(what) ?? 0) + 1);
    if (result.type !== 'awaitChange') process.stderr.write(`loop: ${what}\n`);
  });

  const finished = fromLoad('done');
  load.send({ kind: 'phase' });
  await fromLoad('synced');
  const syncsBefore = recorded.syncs.length;
  await fromLoad('flipping');
  const cpuStart = cpuNow();
  const flippingAt = epoch();
  await askServer('counts', 'counts');
  server.send('profile-start');
  const flipped = (await fromLoad('flipped')) as { at: number; seconds: number };
  const cpuEnd = cpuNow();
  const storeCalls = await askServer<Record<string, number>>('counts', 'counts');
  const profile = await askServer<ReturnType<typeof splitProfile> | null>('profile-stop', 'profile');
  const { result } = (await finished) as { result: PhaseResult };
  stop$.next();
  loop.unsubscribe();
  podEvents.unsubscribe();
  informers.stop();
  events.stop();
  const during = recorded.syncs.slice(syncsBefore).filter((s) => s.startedAt >= flippingAt - 1000);
  return { batchMs, inFlight, planned, result, recorded, during, outcomes, watchErrors, storeCalls, profile, cpu: { loop: cpuEnd.loop - cpuStart.loop, server: cpuEnd.server - cpuStart.server, serverSystem: cpuEnd.serverSystem - cpuStart.serverSystem, load: cpuEnd.load - cpuStart.load }, flipSeconds: flipped.seconds };
}

const STAGES = ['answered → loop pod event', 'pod event → sync start (queue)', 'sync start → desired computed', 'computed → its slice written', 'slice written → observer event'] as const;

/** Splits each seen flip's latency by the loop's records; flips the records cannot place are counted apart. */
function split(result: PhaseResult, recorded: Recorded) {
  const syncs = [...recorded.syncs].sort((a, b) => a.startedAt - b.startedAt);
  const rows: { total: number; stages: number[] }[] = [];
  let unplaced = 0;
  let carried = 0;
  for (let k = 0; k < result.flips.length; k += 5) {
    const [i, value, sentAt, answeredAt, seenAt] = result.flips.slice(k, k + 5) as [number, number, number, number, number];
    if (seenAt === null || Number.isNaN(seenAt)) continue;
    const ready = value === 1;
    const event = recorded.podEvents.get(i)?.find((e) => e.ready === ready && e.at >= sentAt);
    // The first write of its slice after the loop saw the flip: by the sync running then (its
    // write sent after the event carries the pod's conditions as they are then), or a later one.
    let s = event ? syncs.findIndex((sync) => sync.endedAt >= event.at) : -1;
    let written: { at: number; ready: boolean } | undefined;
    for (; s >= 0 && s < syncs.length; s++) {
      written = syncs[s]!.byPod.get(i);
      if (written?.ready === ready && written.at >= event!.at) break;
    }
    if (!event || s < 0 || s >= syncs.length || !written) {
      unplaced++;
      continue;
    }
    const sync = syncs[s]!;
    if (sync.startedAt < event.at) {
      // Carried by the sync under way: no queue, no computation of its own.
      carried++;
      rows.push({ total: seenAt - answeredAt, stages: [event.at - answeredAt, 0, 0, written.at - event.at, seenAt - written.at] });
    } else rows.push({ total: seenAt - answeredAt, stages: [event.at - answeredAt, sync.startedAt - event.at, sync.computedAt - sync.startedAt, written.at - sync.computedAt, seenAt - written.at] });
  }
  rows.sort((a, b) => a.total - b.total);
  const slowest = rows.slice(Math.floor(rows.length * 0.99));
  return {
    unplaced,
    carried,
    placed: rows.length,
    stages: STAGES.map((name, n) => {
      const values = rows.map((r) => r.stages[n]!).sort((a, b) => a - b);
      return { name, p50: quantile(values, 0.5), p99: quantile(values, 0.99), slowest: slowest.reduce((sum, r) => sum + r.stages[n]!, 0) / Math.max(1, slowest.length) };
    }),
  };
}

const results = [];
for (const { batchMs, inFlight, planned } of PHASES) {
  const r = await phase(batchMs, inFlight ?? WRITES_IN_FLIGHT, planned);
  results.push(r);
  const { result, during } = r;
  const latencies: number[] = [];
  for (let k = 0; k < result.flips.length; k += 5) if (result.flips[k + 4] !== null && !Number.isNaN(result.flips[k + 4])) latencies.push(result.flips[k + 4]! - result.flips[k + 3]!);
  latencies.sort((a, b) => a - b);
  const answered = result.flips.length / 5;
  const writes = during.reduce((n, s) => n + s.writes.created + s.writes.updated + s.writes.deleted, 0);
  const computeMs = during.map((s) => s.computedAt - s.startedAt).sort((a, b) => a - b);
  const syncMs = during.map((s) => s.endedAt - s.startedAt).sort((a, b) => a - b);
  const placed = split(result, r.recorded);
  Object.assign(r, { latencies, answered, writes, computeMs, syncMs, placed });
  console.log(`\nbatch ${batchMs} ms, writes in flight ${r.inFlight ?? 'default'}, conditions ${planned ? 'as planned' : 'at write'}: ${answered} flips answered (${result.failed} failed) in ${result.seconds.toFixed(1)} s = ${(answered / result.seconds).toFixed(0)}/s; syncs ${[...r.outcomes].map(([what, n]) => `${what} ${n}`).join(', ')}; watch errors loop ${r.watchErrors}, observer ${result.watchErrors}`);
  console.log(`  syncs from the first flip: ${during.length}, ${writes} slice writes (${(writes / Math.max(1, during.length)).toFixed(1)} a sync); a sync's computation p50 ${quantile(computeMs, 0.5).toFixed(1)} ms, max ${(computeMs.at(-1) ?? 0).toFixed(1)} ms; a sync's whole time p50 ${quantile(syncMs, 0.5).toFixed(0)} ms, max ${(syncMs.at(-1) ?? 0).toFixed(0)} ms`);
  console.log(`  CPU over the ${r.flipSeconds.toFixed(1)} s of flips: loop process ${r.cpu.loop.toFixed(0)} ms (${(r.cpu.loop / answered).toFixed(3)} ms a flip), API server ${r.cpu.server.toFixed(0)} ms (${(r.cpu.server / answered).toFixed(3)} a flip, of which system ${(r.cpu.serverSystem / answered).toFixed(3)}), load ${r.cpu.load.toFixed(0)} ms (${(r.cpu.load / answered).toFixed(3)} a flip); load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  console.log(`  the API server's store calls over the flips (per flip): ${Object.entries(r.storeCalls).sort(([, a], [, b]) => b - a).map(([what, n]) => `${what} ${n} (${(n / answered).toFixed(3)})`).join(', ')}`);
  if (r.profile) console.log(`  the API server's profile over the flips: busy ${r.profile.busyMs} ms of ${r.profile.sampledMs} ms sampled\n${JSON.stringify({ shares: r.profile.shares, byInnermostSvcFile: r.profile.byInnermostSvcFile, topSelf: r.profile.topSelf }, null, 1)}`);
  if (result.disagreeing) console.log(`  unconverged: endpoints disagreeing with the pods: server ${result.disagreeing.server}, observer ${result.disagreeing.observer}`);
  console.log(`  where a flip waits (${placed.placed} flips placed, ${placed.unplaced} not; ${placed.carried} written by the sync under way when the loop saw them):`);
  console.log('  | stage | p50 (ms) | p99 (ms) | mean over the slowest 1 % (ms) |');
  console.log('  | --- | --- | --- | --- |');
  for (const stage of placed.stages) console.log(`  | ${stage.name} | ${stage.p50.toFixed(0)} | ${stage.p99.toFixed(0)} | ${stage.slowest.toFixed(0)} |`);
}
load.send({ kind: 'stop' });
server.send('stop');

console.log('\n| batch period | writes in flight | conditions | flips | flips/s reached | slice writes | slice writes/s | writes per flip | flip → slice p50 (ms) | p99 (ms) | max (ms) | not seen (superseded; converged) | server agrees after load (ms) | observer settle after load (ms) |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const r of results as (typeof results[number] & { latencies: number[]; answered: number; writes: number })[]) {
  const { result } = r;
  const unseen = r.answered - r.latencies.length;
  console.log(
    `| ${r.batchMs} ms | ${r.inFlight ?? 'default'} | ${r.planned ? 'as planned' : 'at write'} | ${r.answered} | ${(r.answered / result.seconds).toFixed(0)} | ${r.writes} | ${(r.writes / result.seconds).toFixed(0)} | ${(r.writes / r.answered).toFixed(3)} | ${quantile(r.latencies, 0.5).toFixed(0)} | ${quantile(r.latencies, 0.99).toFixed(0)} | ${(r.latencies.at(-1) ?? 0).toFixed(0)} | ${unseen} (${result.superseded}; ${result.converged}) | ${result.serverMs === undefined ? '> settle cap' : result.serverMs.toFixed(0)} | ${result.convergeMs.toFixed(0)} |`,
  );
}
process.exit(0);
