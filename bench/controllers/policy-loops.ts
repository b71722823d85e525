// Issue #23's measured figures, on a real svc-apiserver (bench/controllers/server.ts: HTTPS,
// sqlite in a temporary data dir, a child process) with the loops in this process on their own
// Client, every request of which passes the --svc-api-qps/--svc-api-burst rate limit and is
// counted (bench/controllers/throttle.ts; watches are streams, not counted).
//
// 1. NAMESPACES namespaces created at once (IN_FLIGHT creates open at a time): the serviceaccount loop
//    and the root CA publisher give each its `default` ServiceAccount and `kube-root-ca.crt`.
//    The driver's informers see them appear. Reported per QPS case: the time from the last
//    create's answer to every namespace having both, and per namespace (its create's answer → its
//    second object seen) p50, p99 and max, and the loops' requests.
// 2. Quota recalculation over PODS pods in one namespace: a quota counting them, its status
//    zeroed by hand, then the resourcequota loop started cold (its informers list the pods) and
//    timed until the status is right; then warm (status zeroed again: one event, one recount);
//    then RESYNCS periodic recounts at steady state (requests: none expected); then the
//    calculation alone (observedUsage over the cached pods, first from the objects, then from
//    the usages kept per cached version as the loop does), CALC_RUNS times each.
//   npm run bench:policy-loops     (NAMESPACES=1000 IN_FLIGHT=100 QPS="2000:2000,20:30" PODS=10000 RESYNCS=3 CALC_RUNS=20)
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Subject, type Subscription } from 'rxjs';
import { observedUsage, usageOf, type CountedType, type KubeObject, type ResourceQuota, type Usage } from '../../src/api/index.js';
import { builtin, Client, DiscoveryCache, EventRecorder, InformerFactory, loadProtobufCodec, loadSvcconfig } from '../../src/client/index.js';
import { resourceQuotaController, rootCaPublisher, serviceAccountController, type ControllerContext } from '../../controllers/index.js';
import { throttle } from './throttle.js';

