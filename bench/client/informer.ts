// Informer benchmark (issue 8): svc's Informer against @kubernetes/client-node's, on one real
// svc-apiserver (HTTPS, admin.svcconfig) and one stream. The driver creates OBJECTS pods,
// then writes UPDATES annotation patches; each consumer (a child process with its own heap) lists
// the pods at the version before the updates and watches from there, so the server replays the
// same UPDATES events to both as fast as they can take them. Reported, per round (every
// implementation runs once per round, one after the other, and a round's figures are compared
// with each other only): list+sync time, events/s of the stream (wall clock from the moment the
// watch request is sent, and per CPU-second of the consumer) and the heap the cache holds per object.
//   npm run bench:informer          (OBJECTS=10000 UPDATES=40000 ROUNDS=2 by default)
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { builtin, Client } from '../../src/client/index.js';
import { cpuTicks, MS_PER_TICK } from '../support/proc.js';

const OBJECTS = Number(process.env['OBJECTS'] ?? 10_000);
const UPDATES = Number(process.env['UPDATES'] ?? 40_000);
const ROUNDS = Number(process.env['ROUNDS'] ?? 2);
const here = (file: string) => new URL(file, import.meta.url).pathname;
// One exit hook per child (the server, the warm-up and every consumer): more than Node's default 10.
process.setMaxListeners(0);

function child(args: string[], flags: string[] = [], cpu?: number): { pid: number; line: Promise<string>; send(m: string): void; exited: Promise<void> } {
  const command = [process.execPath, ...flags, '--import', 'tsx', ...args];
  // taskset execs node: the pid is node's.
  const [file, ...argv] = cpu === undefined ? command : ['taskset', '--cpu-list', String(cpu), ...command];
  const proc = spawn(file!, argv, { stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  process.once('exit', () => proc.kill());
  const line = new Promise<string>((resolve, reject) => {
    // The child's one JSON line is its answer; anything else it prints (V8's --trace-gc writes to
    // stdout) goes to stderr with its pid.
    createInterface({ input: proc.stdout! }).on('line', (text) => (text.startsWith('{') ? resolve(text) : process.stderr.write(`[${proc.pid}] ${text}\n`)));
    proc.once('exit', (code) => reject(new Error(`${args[0]} exited with ${code}`)));
  });
  return { pid: proc.pid!, line, send: (m) => proc.send(m), exited: new Promise((resolve) => proc.once('exit', () => resolve())) };
}

const pod = (i: number) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: `web-${i}`,
    namespace: 'bench',
    labels: { app: 'web', tier: 'frontend', shard: `s-${i % 16}` },
    annotations: { 'bench.svc.io/gen': '0' },
  },
  spec: {
    nodeName: `node-${i % 100}`,
    containers: [
      {
        name: 'app',
        image: 'registry.local/web:1.4.2',
        ports: [{ containerPort: 8080, protocol: 'TCP' as const }],
        env: [
          { name: 'MODE', value: 'production' },
          { name: 'SHARD', value: `s-${i % 16}` },
        ],
        resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '256Mi' } },
      },
    ],
  },
});

async function pool<T>(count: number, concurrency: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        out[i] = await task(i);
      }
    }),
  );
  return out;
}

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-informer-'));
// PIN=1: the server on CPU 0 and each consumer on CPU 1 (threads included), so that a
// consumer's events/s on the wall clock is its own, not a share of two cores with the server.
const pinned = process.env['PIN'] === '1';
// SERVER_NODE_FLAGS: Node flags for the server process (say, --trace-gc), space-separated.
const server = child([here('./server.ts'), dir], (process.env['SERVER_NODE_FLAGS'] ?? '').split(' ').filter(Boolean), pinned ? 0 : undefined);
const { svcconfig } = JSON.parse(await server.line) as { svcconfig: string };
// A few connections for the driver's 64 writers: 64 TLS handshakes at once time out on a busy machine.
const client = await Client.fromSvcconfig(svcconfig, { connections: 8 });
await client.create(builtin.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'bench' } });
// The pods' account (the API server makes none; the controller manager's serviceaccount loop would).
await client.create(builtin.serviceAccounts, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'bench' } }, { namespace: 'bench' });

let started = performance.now();
const created = await pool(OBJECTS, 64, (i) => client.create(builtin.pods, pod(i)));
const fromRv = String(Math.max(...created.map((p) => Number(p.metadata.resourceVersion))));
console.error(`created ${OBJECTS} pods in ${Math.round(performance.now() - started)} ms`);
started = performance.now();
const updated = await pool(UPDATES, 64, (k) =>
  client.patch(builtin.pods, `web-${k % OBJECTS}`, { metadata: { annotations: { 'bench.svc.io/gen': String(k) } } }, { namespace: 'bench' }),
);
const finalRv = String(Math.max(...updated.map((p) => Number(p.metadata.resourceVersion))));
console.error(`wrote ${UPDATES} updates in ${Math.round(performance.now() - started)} ms`);
const jsonBytes = created.reduce((n, p) => n + Buffer.byteLength(JSON.stringify(p)), 0) / OBJECTS;
// The server encodes each version to protobuf once, on its first protobuf read, and keeps it: one
// protobuf replay now, so that the protobuf consumers measure the client, not that first encoding.
started = performance.now();
await new Promise<void>((resolve, reject) => {
  const sub = client.watch$(builtin.pods, { namespace: 'bench', resourceVersion: fromRv, decode: 'protobuf', onError: reject }).subscribe((e) => {
    if ((e.type === 'MODIFIED' || e.type === 'BOOKMARK') && (e.type === 'BOOKMARK' ? e.resourceVersion : e.object.metadata.resourceVersion) === finalRv) {
      sub.unsubscribe();
      resolve();
    }
  });
});
console.error(`warmed the server's protobuf encodings in ${Math.round(performance.now() - started)} ms`);
await client.destroy();

