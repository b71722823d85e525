// Server cost of watches for browsers (issue #25): WATCHERS watchers on all pods as Server-Sent
// Events, then the same number as chunked JSON lines, in one run against one server (bench-server.mjs,
// sqlite, plain HTTP on loopback), while a writer updates PODS pods at RATE updates/s for SECONDS.
// Per phase: events delivered, bytes per event as the watchers received them (body bytes, after
// chunked decoding), and the server's CPU (utime + stime from /proc/<pid>/stat) per event delivered.
//   npm run bench:event-stream            (WATCHERS=100 PODS=100 RATE=200 SECONDS=10; `npm run build` first)
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { BENCH_TOKEN, startBenchServer } from './child.js';

const WATCHERS = Number(process.env['WATCHERS'] ?? 100);
const PODS = Number(process.env['PODS'] ?? 100);
const RATE = Number(process.env['RATE'] ?? 200);
const SECONDS = Number(process.env['SECONDS'] ?? 10);
const headers = { authorization: `Bearer ${BENCH_TOKEN}`, 'content-type': 'application/json' };

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-event-stream-'));
const server = await startBenchServer(join(dir, 'state.db'));
const pool = new Pool(server.origin, { connections: 16 });
const TICKS = 100; // USER_HZ: /proc/<pid>/stat counts CPU time in 1/100 s on Linux

function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS;
}

async function call(method: 'POST' | 'PUT', path: string, body: unknown): Promise<{ metadata: { resourceVersion: string } }> {
  const res = await pool.request({ method, path, headers, body: JSON.stringify(body) });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${text}`);
  return JSON.parse(text) as { metadata: { resourceVersion: string } };
}

const pod = (i: number, n: number, resourceVersion?: string) => ({
  kind: 'Pod',
  apiVersion: 'v1',
  metadata: { name: `p-${i}`, namespace: 'default', labels: { app: 'bench' }, annotations: { 'bench.svc.io/n': String(n) }, ...(resourceVersion ? { resourceVersion } : {}) },
  spec: { nodeName: `node-${i % 10}`, containers: [{ name: 'c', image: 'registry.local/app:1' }] },
});

const versions: string[] = [];
for (let i = 0; i < PODS; i++) versions[i] = (await call('POST', '/api/v1/namespaces/default/pods', pod(i, 0))).metadata.resourceVersion;

interface Phase {
  mode: string;
  events: number;
  bytes: number;
  cpu: number;
  updates: number;
}

async function phase(mode: 'sse' | 'chunked'): Promise<Phase> {
  const url = new URL(server.origin);
  const start = versions.reduce((a, b) => (Number(a) > Number(b) ? a : b));
  let events = 0;
  let bytes = 0;
  const requests: http.ClientRequest[] = [];
  const opened: Promise<void>[] = [];
  for (let w = 0; w < WATCHERS; w++) {
    opened.push(
      new Promise<void>((resolve, reject) => {
        const req = http.request(
          { host: url.hostname, port: url.port, path: `/api/v1/pods?watch=true&resourceVersion=${start}`, headers: { authorization: `Bearer ${BENCH_TOKEN}`, accept: mode === 'sse' ? 'text/event-stream' : 'application/json' } },
          (res) => {
            resolve();
            const marker = mode === 'sse' ? 'event: MODIFIED' : '"type":"MODIFIED"';
            res.setEncoding('latin1');
            res.on('data', (chunk: string) => {
              bytes += chunk.length;
              for (let at = chunk.indexOf(marker); at >= 0; at = chunk.indexOf(marker, at + 1)) events++;
            });
          },
        );
        req.on('error', reject);
        req.end();
        requests.push(req);
      }),
    );
  }
  await Promise.all(opened);
  const cpu0 = cpuSeconds(server.child.pid!);
  const total = RATE * SECONDS;
  const startedAt = performance.now();
  let updates = 0;
  for (let n = 0; n < total; n++) {
    const due = startedAt + (n * 1000) / RATE;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    const i = n % PODS;
    versions[i] = (await call('PUT', `/api/v1/namespaces/default/pods/p-${i}`, pod(i, n, versions[i]))).metadata.resourceVersion;
    updates++;
  }
  // Every watcher has every update once the counts settle.
  const deadline = performance.now() + 30_000;
  while (events < updates * WATCHERS && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
  const cpu = cpuSeconds(server.child.pid!) - cpu0;
  for (const req of requests) req.destroy();
  return { mode, events, bytes, cpu, updates };
}

const results = [await phase('sse'), await phase('chunked')];
await pool.close();
await server.stop();
rmSync(dir, { recursive: true, force: true });

console.log(`node ${process.version}; ${WATCHERS} watchers on all pods, ${PODS} pods updated round robin at ${RATE}/s for ${SECONDS} s; load average ${loadavg().map((l) => l.toFixed(1)).join(', ')}`);
console.log('| watch as | updates | events delivered | bytes per event | server CPU per 1,000 events delivered (ms) | server CPU over the phase (s) |');
console.log('| --- | --- | --- | --- | --- | --- |');
for (const r of results) {
  console.log(`| ${r.mode === 'sse' ? 'Server-Sent Events' : 'chunked JSON lines'} | ${r.updates} | ${r.events} | ${(r.bytes / Math.max(1, r.events)).toFixed(0)} | ${((r.cpu * 1e6) / Math.max(1, r.events)).toFixed(2)} | ${r.cpu.toFixed(2)} |`);
}
