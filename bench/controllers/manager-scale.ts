// The controller manager with every loop (`--controllers=*`) over PODS pods in SETS ReplicaSets
// (issue #22: RSS ≤ 200 MB, idle CPU ≤ 2 % at steady state). Three processes, so the manager's
// RSS and CPU are its own: a real svc-apiserver (bench/controllers/server.ts: HTTPS, sqlite in a
// temporary data dir), `svc-controller-manager` run through its CLI (src/cli, under tsx) with
// --svc-api-qps/--svc-api-burst raised so filling is not what the run waits on, and this driver,
// which creates the ReplicaSets and waits until every one reports its pods. No node runs the pods:
// they stay Pending (the steady state measured is the manager's, not a kubelet's). Then the
// manager's RSS (/proc/<pid>/status VmRSS) and CPU (utime + stime of /proc/<pid>/stat over
// IDLE_SECONDS, as a share of one core) are read with nothing changing in the cluster.
// Then the event → reconcile figures, under LOAD_RATE pod updates a second for LOAD_SECONDS, round
// robin over the pods (interleaved across sets), each setting the annotation `bench/sent` to its
// send time. VIA=store (the default) makes them in the API server's process, by a compare-and-swap
// on the stored JSON (server.ts): the same store → watch cache → watch event a PATCH makes, without
// the HTTP write path, which one loader cannot drive 1,000 times a second; VIA=api merge-patches
// through the API from a fourth process (pod-update-load.ts). Both drop what their in-flight bound
// (256) cannot take in time, so the rate done is reported beside the rate asked. The manager runs
// with --latency-annotation=bench/sent; its /metrics is read before and 3 s after the window, for
// the replicaset controller: the queue wait (workqueue_queue_duration_seconds: a key's add to its
// reconcile's start), event → reconcile start (controller_event_to_reconcile_start_seconds: the
// informer's event reaching the controller, through the owner lookup, the sync gate and the queue)
// and sent → reconcile start (controller_sent_to_reconcile_start_seconds: from the stamp, so the
// store's commit, the watch cache, the HTTPS watch stream and the informer too), each as p99 at
// bucket resolution and the share within 10 ms.
// MANAGER=dist runs the built CLI (dist/src/cli/svc-controller-manager.js, `npm run build` first)
// with plain node and the V8 flags of its shebang, as installed (MANAGER_NODE_FLAGS='…' replaces
// them); tsx's loader thread and the source maps it keeps are not in its RSS.
// The idle window reports CPU by thread (main against V8's and libuv's workers); TRACE_GC=1 adds
// --trace-gc and counts the window's collections by kind; PROFILE_IDLE=1 takes a CPU profile of
// the window (its sampling thread is in the window's CPU); HEAPSNAPSHOT=1 a heap snapshot after it.
// COMPARE_FLAGS='<flags>;<flags>;…' then restarts the manager over the same filled cluster once per
// V8 flag set ('' is Node's defaults) and measures each the same way: flag sets back to back.
//   npm run bench:controller-manager-scale            (SETS=1000 PODS_PER_SET=10 IDLE_SECONDS=30 SETTLE_SECONDS=30 LOAD_RATE=1000 LOAD_SECONDS=10 VIA=store MANAGER=tsx CONTROLLERS='*')
import { spawn, type ChildProcess } from 'node:child_process';
import { get } from 'node:https';
import { createServer, type AddressInfo } from 'node:net';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { ReplicaSet } from '../../src/api/index.js';
import { builtin, Client } from '../../src/client/index.js';
import { SENT_ANNOTATION, type PodUpdateJob, type PodUpdateResult } from './paced-load.js';

