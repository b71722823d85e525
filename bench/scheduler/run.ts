// Binds 10,000 pods onto 1,000 Nodes through a real svc-apiserver (a child process: HTTPS, its own
// CA, memory store), and measures the scheduling queue's and the node search's cost per item
// in-process, with the workqueue operator's per-item cost beside it (issue #12 asks for both in one run).
// Run: npm run bench:scheduler  (PODS=, NODES=, EVENTS=0 to skip Scheduled Events,
// SERVER_FLAGS="--cpu-prof --cpu-prof-dir=DIR" to profile the API server)
import { fork } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { bench, run as mitata } from 'mitata';
import { from } from 'rxjs';
import { workqueue } from '../../operators/index.js';
import type { Node, Pod } from '../../src/api/index.js';
import { builtin, Client } from '../../src/client/index.js';
import { DEFAULT_FILTERS, DEFAULT_SCORES, NodeFinder, podInfo, SchedulerCache, SchedulingQueue, scheduler, type SchedulerState } from '../../controllers/scheduler/index.js';

const PODS = Number(process.env['PODS'] ?? 10_000);
const NODES = Number(process.env['NODES'] ?? 1000);
const EVENTS = process.env['EVENTS'] !== '0';
const BIND_CONCURRENCY = Number(process.env['BIND_CONCURRENCY'] ?? 64);

const nodeObject = (i: number): Node => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name: `node-${i}`, labels: { 'kubernetes.io/hostname': `node-${i}`, zone: `z${i % 3}` } },
  spec: {},
  status: { allocatable: { cpu: '32', memory: '128Gi', pods: '110' }, conditions: [{ type: 'Ready', status: 'True' }] },
});

const podObject = (i: number): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: `pod-${i}`, namespace: 'default' },
  spec: { containers: [{ name: 'app', image: 'registry.example.com/app:1', resources: { requests: { cpu: '100m', memory: '128Mi' } }, ports: [{ containerPort: 8080 }] }] },
});

/** Runs `make(i)` for i < n, `width` at a time. */
async function inParallel(n: number, width: number, make: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) await make(next++);
    }),
  );
}

