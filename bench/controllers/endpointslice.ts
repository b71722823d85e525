// A Service selecting PODS pods while FLIP_RATE pod readiness flips per second hit it for SECONDS
// (issue #24): slice updates per second, the loop's writes per flip, and how long a flip takes to
// be visible in a slice (patch answered → slice event showing it, read by a watch of its own),
// once with --endpointslice-updates-batch-period 0 and once with BATCH_MS. The cluster is
// svc/testing's (in-process API server, memory store, HTTPS loopback); the load generator, the
// loop and the server share one process, so the flip rate reached is reported, not assumed.
//   npm run bench:endpointslice          (PODS=5000, FLIP_RATE=1000, SECONDS=10, BATCH_MS=1000, SETTLE_S=120;
//                                         WRITER=phase: a sync's slice writes of one phase at once)
import { Subject } from 'rxjs';
import type { EndpointSlice, Pod } from '../../src/api/index.js';
import { builtin, EventRecorder, InformerFactory, type Client } from '../../src/client/index.js';
import { endpointSliceController } from '../../controllers/index.js';
import { startTestCluster } from '../../src/testing/index.js';
import { quantile } from './fill.js';

const PODS = Number(process.env['PODS'] ?? 5_000);
const FLIP_RATE = Number(process.env['FLIP_RATE'] ?? 1_000);
const SECONDS = Number(process.env['SECONDS'] ?? 10);
const BATCH_MS = Number(process.env['BATCH_MS'] ?? 1_000);
const IN_FLIGHT = 32;
/** How long after the load the slices (the server's, and the observer's) may take to agree with the pods before the phase is called unconverged. */
const SETTLE_S = Number(process.env['SETTLE_S'] ?? 120);
/** `WRITER=phase`: the loop sends the slice writes of one phase at once (default: one after another). */
const PHASE_AT_ONCE = process.env['WRITER'] === 'phase';
const NS = 'bench';

const cluster = await startTestCluster({ namespaces: [NS] });
const admin = cluster.newClient({ userAgent: 'bench-setup' });
console.log(`node ${process.version}, ${process.platform}/${process.arch}; svc/testing cluster (memory store, HTTPS loopback, in-process); ${PODS} pods, ${FLIP_RATE} flips/s asked for ${SECONDS} s\n`);

/** Resolves when `check` holds, looking every 100 ms (a poll of 5,000 endpoints is not free on a busy machine). */
async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 100));
}

const ipOf = (i: number) => `10.${64 + Math.floor(i / 65_536)}.${Math.floor(i / 256) % 256}.${i % 256}`;
const ready = new Array<boolean>(PODS).fill(true);

async function inParallel(count: number, work: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (next < count) await work(next++);
  }));
}

await admin.create(builtin.services, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'big', namespace: NS }, spec: { selector: { app: 'big' }, ports: [{ name: 'http', port: 80, targetPort: 8080 }] } }, { namespace: NS });
const setupStart = performance.now();
await inParallel(PODS, async (i) => {
  await admin.create(builtin.pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: `p-${i}`, namespace: NS, labels: { app: 'big' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } }, { namespace: NS });
  await admin.patchStatus(builtin.pods, `p-${i}`, { status: { phase: 'Running', podIP: ipOf(i), podIPs: [{ ip: ipOf(i) }], conditions: [{ type: 'Ready', status: 'True' }] } }, { namespace: NS });
});
console.log(`setup: ${PODS} pods created and Running in ${((performance.now() - setupStart) / 1000).toFixed(1)} s\n`);

interface Phase {
  readonly batchMs: number;
  readonly flips: number;
  readonly seconds: number;
  readonly writes: number;
  readonly latencies: number[];
  readonly unseen: number;
  readonly convergeMs: number;
  /** When the server's slices agreed with every pod after the load (undefined: not within SETTLE_S). */
  readonly serverMs: number | undefined;
}