const SETS = Number(process.env['SETS'] ?? 1_000);
const PER_SET = Number(process.env['PODS_PER_SET'] ?? 10);
const IDLE_SECONDS = Number(process.env['IDLE_SECONDS'] ?? 30);
const LOAD_RATE = Number(process.env['LOAD_RATE'] ?? 1_000);
const LOAD_SECONDS = Number(process.env['LOAD_SECONDS'] ?? 10);
const QUEUE = 'replicaset-controller';
const NS = 'bench';
const PODS = SETS * PER_SET;

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-manager-scale-'));
const server = spawn(process.execPath, ['--import', 'tsx', new URL('./server.ts', import.meta.url).pathname, dir], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
process.once('exit', () => server.kill());
const { svcconfig } = JSON.parse(await new Promise<string>((resolve) => createInterface({ input: server.stdout! }).once('line', resolve))) as { svcconfig: string };
const driver = await Client.fromSvcconfig(svcconfig, { userAgent: 'bench-driver' });
await driver.create(builtin.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
// The pods' account before the manager starts (its serviceaccount loop would make it too, racing the first creates).
await driver.create(builtin.serviceAccounts, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: NS } }, { namespace: NS });

const BUILT = process.env['MANAGER'] === 'dist';
// CONTROLLERS=…: the manager's --controllers (default every loop), to compare loop sets' memory.
const CONTROLLERS = process.env['CONTROLLERS'] ?? '*';
// HEAPSNAPSHOT=1: a heap snapshot of the manager at the end of the idle window, in the data dir.
const HEAPSNAPSHOT = process.env['HEAPSNAPSHOT'] === '1';
// PROFILE_IDLE=1: a CPU profile of the manager over the idle window (its /debug/pprof/profile), path printed.
const PROFILE_IDLE = process.env['PROFILE_IDLE'] === '1';
const cli = BUILT ? new URL('../../dist/src/cli/svc-controller-manager.js', import.meta.url).pathname : new URL('../../src/cli/svc-controller-manager.ts', import.meta.url).pathname;
// A free port for the manager's /metrics (--secure-port=0 turns serving off, as in Kubernetes).
const port = await new Promise<number>((resolve) => {
  const probe = createServer().listen(0, '127.0.0.1', () => {
    const { port } = probe.address() as AddressInfo;
    probe.close(() => resolve(port));
  });
});
// The built bin runs with the flags of its shebang (`#!/usr/bin/env -S node --flag …`), as installed;
// MANAGER_NODE_FLAGS='…' replaces them (under tsx there are none unless given).
const shebangFlags = (file: string): string[] => /^#!\/usr\/bin\/env -S (?:\S+=\S+ )*node((?: --\S+)*)/.exec(readFileSync(file, 'utf8').split('\n', 1)[0]!)?.[1]?.trim().split(' ').filter((f) => f !== '') ?? [];
const NODE_FLAGS = process.env['MANAGER_NODE_FLAGS'] !== undefined ? process.env['MANAGER_NODE_FLAGS'].split(' ').filter((flag) => flag !== '') : BUILT ? shebangFlags(cli) : [];
// TRACE_GC=1: the manager runs with --trace-gc and the idle window's collections are counted by kind.
const TRACE_GC = process.env['TRACE_GC'] === '1';

/** A running manager: its process, its secure port's URL and (TRACE_GC=1) its --trace-gc lines with the driver's time each was read. */
interface Manager {
  readonly process: ChildProcess;
  readonly url: string;
  readonly flags: readonly string[];
  readonly gcLines: { at: number; line: string }[];
}