const NAMESPACES = Number(process.env['NAMESPACES'] ?? 1_000);
const CASES = (process.env['QPS'] ?? '2000:2000,20:30').split(',').map((c) => c.split(':').map(Number) as [number, number]);
const PODS = Number(process.env['PODS'] ?? 10_000);
const RESYNCS = Number(process.env['RESYNCS'] ?? 3);
const CALC_RUNS = Number(process.env['CALC_RUNS'] ?? 20);
// Creates in flight at once: 1,000 new TLS connections at once time out on a loaded machine.
const IN_FLIGHT = Number(process.env['IN_FLIGHT'] ?? 100);

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-policy-'));
const proc = spawn(process.execPath, ['--import', 'tsx', new URL('./server.ts', import.meta.url).pathname, dir], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
process.once('exit', () => proc.kill());
const { svcconfig } = JSON.parse(await new Promise<string>((resolve) => createInterface({ input: proc.stdout! }).once('line', resolve))) as { svcconfig: string };
const driver = await Client.fromSvcconfig(svcconfig, { userAgent: 'bench-driver' });
const rootCa = (await loadSvcconfig(svcconfig)).caData!;

interface Loops {
  readonly requests: () => number;
  readonly informers: InformerFactory;
  stop(): Promise<void>;
}

/** Loops on their own throttled, counted Client, as the controller manager runs them. */
async function runLoops(qps: number, burst: number, make: (ctx: ControllerContext) => ReturnType<typeof serviceAccountController>[]): Promise<Loops> {
  // Protobuf, as the controller manager's default --svc-api-content-type.
  const client = await Client.fromSvcconfig(svcconfig, { userAgent: 'bench-loops', codec: await loadProtobufCodec() });
  const limiter = throttle(client, { qps, burst });
  const stop$ = new Subject<void>();
  const informers = new InformerFactory(client);
  const events = new EventRecorder({ client, component: 'bench-loops' });
  const ctx: ControllerContext = { name: 'bench-loops', client, informers, discovery: new DiscoveryCache(client), events, stop$, controllerDefaults: () => ({}) };
  const subscriptions: Subscription[] = make(ctx).map((loop) => loop.subscribe());
  return {
    requests: () => limiter.requests(),
    informers,
    async stop() {
      stop$.next();
      for (const s of subscriptions) s.unsubscribe();
      informers.stop();
      events.stop();
      limiter.stop();
      await client.destroy();
    },
  };
}

const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const s = (ms: number) => (ms / 1000).toFixed(2);

console.log(`node ${process.version}, ${process.platform}/${process.arch}; sqlite, HTTPS loopback\n`);
console.log(`### ${NAMESPACES} namespaces created at once\n`);
console.log('| --svc-api-qps / --svc-api-burst | creates sent → last answered (s) | last create → all have both (s) | per namespace p50 / p99 / max (s) | loop requests |');
console.log('| --- | --- | --- | --- | --- |');
const watcher = new InformerFactory(driver);
const accounts = watcher.informer(builtin.serviceAccounts, { fieldSelector: 'metadata.name=default', metadataOnly: true });
const caMaps = watcher.informer(builtin.configMaps, { fieldSelector: 'metadata.name=kube-root-ca.crt', metadataOnly: true });
await Promise.all([accounts.waitForSync(), caMaps.waitForSync()]);
for (const [qps, burst] of CASES) {
  const prefix = `b${qps}-`;
  const seen = new Map<string, { account?: number; ca?: number }>();
  let pending = NAMESPACES;
  let allDone!: () => void;
  const done = new Promise<void>((resolve) => (allDone = resolve));
  const mark = (which: 'account' | 'ca') => (event: { type: string; object: KubeObject }) => {
    const ns = event.object.metadata.namespace ?? '';
    if (event.type !== 'added' || !ns.startsWith(prefix)) return;
    const entry = seen.get(ns) ?? {};
    if (entry[which] !== undefined) return;
    entry[which] = performance.now();
    seen.set(ns, entry);
    if (entry.account !== undefined && entry.ca !== undefined && --pending === 0) allDone();
  };
  const subs = [accounts.events$.subscribe(mark('account')), caMaps.events$.subscribe(mark('ca'))];
  const loops = await runLoops(qps, burst, (ctx) => [serviceAccountController(ctx), rootCaPublisher(ctx, { rootCa })]);
  await Promise.all([loops.informers.informer(builtin.namespaces).waitForSync(), loops.informers.informer(builtin.serviceAccounts).waitForSync()]);
  const before = loops.requests();
  const created = new Map<string, number>();
  const sent = performance.now();
  let nextNs = 0;
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (nextNs < NAMESPACES) {
        const name = `${prefix}${nextNs++}`;
        await driver.create(builtin.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
        created.set(name, performance.now());
      }
    }),
  );
  const lastCreate = Math.max(...created.values());
  await done;
  const allPresent = Math.max(...[...seen.values()].map((e) => Math.max(e.account!, e.ca!)));
  const perNamespace = [...created].map(([ns, at]) => Math.max(0, Math.max(seen.get(ns)!.account!, seen.get(ns)!.ca!) - at)).sort((a, b) => a - b);
  console.log(
    `| ${qps} / ${burst} | ${s(lastCreate - sent)} | **${s(Math.max(0, allPresent - lastCreate))}** | ${s(percentile(perNamespace, 50))} / **${s(percentile(perNamespace, 99))}** / ${s(perNamespace.at(-1)!)} | ${loops.requests() - before} |`,
  );
  for (const sub of subs) sub.unsubscribe();
  await loops.stop();
}
watcher.stop();

