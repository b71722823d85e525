// Child process of bench/client/informer.ts: one informer implementation (argv[2]: `svc` (the
// Informer's defaults: for pods, protobuf views), `svc-eager` (decode: 'eager'), `svc-pruned`
// (eager, with a transform dropping managedFields), `svc-lazy` (decode: 'lazy'), `svc-protobuf`
// (decode: 'protobuf', said explicitly), `client-node` (1.x) or `client-node-2` (2.x, Node 22+
// only)) in a fresh heap. It lists the pods of namespace `bench` at the exact version argv[4] (the
// state before the update stream), watches from there — the server replays the whole stream of
// updates at once — and stops at the update whose resourceVersion is argv[5]. Prints one JSON
// line: list time, stream time, events, CPU time, and the heap the cache holds after the list and
// after the stream. The stream's clock starts when the watch request is sent, seen the same way
// for every implementation (Node's diagnostics channels of undici and of http): the list, the
// sync and the watch's connection set-up are outside it for all alike.
// Run with --expose-gc.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { subscribe } from 'node:diagnostics_channel';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import type * as k8s from '@kubernetes/client-node';
import { startProfile } from '../support/self-profile.js';
import { builtin, Client, Informer, isExpired, loadProtobufCodec, stripManagedFields } from '../../src/client/index.js';
import '../../src/client/lazy/proto-decode.js';

const [impl, svcconfig, fromRv, finalRv, countText] = process.argv.slice(2);
if (!impl || !svcconfig || !fromRv || !finalRv || !countText) throw new Error('usage: consumer.ts <svc|client-node|client-node-2> <svcconfig> <rv0> <finalRv> <objects>');
// The two majors of the official client share their informer API; 2.x is installed under an npm
// alias and needs Node 22 or later. Only the one measured is loaded.
// 2.x's declarations differ from 1.x's only inside the request context (undici dispatchers), which
// this file does not touch: typed as 1.x.
const k8sModule = impl === 'client-node-2' ? ((await import('@kubernetes/client-node-2')) as unknown as typeof k8s) : await import('@kubernetes/client-node');
const objects = Number(countText);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const heap = () => {
  gc();
  gc();
  // Buffers' bytes are outside the V8 heap: counted too, so that no cache hides memory there.
  const { heapUsed, arrayBuffers } = process.memoryUsage();
  return heapUsed + arrayBuffers;
};

interface Run {
  /** Resolves when the list is in the cache. */
  synced: Promise<void>;
  /** Resolves when the update at finalRv has been applied. */
  done: Promise<void>;
  updates(): number;
  size(): number;
  stop(): void;
}

function runSvc(client: Client): Run {
  const informer = new Informer(client, builtin.pods, {
    namespace: 'bench',
    firstList: { resourceVersion: fromRv!, resourceVersionMatch: 'Exact' },
    // `svc-eager`: decoded plain objects, the mode that was the default before issue #21.
    ...(impl === 'svc-eager' ? { decode: 'eager' as const } : {}),
    // `svc-pruned`: the documented pruning transform (on eager objects), dropping what a controller rarely reads.
    ...(impl === 'svc-pruned' ? { decode: 'eager' as const, transform: stripManagedFields } : {}),
    // `svc-lazy`: the cache keeps each version's JSON text; fields are decoded when read.
    ...(impl === 'svc-lazy' ? { decode: 'lazy' as const } : {}),
    // `svc-protobuf`: lists and watches in protobuf; the cache keeps each version's message bytes.
    ...(impl === 'svc-protobuf' ? { decode: 'protobuf' as const } : {}),
    // The replay compacted away (a run slower than the store's retention) would relist or, for the
    // Exact first list, retry for ever: the figures would be void, so the run ends, saying why.
    onError: (error: unknown) => {
      if (!isExpired(error)) return;
      process.stderr.write(`${impl}: the replay expired (${String(error)}): the run was slower than the store's retention\n`);
      process.exit(13);
    },
  });
  let updates = 0;
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  const sub = informer.events$.subscribe((e) => {
    if (e.type !== 'updated') return;
    updates += 1;
    if (e.object.metadata.resourceVersion === finalRv) finish();
  });
  return { synced: informer.waitForSync(), done, updates: () => updates, size: () => informer.store.size, stop: () => (sub.unsubscribe(), informer.stop()) };
}