/** A process's CPU time so far in ms (user + system, from /proc; clock ticks of 10 ms). */
function cpuMsOf(pid: number | undefined): number {
  const fields = readFileSync(`/proc/${pid ?? 'self'}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function endToEnd(): Promise<{ podsPerSecond: number; seconds: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'svc-bench-scheduler-'));
  const child = fork(join(dirname(fileURLToPath(import.meta.url)), '../client/server.ts'), [dir], { execArgv: [...(process.env['SERVER_FLAGS']?.split(' ').filter(Boolean) ?? []), '--import', 'tsx'], stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  try {
    const line = await new Promise<string>((resolve) => createInterface({ input: child.stdout! }).once('line', resolve));
    const { svcconfig } = JSON.parse(line) as { svcconfig: string };
    const client = await Client.fromSvcconfig(svcconfig);
    let t = performance.now();
    await inParallel(NODES, 32, (i) => client.create(builtin.nodes, nodeObject(i)));
    await inParallel(PODS, 64, (i) => client.create(builtin.pods, podObject(i)));
    console.log(`created ${NODES} nodes and ${PODS} pods in ${((performance.now() - t) / 1000).toFixed(1)} s`);

    const schedulerClient = await Client.fromSvcconfig(svcconfig);
    let bound = 0;
    let failed = 0;
    let first = 0;
    t = performance.now();
    // CPU per binding of the server and of this process (the scheduler): steadier than pods/s
    // when other work shares the cores. Counted from the scheduler's start, its first lists included.
    const cpuBefore = { server: cpuMsOf(child.pid), scheduler: cpuMsOf(undefined) };
    let recorder: SchedulerState['events'] | undefined;
    const done = new Promise<void>((resolve, reject) => {
      const sub = scheduler({ client: schedulerClient, bucket: false, bindConcurrency: BIND_CONCURRENCY, scheduledEvents: EVENTS }, (state) => (recorder = state.events)).subscribe({
        next: (r) => {
          if (r.type === 'bound') {
            if (bound === 0) first = performance.now();
            if (++bound === PODS) {
              sub.unsubscribe();
              resolve();
            }
          } else failed++;
        },
        error: reject,
      });
    });
    await done;
    const end = performance.now();
    const cpu = { server: cpuMsOf(child.pid) - cpuBefore.server, scheduler: cpuMsOf(undefined) - cpuBefore.scheduler };
    const seconds = (end - first) / 1000;
    console.log(`startup (informers listed ${NODES} nodes, ${PODS} pending pods): ${((first - t) / 1000).toFixed(2)} s`);
    console.log(`bound ${bound} pods in ${seconds.toFixed(2)} s (first to last binding): ${(bound / seconds).toFixed(0)} pods/s; ${failed} failed attempts`);
    console.log(`CPU per bound pod: API server ${((1000 * cpu.server) / bound).toFixed(0)} µs, scheduler process ${((1000 * cpu.scheduler) / bound).toFixed(0)} µs`);
    console.log(`Scheduled events ${EVENTS ? `on: ${recorder?.stats().written ?? 0} written, ${recorder?.stats().dropped ?? 0} dropped (buffer full or refused) by the last binding` : 'off'}`);
    // Check: every pod bound, no node over its 110 pods.
    const perNode = new Map<string, number>();
    for await (const page of client.listPages(builtin.pods, { limit: 1000 })) for (const p of page.items) if (p.spec.nodeName) perNode.set(p.spec.nodeName, (perNode.get(p.spec.nodeName) ?? 0) + 1);
    const total = [...perNode.values()].reduce((a, b) => a + b, 0);
    console.log(`check: ${total} pods bound on ${perNode.size} nodes, at most ${Math.max(...perNode.values())} per node`);
    await schedulerClient.destroy();
    // The ceiling: the same server binding pods with no scheduler at all (64 POSTs in flight).
    const RAW = Math.min(PODS, 3000);
    await inParallel(RAW, 64, (i) => client.create(builtin.pods, { ...podObject(i), metadata: { name: `raw-${i}`, namespace: 'default' } }));
    const r = performance.now();
    const rawCpuBefore = cpuMsOf(child.pid);
    await inParallel(RAW, BIND_CONCURRENCY, (i) =>
      client.transport.request({
        method: 'POST',
        path: `/api/v1/namespaces/default/pods/raw-${i}/binding`,
        body: { apiVersion: 'v1', kind: 'Binding', metadata: { name: `raw-${i}` }, target: { kind: 'Node', name: `node-${i % NODES}` } },
      }),
    );
    const raw = RAW / ((performance.now() - r) / 1000);
    console.log(`API server CPU per bare binding: ${((1000 * (cpuMsOf(child.pid) - rawCpuBefore)) / RAW).toFixed(0)} µs`);
    console.log(`ceiling: the same server takes ${raw.toFixed(0)} bindings/s from a bare loop of POSTs (${BIND_CONCURRENCY} in flight, no scheduler): the scheduler ran at ${((100 * bound) / seconds / raw).toFixed(0)} % of it`);
    await client.destroy();
    return { podsPerSecond: bound / seconds, seconds };
  } finally {
    child.send('stop');
    await new Promise((r) => child.once('exit', r));
    rmSync(dir, { recursive: true, force: true });
  }
}

async function inProcess(): Promise<void> {
  const infos = Array.from({ length: 10_000 }, (_, i) => {
    const p = podObject(i);
    p.spec.priority = i % 7;
    p.metadata.creationTimestamp = new Date(1_700_000_000_000 + i * 1000).toISOString();
    return podInfo(p);
  });
  const cache = new SchedulerCache();
  for (let i = 0; i < NODES; i++) cache.upsertNode(nodeObject(i));
  for (let i = 0; i < 5000; i++) {
    const p = podObject(100_000 + i);
    p.spec.nodeName = `node-${i % NODES}`;
    cache.upsertBoundPod(p);
  }
  const finder = new NodeFinder({ filters: DEFAULT_FILTERS, scores: DEFAULT_SCORES });
  let n = 0;
  bench('queue: add + pop, 10k pods by priority (per batch of 10k)', async () => {
    const queue = new SchedulingQueue();
    for (const info of infos) queue.add(info);
    for (let i = 0; i < infos.length; i++) await queue.pop();
    queue.close();
  });
  // The controllers' work queue (operators/workqueue), for its per-item cost: 10,000 pod keys
  // added, taken, worked (synchronously) and done, as a controller's loop does with each change.
  const keys = infos.map((info) => info.key);
  bench('workqueue operator: add + get + done, 10k pod keys (per batch of 10k)', () => {
    from(keys).pipe(workqueue({ work: () => undefined })).subscribe();
  });
  bench(`node search: filter + score one pod over ${NODES} nodes (5k pods bound)`, () => {
    finder.find(infos[n++ % infos.length]!, cache);
  });
  await mitata({ format: 'mitata' });
}

const result = await endToEnd();
await inProcess();
console.log(`\nsummary: ${result.podsPerSecond.toFixed(0)} pods/s (goal ≥ 1,000)`);