interface Result {
  impl: string;
  round?: number;
  cached: number;
  listMs: number;
  listCpuMs: number;
  streamMs: number;
  streamCpuMs: number;
  updates: number;
  heapPerObjectAfterList: number;
  heapPerObject: number;
  streamFrom: number;
  streamTo: number;
  /** The server's CPU time over the stream's wall time: near 1, the server paced the stream. */
  serverBusy?: number;
}

/** Samples a process's CPU time with the wall clock, every 20 ms. */
function cpuSampler(pid: number): { busy(from: number, to: number): number; stop(): void } {
  const samples: Array<[number, number]> = [];
  const read = () => samples.push([performance.timeOrigin + performance.now(), cpuTicks(pid)]);
  const timer = setInterval(read, 20);
  return {
    busy(from, to) {
      read();
      const at = (t: number) => samples.findLast(([when]) => when <= t) ?? samples[0]!;
      const [a, ticksA] = at(from);
      const [b, ticksB] = at(to);
      return ((ticksB - ticksA) * MS_PER_TICK) / (b - a);
    },
    stop: () => clearInterval(timer),
  };
}
// @kubernetes/client-node 2.x needs Node 22 or later: it joins the default set there.
const DEFAULT_IMPLS = `svc,client-node,${Number(process.versions.node.split('.')[0]) >= 22 ? 'client-node-2,' : ''}svc-eager,svc-pruned,svc-lazy`;
const results: Result[] = [];
const serverCpu = cpuSampler(server.pid);
// SERVER_PROFILE=file.cpuprofile: the server's CPU profile of the consumers' part only.
if (process.env['SERVER_PROFILE']) server.send('profile');
for (let round = 0; round < ROUNDS; round += 1) {
  for (const impl of (process.env['IMPLS'] ?? DEFAULT_IMPLS).split(',')) {
    // CONSUMER_FLAGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the consumers.
    const flags = ['--expose-gc', ...(process.env['CONSUMER_FLAGS']?.split(' ') ?? [])];
    const consumer = child([here('./consumer.ts'), impl, svcconfig, fromRv, finalRv, String(OBJECTS)], flags, pinned ? 1 : undefined);
    const result = JSON.parse(await consumer.line) as Result;
    await consumer.exited;
    result.serverBusy = Math.round(serverCpu.busy(result.streamFrom, result.streamTo) * 100) / 100;
    result.round = round;
    console.error(JSON.stringify(result));
    results.push(result);
  }
}
serverCpu.stop();
server.send('stop');
await server.exited;
rmSync(dir, { recursive: true, force: true });

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const ROWS: Array<[impl: string, label: string]> = [
  ['svc', 'svc Informer (defaults: protobuf views for pods)'],
  ['svc-protobuf', "svc Informer, decode: 'protobuf'"],
  ['svc-lazy', "svc Informer, decode: 'lazy'"],
  ['svc-eager', "svc Informer, decode: 'eager'"],
  ['svc-pruned', "svc Informer, decode: 'eager' + transform dropping managedFields"],
  ['client-node', '@kubernetes/client-node 1.x'],
  ['client-node-2', '@kubernetes/client-node 2.x'],
];
const eventsPerS = (r: Result) => r.updates / (r.streamMs / 1000);
const eventsPerCpuS = (r: Result) => r.updates / (r.streamCpuMs / 1000);
console.log(`objects ${OBJECTS}, updates ${UPDATES}, pod JSON ${fmt(jsonBytes)} B, ${ROUNDS} round(s); each round's figures together`);
for (let round = 0; round < ROUNDS; round += 1) {
  const mine = results.filter((r) => r.round === round);
  const of = (impl: string) => mine.find((r) => r.impl === impl);
  console.log(`\nround ${round + 1}`);
  console.log('| informer | events/s (wall) | events per CPU-second | list+sync (ms) | heap per pod after the list (B) | heap per pod after the stream (B) | server busy |');
  console.log('| --- | --- | --- | --- | --- | --- | --- |');
  for (const [impl, label] of ROWS) {
    const r = of(impl);
    if (r) console.log(`| ${label} | ${fmt(eventsPerS(r))} | ${fmt(eventsPerCpuS(r))} | ${fmt(r.listMs)} | ${fmt(r.heapPerObjectAfterList)} | ${fmt(r.heapPerObject)} | ${r.serverBusy ?? ''} |`);
  }
  // Each svc variant against each client-node major, within this round.
  for (const baseline of ['client-node', 'client-node-2'] as const) {
    const cn = of(baseline);
    if (!cn) continue;
    for (const [impl] of ROWS.filter(([impl]) => impl.startsWith('svc'))) {
      const r = of(impl);
      if (!r) continue;
      console.log(
        `${impl} against ${baseline}: ${(eventsPerS(r) / eventsPerS(cn)).toFixed(2)}× events/s (wall), ${(eventsPerCpuS(r) / eventsPerCpuS(cn)).toFixed(2)}× per CPU-second, ${(r.listMs / cn.listMs).toFixed(2)}× the list time, ${(r.heapPerObjectAfterList / cn.heapPerObjectAfterList).toFixed(2)}× the memory after the list, ${(r.heapPerObject / cn.heapPerObject).toFixed(2)}× after the stream`,
      );
    }
  }
}