function runClientNode(kc: k8s.KubeConfig): Run {
  const api = kc.makeApiClient(k8sModule.CoreV1Api);
  const informer = k8sModule.makeInformer(kc, '/api/v1/namespaces/bench/pods', () =>
    api.listNamespacedPod({ namespace: 'bench', resourceVersion: fromRv!, resourceVersionMatch: 'Exact' }),
  );
  let updates = 0;
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  informer.on('update', (pod: k8s.V1Pod) => {
    updates += 1;
    if (pod.metadata?.resourceVersion === finalRv) finish();
  });
  informer.on('error', (error: unknown) => {
    process.stderr.write(`client-node informer error: ${String(error)}\n`);
  });
  return { synced: informer.start(), done, updates: () => updates, size: () => informer.list('bench').length, stop: () => void informer.stop() };
}

// Everything but the cache is loaded and connected before the baseline.
const kc = new k8sModule.KubeConfig();
kc.loadFromFile(svcconfig);
const client = await Client.fromSvcconfig(svcconfig);
// The protobuf decoders (and protobufjs with svc's schema) are code, not cache: loaded before the
// baseline (the default informer of pods uses them too).
if (impl === 'svc' || impl === 'svc-protobuf') await loadProtobufCodec();
/** When the first watch request was sent (performance.now()), whichever HTTP stack sent it. */
let watchOpenedAt: number | undefined;
let watchOpenedCpu: NodeJS.CpuUsage | undefined;
const isWatch = (path: unknown) => typeof path === 'string' && /[?&]watch=(1|true)\b/.test(path);
const sawRequest = (path: unknown) => {
  if (watchOpenedAt !== undefined || !isWatch(path)) return;
  watchOpenedAt = performance.now();
  watchOpenedCpu = process.cpuUsage();
};
// undici (svc's client, client-node 2.x's fetch) and node:http (client-node 1.x's node-fetch).
subscribe('undici:request:create', (message) => sawRequest((message as { request?: { path?: unknown } }).request?.path));
subscribe('http.client.request.start', (message) => sawRequest((message as { request?: { path?: unknown } }).request?.path));
const before = heap();
const cpuMs = (a: NodeJS.CpuUsage, b: NodeJS.CpuUsage) => (b.user - a.user + b.system - a.system) / 1000;
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const run = impl.startsWith('client-node') ? runClientNode(kc) : runSvc(client);
await run.synced;
const listMs = performance.now() - t0;
const listCpuMs = cpuMs(cpu0, process.cpuUsage());
// The cache right after the list: client-node keeps its list items as deserialized model objects.
// The watch may be open already (client-node opens it before start() resolves; svc's right after
// the list): the time and CPU of this measurement (two full collections) are taken out of the stream's.
const m0 = performance.now();
const mCpu0 = process.cpuUsage();
const afterList = heap();
const m1 = performance.now();
const mCpu1 = process.cpuUsage();
// CONSUMER_PROFILE=dir: a CPU profile of the stream alone, written there as <impl>.cpuprofile.
const profiler = process.env['CONSUMER_PROFILE'] ? await startProfile() : undefined;
// The collector's pauses during the stream (main thread), by kind: minor, major.
const gcPauses = { minor: 0, major: 0, minorMs: 0, majorMs: 0 };
const gcObserver = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) {
    const major = (entry as unknown as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR;
    gcPauses[major ? 'major' : 'minor'] += 1;
    gcPauses[major ? 'majorMs' : 'minorMs'] += entry.duration;
  }
});
gcObserver.observe({ entryTypes: ['gc'] });
await run.done;
const t2 = performance.now();
gcObserver.disconnect();
const cpu2 = process.cpuUsage();
if (watchOpenedAt === undefined || watchOpenedCpu === undefined) throw new Error('no watch request was seen');
// The clock of the stream starts when the watch opened, minus the heap measurement if it fell inside.
const t1 = watchOpenedAt;
const measuredInside = watchOpenedAt < m1;
const streamMs = t2 - t1 - (measuredInside ? m1 - Math.max(m0, watchOpenedAt) : 0);
const streamCpuMs = cpuMs(watchOpenedCpu, cpu2) - (measuredInside ? cpuMs(mCpu0, mCpu1) : 0);
if (profiler) writeFileSync(join(process.env['CONSUMER_PROFILE']!, `${impl}.cpuprofile`), JSON.stringify(await profiler()));
const after = heap();
process.stdout.write(
  `${JSON.stringify({
    impl,
    cached: run.size(),
    listMs,
    listCpuMs,
    heapPerObjectAfterList: (afterList - before) / objects,
    streamMs,
    streamCpuMs,
    // Whether the watch opened before the heap measurement after the list (then taken out).
    watchOpenedBeforeMeasure: measuredInside,
    updates: run.updates(),
    heapPerObject: (after - before) / objects,
    gcPauses,
    // The stream's window on the wall clock, for the driver's reading of the server's CPU.
    streamFrom: performance.timeOrigin + t1,
    streamTo: performance.timeOrigin + t2,
  })}\n`,
);
run.stop();
await client.destroy();
process.exit(0);