async function phase(batchMs: number): Promise<Phase> {
  const userAgent = `endpointslice-${batchMs}`;
  const client: Client = cluster.newClient({ userAgent });
  const stop$ = new Subject<void>();
  const watchErrors = { loop: 0, observer: 0 };
  const informers = new InformerFactory(client, { onError: () => watchErrors.loop++ });
  const events = new EventRecorder({ client, component: 'endpointslice-controller' });
  const outcomes = new Map<string, number>();
  const loop = endpointSliceController({ name: 'endpointslice-controller', client, informers, events, stop$, controllerDefaults: () => ({}) }, { concurrency: 5, batchPeriodMs: batchMs, phaseWritesAtOnce: PHASE_AT_ONCE }).subscribe((result) => {
    const what = result.type === 'retry' ? `retry (${(result.error as { code?: number }).code ?? String(result.error)})` : result.type;
    outcomes.set(what, (outcomes.get(what) ?? 0) + 1);
  });

  // The observer: its own watch of the slices; a flip is seen when a slice shows the pod's IP with the flipped condition.
  const observer = new InformerFactory(cluster.newClient({ userAgent: 'observer' }), { onError: () => watchErrors.observer++ });
  // Decoded once per event: the bench's own reads of the slices cost it no decoding.
  const slices = observer.informer(builtin.endpointSlices, { decode: 'eager' });
  const pending = new Map<string, { at: number; ready: boolean }>();
  const latencies: number[] = [];
  const seen = (slice: EndpointSlice) => {
    const now = performance.now();
    for (const endpoint of slice.endpoints ?? []) {
      const ip = endpoint.addresses[0]!;
      const wait = pending.get(ip);
      if (wait && endpoint.conditions?.ready === wait.ready) {
        latencies.push(now - wait.at);
        pending.delete(ip);
      }
    }
  };
  const watching = slices.events$.subscribe((event) => {
    if (event.type !== 'deleted') seen(event.object);
  });
  slices.start();
  await slices.waitForSync();
  const total = () => slices.store.list().reduce((n, s) => n + (s.endpoints?.length ?? 0), 0);
  const readyCount = () => slices.store.list().reduce((n, s) => n + (s.endpoints ?? []).filter((e) => e.conditions?.ready === true).length, 0);
  const wantReady = () => ready.filter(Boolean).length;
  const syncGuard = setInterval(() => process.stderr.write(`waiting: ${total()} endpoints, ${readyCount()} ready of ${wantReady()}\n`), 5_000);
  await until(() => total() === PODS && readyCount() === wantReady());
  clearInterval(syncGuard);

  const writesBefore = cluster.writes(userAgent);
  const flipper = cluster.newClient({ userAgent: 'flipper' });
  const started = performance.now();
  const count = FLIP_RATE * SECONDS;
  const busy = new Set<number>();
  let next = 0;
  await Promise.all(Array.from({ length: IN_FLIGHT }, async () => {
    while (next < count) {
      const n = next++;
      const due = started + (n * 1000) / FLIP_RATE;
      const wait = due - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      // A pod with a flip in flight is not flipped again: two patches of one pod may land in either order.
      let i = Math.floor(Math.random() * PODS);
      while (busy.has(i)) i = Math.floor(Math.random() * PODS);
      busy.add(i);
      const value = !ready[i];
      ready[i] = value;
      await flipper.patchStatus(builtin.pods, `p-${i}`, { status: { conditions: [{ type: 'Ready', status: value ? 'True' : 'False' }] } }, { namespace: NS });
      // Answered: from now on a reader of the pod sees the flip; a later flip of the same pod supersedes it.
      pending.set(ipOf(i), { at: performance.now(), ready: value });
      busy.delete(i);
    }
  }));
  const seconds = (performance.now() - started) / 1000;
  const settleStart = performance.now();
  // The server's slices (a list, once a second) and the observer's view are timed apart: a watch
  // that lags behind the slice writes is not slices that disagree with the pods.
  let serverMs: number | undefined;
  const serverCheck = (async () => {
    while (serverMs === undefined && performance.now() - settleStart <= SETTLE_S * 1000) {
      if ((await disagreeing()) === 0) serverMs = performance.now() - settleStart;
      else await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  })();
  await until(() => (readyCount() === wantReady() && pending.size === 0) || performance.now() - settleStart > SETTLE_S * 1000);
  const convergeMs = performance.now() - settleStart;
  await serverCheck;
  if (pending.size > 0 || serverMs === undefined)
    console.log(
      `batch ${batchMs} ms unconverged after ${SETTLE_S} s: ${pending.size} flips not seen; endpoints disagreeing with the pods: server ${await disagreeing()}, loop's slice cache ${wrong(informers.informer(builtin.endpointSlices).store.list())}, observer's cache ${wrong(slices.store.list())}; loop's pod cache: ${staleP(informers.informer(builtin.pods).store.list())} pods stale; watch errors: loop ${watchErrors.loop}, observer ${watchErrors.observer}`,
    );
  const writes = cluster.writes(userAgent) - writesBefore;
  const unseen = pending.size;
  stop$.next();
  loop.unsubscribe();
  watching.unsubscribe();
  informers.stop();
  observer.stop();
  events.stop();
  console.log(`batch ${batchMs} ms: syncs ${[...outcomes].map(([what, n]) => `${what} ${n}`).join(', ')}`);
  return { batchMs, flips: count, seconds, writes, latencies: latencies.sort((a, b) => a - b), unseen, convergeMs, serverMs };
}

/** Endpoints whose ready condition is not the pod's. */
function wrong(list: readonly EndpointSlice[]): number {
  let n = 0;
  for (const slice of list) for (const e of slice.endpoints ?? []) if (e.conditions?.ready !== ready[Number(e.targetRef!.name!.slice(2))]) n++;
  return n;
}
const disagreeing = async (): Promise<number> => wrong((await admin.list(builtin.endpointSlices, { namespace: NS })).items);
const staleP = (pods: readonly Pod[]): number => pods.filter((p) => (p.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True') !== ready[Number(p.metadata.name!.slice(2))]).length;

const results = [await phase(0), await phase(BATCH_MS)];
await cluster.stop();

console.log('| batch period | flips | flips/s reached | slice writes | slice writes/s | writes per flip | flip → slice p50 (ms) | p99 (ms) | max (ms) | not seen | server agrees after load (ms) | observer settle after load (ms) |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
for (const r of results) {
  console.log(
    `| ${r.batchMs} ms | ${r.flips} | ${(r.flips / r.seconds).toFixed(0)} | ${r.writes} | ${(r.writes / r.seconds).toFixed(0)} | ${(r.writes / r.flips).toFixed(3)} | ${quantile(r.latencies, 0.5).toFixed(0)} | ${quantile(r.latencies, 0.99).toFixed(0)} | ${(r.latencies.at(-1) ?? 0).toFixed(0)} | ${r.unseen} | ${r.serverMs === undefined ? `> ${SETTLE_S * 1000}` : r.serverMs.toFixed(0)} | ${r.convergeMs.toFixed(0)} |`,
  );
}