console.log(`\n### Quota recalculation over ${PODS} pods\n`);
const NS = 'quota-bench';
await driver.create(builtin.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
await driver.create(builtin.serviceAccounts, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: NS } }, { namespace: NS });
let fillStart = performance.now();
let next = 0;
await Promise.all(
  Array.from({ length: 64 }, async () => {
    while (next < PODS) {
      const i = next++;
      const resources = i % 2 === 0 ? { requests: { cpu: '10m', memory: '16Mi' }, limits: { cpu: '20m', memory: '32Mi' } } : {};
      await driver.create(builtin.pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: `p-${i}`, namespace: NS }, spec: { containers: [{ name: 'c', image: 'busybox', resources }] } }, { namespace: NS });
    }
  }),
);
console.log(`filled ${PODS} pods in ${s(performance.now() - fillStart)} s\n`);
const hard = { pods: String(2 * PODS), 'count/pods': String(2 * PODS), 'requests.cpu': '1000', 'limits.memory': '1Ti' };
await driver.create(builtin.resourceQuotas, { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q', namespace: NS }, spec: { hard } } as ResourceQuota, { namespace: NS });
const quota = () => driver.get(builtin.resourceQuotas, 'q', { namespace: NS });
const right = async () => (await quota()).status?.used?.['pods'] === String(PODS);
const waitRight = async () => {
  while (!(await right())) await new Promise((r) => setTimeout(r, 10));
};
// The API server fills a new quota itself (its usage sync); then the status is zeroed by hand.
await waitRight();
const zero = async () => {
  const q = await quota();
  await driver.updateStatus(builtin.resourceQuotas, { ...q, status: { hard, used: Object.fromEntries(Object.keys(hard).map((k) => [k, '0'])) } }, { namespace: NS });
};
await zero();

console.log('| recount | time to the right status (s) | loop requests |');
console.log('| --- | --- | --- |');
const period = 2_000;
let started = performance.now();
const quotaLoops = await runLoops(2000, 2000, (ctx) => [resourceQuotaController(ctx, { concurrency: 5, resyncPeriodMs: period })]);
await waitRight();
console.log(`| cold: loop started (lists ${PODS} pods, counts, writes) | ${s(performance.now() - started)} | ${quotaLoops.requests()} |`);
let before = quotaLoops.requests();
await zero();
started = performance.now();
await waitRight();
console.log(`| warm: status zeroed (one event, one recount) | ${s(performance.now() - started)} | ${quotaLoops.requests() - before} |`);
before = quotaLoops.requests();
await new Promise((r) => setTimeout(r, period * 2 * RESYNCS));
console.log(`| steady: ${RESYNCS} or more periodic recounts (--resource-quota-sync-period=${period / 1000}s, jittered up to 2x) | — | ${quotaLoops.requests() - before} |`);

const pods = quotaLoops.informers.informer(builtin.pods);
const q = await quota();
const list = (_type: unknown, ns: string) => pods.store.byIndex('namespace', ns);
const timed = (count: () => void) => {
  const runs: number[] = [];
  for (let i = 0; i < CALC_RUNS; i++) {
    const t = performance.now();
    count();
    runs.push(performance.now() - t);
  }
  runs.sort((a, b) => a - b);
  return `median ${runs[Math.floor(runs.length / 2)]!.toFixed(1)} ms, max ${runs.at(-1)!.toFixed(1)} ms`;
};
console.log(`\nthe calculation alone over ${PODS} cached pods, ${CALC_RUNS} runs each:`);
console.log(`- every pod's usage read from its cached object (observedUsage): ${timed(() => observedUsage(q, list))}`);
// As the loop recounts: each cached version's usage kept (a WeakMap by object), summed.
const memo = new WeakMap<KubeObject, Usage>();
const countOnce = (type: CountedType, object: KubeObject) => {
  let usage = memo.get(object);
  if (!usage) memo.set(object, (usage = usageOf(type, object)));
  return usage;
};
observedUsage(q, list, { usageOf: countOnce });
console.log(`- a recount from the kept usages, as the loop does: ${timed(() => observedUsage(q, list, { usageOf: countOnce }))}`);
await quotaLoops.stop();

await driver.destroy();
proc.send('stop');
await new Promise((resolve) => proc.once('exit', resolve));
rmSync(dir, { recursive: true, force: true });