/** Starts svc-controller-manager with V8 `flags` over the bench's cluster; resolves once it serves. */
async function startManager(flags: readonly string[]): Promise<Manager> {
  const child = spawn(process.execPath, [...flags, ...(BUILT ? [] : ['--import', 'tsx']), ...(HEAPSNAPSHOT ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${dir}`] : []), ...(TRACE_GC ? ['--trace-gc'] : []), cli, `--svcconfig=${svcconfig}`, `--secure-port=${port}`, '--bind-address=127.0.0.1', '--leader-elect=false', `--controllers=${CONTROLLERS}`, '--svc-api-qps=2000', '--svc-api-burst=2000', `--latency-annotation=${SENT_ANNOTATION}`, `--authorization-always-allow-paths=/healthz,/readyz,/livez,/metrics${PROFILE_IDLE ? ',/debug/pprof/*' : ''}`], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  process.once('exit', () => child.kill());
  const gcLines: { at: number; line: string }[] = [];
  const url = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      if (TRACE_GC && /^\[\d+:0x[0-9a-f]+\]\s+\d+ ms: /.test(line)) gcLines.push({ at: performance.now(), line });
      const serving = /serving on (\S+)/.exec(line)?.[1];
      if (serving !== undefined) resolve(serving);
    });
    child.once('exit', () => reject(new Error('svc-controller-manager exited before serving')));
  });
  return { process: child, url, flags, gcLines };
}

async function stopManager(m: Manager): Promise<void> {
  const exited = new Promise((resolve) => m.process.once('exit', resolve));
  m.process.kill('SIGTERM');
  await exited;
}

/** A path of a manager's secure port, as text (its serving certificate is self-signed). */
const fetchFrom = (m: Manager, path: string): Promise<string> =>
  new Promise((resolve, reject) => {
    get(new URL(path, m.url), { rejectUnauthorized: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => (res.statusCode === 200 ? resolve(body) : reject(new Error(`${path}: ${res.statusCode} ${body}`))));
    }).on('error', reject);
  });

let manager = await startManager(NODE_FLAGS);
const fetchText = (path: string): Promise<string> => fetchFrom(manager, path);
/** The manager's /metrics text. */
const scrape = (): Promise<string> => fetchText('/metrics');
/** The cumulative buckets (upper bound → count) of a histogram `metric` of one controller. */
const histogramBuckets = (text: string, metric: string, name: string): Map<number, number> => {
  const buckets = new Map<number, number>();
  for (const m of text.matchAll(new RegExp(`^${metric}_bucket\\{([^}]*)\\} (\\S+)$`, 'gm'))) {
    const labels = m[1]!;
    if (!labels.includes(`name="${name}"`)) continue;
    const le = /le="([^"]+)"/.exec(labels)![1]!;
    buckets.set(le === '+Inf' ? Infinity : Number(le), Number(m[2]));
  }
  return buckets;
};
console.log(`node ${process.version}${NODE_FLAGS.length > 0 ? ` (manager: ${NODE_FLAGS.join(' ')})` : ''}, ${process.platform}/${process.arch}; ${SETS} ReplicaSets × ${PER_SET} = ${PODS} pods; svc-controller-manager --controllers=${CONTROLLERS} in its own process (CLI ${BUILT ? 'built, plain node' : 'under tsx'}), svc-apiserver on sqlite in another; pods stay Pending (no node runs them)\n`);

/**
 * `request`, again while it fails to connect: on a loaded 2-core machine the sqlite server can
 * take longer than undici's 10 s connect timeout to accept a new connection, which is the
 * machine's state and not what this bench measures. Answers from the server are not retried.
 */
async function patiently<R>(request: () => Promise<R>): Promise<R> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await request();
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (attempt >= 10 || (code !== 'UND_ERR_CONNECT_TIMEOUT' && code !== 'ECONNRESET' && code !== 'ECONNREFUSED')) throw error;
    }
  }
}

const t0 = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: 32 }, async () => {
    while (next < SETS) {
      const name = `rs-${next++}`;
      const rs: ReplicaSet = {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        metadata: { name, namespace: NS },
        spec: { replicas: PER_SET, selector: { matchLabels: { set: name } }, template: { metadata: { labels: { set: name } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
      };
      await patiently(() => driver.create(builtin.replicaSets, rs, { namespace: NS }).catch((error: unknown) => {
        if ((error as { code?: unknown }).code === 409) return undefined; // a retried create that had landed
        throw error;
      }));
    }
  }),
);
// Steady: every ReplicaSet reports its pods (the manager made them all and wrote its status).
for (;;) {
  const sets = (await patiently(() => driver.list(builtin.replicaSets, { namespace: NS }))).items;
  if (sets.length === SETS && sets.every((rs) => rs.status?.replicas === PER_SET && rs.status.observedGeneration === rs.metadata.generation)) break;
  await new Promise((resolve) => setTimeout(resolve, 1_000));
}
const fillS = (performance.now() - t0) / 1000;
const pods = (await driver.list(builtin.pods, { namespace: NS })).items.length;
// Let the last status writes and Events settle, and V8 collect the fill's garbage (its concurrent
// marking threads are the process's CPU for tens of seconds after a fill), before the idle window.
const SETTLE_SECONDS = Number(process.env['SETTLE_SECONDS'] ?? 30);
await new Promise((resolve) => setTimeout(resolve, SETTLE_SECONDS * 1_000));

const TICKS_PER_S = 100; // USER_HZ on Linux

/** What the idle window says of one manager. */
interface IdleFigures {
  readonly rssAtSteady: number;
  readonly rssAfter: number;
  readonly cpuPercent: number;
  readonly idleS: number;
  readonly load: string;
  readonly heapLine: string;
  readonly threadLine: string;
  readonly gcLine: string | undefined;
  readonly heapTotal: number;
  readonly heapUsed: number;
  readonly newSpace: number;
  /** Writes to the store during the window (its revision's move): 0 at a true steady state. */
  readonly writes: number;
}

/** The manager's RSS now, its CPU over IDLE_SECONDS with nothing changing (by thread, and its collections with TRACE_GC=1), its V8 heap after. */
async function measureIdle(m: Manager): Promise<IdleFigures> {
  const pid = m.process.pid!;
  const rssMb = () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
  const cpuTicks = () => {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
  };
  /** CPU ticks of the manager's threads: `main` (the event loop, with the young-generation
   * collections it runs), the others by thread name (V8's concurrent marking, sweeping and
   * compiling run on Node's platform workers, named `node` too; libuv's pool is `libuv-worker`). */
  const threadTicks = (): Map<string, number> => {
    const byName = new Map<string, number>();
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      let stat: string;
      try {
        stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      } catch {
        continue; // the thread ended between the listing and the read
      }
      const name = tid === String(pid) ? 'main' : `${stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))} (other)`;
      const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
      byName.set(name, (byName.get(name) ?? 0) + Number(fields[11]) + Number(fields[12]));
    }
    return byName;
  };
  // The store's revision, as a list's resourceVersion: whoever writes during the window moves it.
  const revision = async (): Promise<number> => Number((await driver.list(builtin.namespaces, { limit: 1 })).resourceVersion);
  const revision0 = await revision();
  const rssAtSteady = rssMb();
  const threads0 = threadTicks();
  const ticks0 = cpuTicks();
  const idle0 = performance.now();
  // The profile is of the main thread's JS; its sampling thread runs in the manager too and is
  // in the CPU figure of a profiled window: compare windows with the same setting.
  const idleProfile = PROFILE_IDLE ? fetchFrom(m, `/debug/pprof/profile?seconds=${IDLE_SECONDS}`) : undefined;
  await new Promise((resolve) => setTimeout(resolve, IDLE_SECONDS * 1_000));
  const idleS = (performance.now() - idle0) / 1000;
  const cpuPercent = ((cpuTicks() - ticks0) / TICKS_PER_S / idleS) * 100;
  const threads1 = threadTicks();
  const rssAfter = rssMb();
  const writes = (await revision()) - revision0;
  if (idleProfile !== undefined) {
    const file = join(tmpdir(), `svc-manager-idle-${Date.now()}.cpuprofile`);
    writeFileSync(file, await idleProfile);
    console.log(`idle CPU profile: ${file}`);
  }
  const threadLine = `idle CPU by thread (% of a core): ${
    [...threads1]
      .map(([name, ticks]) => [name, ((ticks - (threads0.get(name) ?? 0)) / TICKS_PER_S / idleS) * 100] as const)
      .filter(([, percent]) => percent > 0)
      .sort((a, b) => b[1] - a[1])
      .map(([name, percent]) => `${name} ${percent.toFixed(2)}`)
      .join(', ') || 'none'
  }`;
  const idleEnd = idle0 + idleS * 1000;
  const idleGcs = new Map<string, number>();
  for (const { at, line } of m.gcLines) {
    if (at < idle0 || at > idleEnd) continue;
    const kind = /ms: ([A-Za-z-]+(?: \([a-z ]+\))?)/.exec(line)?.[1] ?? 'other';
    idleGcs.set(kind, (idleGcs.get(kind) ?? 0) + 1);
  }
  if (TRACE_GC) {
    const file = join(tmpdir(), `svc-manager-gc-${Date.now()}.log`);
    writeFileSync(file, m.gcLines.map(({ at, line }) => `${((at - idle0) / 1000).toFixed(1)} s ${line}`).join('\n'));
    console.log(`--trace-gc lines (seconds from the idle window's start): ${file}`);
  }
  const gcLine = TRACE_GC ? `collections in the idle window: ${[...idleGcs].map(([kind, n]) => `${kind} ${n}`).join(', ') || 'none'}` : undefined;
  const load = loadavg().map((n) => n.toFixed(1)).join(', ');
  // Where the RSS is: V8's heap (committed and live, per space) against the rest (code, malloc, buffers).
  const heapText = await fetchFrom(m, '/metrics');
  const gauge = (name: string, space?: string): number => {
    const pattern = new RegExp(`^${name}${space === undefined ? '' : `\\{space="${space}"\\}`} (\\S+)$`, 'm');
    return Number(pattern.exec(heapText)?.[1] ?? NaN) / 1048576;
  };
  const spaces = [...heapText.matchAll(/^nodejs_heap_space_size_total_bytes\{space="([^"]+)"\}/gm)].map((match) => match[1]!);
  const heapLine = `V8 heap: total ${gauge('nodejs_heap_size_total_bytes').toFixed(0)} MB, used ${gauge('nodejs_heap_size_used_bytes').toFixed(0)} MB, external ${gauge('nodejs_external_memory_bytes').toFixed(0)} MB; per space (committed/used MB): ${spaces
    .map((space) => `${space} ${gauge('nodejs_heap_space_size_total_bytes', space).toFixed(0)}/${gauge('nodejs_heap_space_size_used_bytes', space).toFixed(0)}`)
    .join(', ')}`;
  return { rssAtSteady, rssAfter, cpuPercent, idleS, load, heapLine, threadLine, gcLine, heapTotal: gauge('nodejs_heap_size_total_bytes'), heapUsed: gauge('nodejs_heap_size_used_bytes'), newSpace: gauge('nodejs_heap_space_size_total_bytes', 'new'), writes };
}

const idle = await measureIdle(manager);
if (HEAPSNAPSHOT) {
  manager.process.kill('SIGUSR2');
  // The snapshot is written synchronously by the manager: done once its size stops growing.
  let size = -1;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const file = readdirSync(dir).find((name) => name.endsWith('.heapsnapshot'));
    if (file === undefined) continue;
    const now = statSync(join(dir, file)).size;
    // The file exists (empty) before V8 starts writing it.
    if (now > 0 && now === size) {
      const kept = join(tmpdir(), `svc-manager-${Date.now()}.heapsnapshot`);
      copyFileSync(join(dir, file), kept);
      console.log(`heap snapshot: ${kept}`);
      break;
    }
    size = now;
  }
}

// Event → reconcile under LOAD_RATE pod updates a second.
// Interleaved by ReplicaSet (the n-th pod of every set, then the (n+1)-th), so consecutive updates
// add different keys: a list sorted by name would send a set's pods in a row and they would
// coalesce into one waiting key.
const bySet = new Map<string, string[]>();
for (const pod of (await driver.list(builtin.pods, { namespace: NS })).items) {
  const set = pod.metadata.labels?.['set'] ?? '';
  bySet.set(set, [...(bySet.get(set) ?? []), pod.metadata.name!]);
}
const podNames: string[] = [];
for (let i = 0; i < PER_SET; i++) for (const names of bySet.values()) if (names[i] !== undefined) podNames.push(names[i]!);
// The three figures of the window, each a histogram of the manager's /metrics for the replicaset
// controller: the queue wait (client-go's), event → reconcile start (from the informer's event
// reaching the controller) and sent → reconcile start (from the loader's stamp in the pod:
// the API server, the watch, the informer and the controller).
const FIGURES = [
  ['queue wait', 'workqueue_queue_duration_seconds'],
  ['event → reconcile start', 'controller_event_to_reconcile_start_seconds'],
  ['sent → reconcile start', 'controller_sent_to_reconcile_start_seconds'],
] as const;
const readFigures = async (): Promise<Map<string, Map<number, number>>> => {
  const text = await scrape();
  return new Map(FIGURES.map(([, metric]) => [metric, histogramBuckets(text, metric, QUEUE)]));
};
const before = await readFigures();
// VIA=store (default): the writes are made to the store inside the API server's process (server.ts);
// VIA=api: merge-patches through the API from a process of their own (pod-update-load.ts).
const VIA = process.env['VIA'] === 'api' ? 'api' : 'store';
const job: PodUpdateJob = { namespace: NS, pods: podNames, rate: LOAD_RATE, seconds: LOAD_SECONDS };
let loadResult: PodUpdateResult;
if (VIA === 'store') {
  server.send({ podUpdates: job });
  loadResult = await new Promise<PodUpdateResult>((resolve) => {
    const onMessage = (message: unknown): void => {
      const result = (message as { podUpdates?: PodUpdateResult }).podUpdates;
      if (result === undefined) return;
      server.off('message', onMessage);
      resolve(result);
    };
    server.on('message', onMessage);
  });
} else {
  const loader = spawn(process.execPath, ['--import', 'tsx', new URL('./pod-update-load.ts', import.meta.url).pathname], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  process.once('exit', () => loader.kill());
  loader.send({ svcconfig, ...job });
  loadResult = await new Promise<PodUpdateResult>((resolve) => loader.once('message', (m) => resolve(m as PodUpdateResult)));
}
const loadDuring = loadavg().map((n) => n.toFixed(1)).join(', ');
// Let the queue drain what the window added, so every add of the window is in the histograms.
await new Promise((resolve) => setTimeout(resolve, 3_000));
const after = await readFigures();
/** A figure over the window: observations, p99 at bucket resolution, share within 10 ms. */
const windowOf = (metric: string): { observed: number; p99: string; within10ms: string } => {
  const b0 = before.get(metric)!;
  const b1 = after.get(metric)!;
  const bounds = [...b1.keys()].sort((x, y) => x - y);
  const delta = (le: number) => (b1.get(le) ?? 0) - (b0.get(le) ?? 0);
  const observed = delta(Infinity);
  if (observed === 0) return { observed, p99: '–', within10ms: '–' };
  const bound = bounds.find((le) => delta(le) >= 0.99 * observed) ?? Infinity;
  return { observed, p99: `≤ ${bound === Infinity ? '+Inf' : `${+(bound * 1000).toFixed(2)} ms`}`, within10ms: `${((delta(0.01) / observed) * 100).toFixed(1)} %` };
};
const figures = FIGURES.map(([label, metric]) => ({ label, ...windowOf(metric) }));

await stopManager(manager);

// COMPARE_FLAGS='<flags>;<flags>;…': after the window above, the same cluster (filled, at steady
// state) is taken over by a fresh manager per V8 flag set in turn ('' for Node's defaults), each
// measured as above once its informers have synced and SETTLE_SECONDS have passed: flag sets
// compared back to back on one machine state. A restarted manager lists what the filling one
// built up, so its heap is not the filling one's; compare the sets with each other.
const comparisons: { flags: string; synced: number; idle: IdleFigures }[] = [];
for (const set of process.env['COMPARE_FLAGS'] === undefined ? [] : process.env['COMPARE_FLAGS'].split(';')) {
  const flags = set.split(' ').filter((flag) => flag !== '');
  const t = performance.now();
  manager = await startManager(flags);
  for (;;) {
    const ready = await fetchText('/readyz').then(() => true, () => false);
    if (ready) break;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const synced = (performance.now() - t) / 1000;
  await new Promise((resolve) => setTimeout(resolve, SETTLE_SECONDS * 1_000));
  comparisons.push({ flags: flags.join(' ') || "none (Node's defaults)", synced, idle: await measureIdle(manager) });
  await stopManager(manager);
}

await driver.destroy();
server.send('stop');
await new Promise((resolve) => server.once('exit', resolve));

console.log('| ReplicaSets | pods | fill to steady (s) | manager RSS at steady, after idle (MB) | manager idle CPU over the window (% of a core) | idle window (s) | load average (1, 5, 15 min) |');
console.log('| --- | --- | --- | --- | --- | --- | --- |');
console.log(`| ${SETS} | ${pods} | ${fillS.toFixed(1)} | ${idle.rssAtSteady.toFixed(0)}, ${idle.rssAfter.toFixed(0)} | ${idle.cpuPercent.toFixed(2)} | ${idle.idleS.toFixed(0)} | ${idle.load} |`);
console.log(idle.heapLine);
console.log(`${idle.threadLine}; store writes during the window: ${idle.writes}`);
if (idle.gcLine !== undefined) console.log(idle.gcLine);
console.log('');
console.log(`| pod updates via | asked (/s × s) | done (/s; failed, dropped) | ${FIGURES.map(([label]) => `${label}: observed, p99 (bucket bound), within 10 ms`).join(' | ')} | load average at the window's end (1, 5, 15 min) |`);
console.log(`| --- | --- | --- | ${FIGURES.map(() => '---').join(' | ')} | --- |`);
console.log(
  `| ${VIA} | ${LOAD_RATE} × ${LOAD_SECONDS} | ${(loadResult.sent / loadResult.seconds).toFixed(0)} (${loadResult.failed}, ${loadResult.dropped}) | ${figures.map((f) => `${f.observed}, ${f.p99}, ${f.within10ms}`).join(' | ')} | ${loadDuring} |`,
);
if (comparisons.length > 0) {
  console.log('');
  console.log(`Restarted over the same cluster, one V8 flag set after the other (settle ${SETTLE_SECONDS} s, idle window ${IDLE_SECONDS} s):`);
  console.log('| manager V8 flags | synced (s) | RSS at steady, after idle (MB) | heap committed / used (MB) | young generation committed (MB) | idle CPU (% of a core) | load average |');
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const { flags, synced, idle: c } of comparisons) {
    console.log(`| ${flags} | ${synced.toFixed(1)} | ${c.rssAtSteady.toFixed(0)}, ${c.rssAfter.toFixed(0)} | ${c.heapTotal.toFixed(0)} / ${c.heapUsed.toFixed(0)} | ${c.newSpace.toFixed(0)} | ${c.cpuPercent.toFixed(2)} | ${c.load} |`);
  }
  for (const { flags, idle: c } of comparisons) console.log(`${flags}: ${c.threadLine}${c.gcLine !== undefined ? `; ${c.gcLine}` : ''}; store writes during the window: ${c.writes}`);
}
