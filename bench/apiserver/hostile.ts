// How one hostile request stalls everyone else: /healthz latency (p50, p99, max), probed one
// request at a time over its own keep-alive HTTPS connection, while another connection sends,
// one after another, the bodies of the issue #29 campaign (a ConfigMap of 150 000 labels, bodies
// nested 100 000 deep, a body past the 3 MiB limit, a strategic merge of a big map). The server is
// svc-apiserver in a child process (sqlite, HTTPS, the admin token), so the probe does not share
// its event loop. Run: npm run bench:hostile
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { Pool } from 'undici';

const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 3);

const child = spawn(process.execPath, ['--import', 'tsx', new URL('./hostile-server.ts', import.meta.url).pathname], { stdio: ['ignore', 'pipe', 'inherit'] });
const { port, token, ca } = JSON.parse(await new Promise<string>((resolve) => createInterface({ input: child.stdout }).once('line', resolve))) as { port: number; token: string; ca: string };
const origin = `https://127.0.0.1:${port}`;
const tls = { ca, servername: 'localhost' };
const probePool = new Pool(origin, { connections: 1, connect: tls });
const sendPool = new Pool(origin, { connections: 1, connect: tls, bodyTimeout: 0, headersTimeout: 0 });
const auth = { authorization: `Bearer ${token}` };
const CM = '/api/v1/namespaces/default/configmaps';

const labels = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i.toString(36)}`, `${i % 10}`]));
const deepJson = (depth: number) => '{"a":'.repeat(depth) + '"x"' + '}'.repeat(depth);

interface Hostile {
  readonly name: string;
  readonly method: 'POST' | 'PATCH';
  readonly path: (i: number) => string;
  readonly type: string;
  readonly body: (i: number) => string;
}

const HOSTILE: Hostile[] = [
  { name: 'ConfigMap, 150 000 labels (1.8 MB)', method: 'POST', path: () => CM, type: 'application/json', body: (i) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `big-${i}`, labels: labels(150_000) } }) },
  { name: 'annotations nested 100 000 deep', method: 'POST', path: () => CM, type: 'application/json', body: (i) => `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"deep-${i}","annotations":${deepJson(100_000)}}}` },
  { name: 'strategic merge nested 100 000 deep', method: 'PATCH', path: () => `${CM}/target`, type: 'application/strategic-merge-patch+json', body: () => `{"metadata":{"labels":${deepJson(100_000)}}}` },
  { name: 'body of 3.5 MB (past the 3 MiB limit)', method: 'POST', path: () => CM, type: 'application/json', body: (i) => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `huge-${i}` }, data: { x: 'x'.repeat(3_500_000) } }) },
  { name: 'strategic merge of 20 000 labels into 20 000', method: 'PATCH', path: () => `${CM}/target`, type: 'application/strategic-merge-patch+json', body: (i) => JSON.stringify({ metadata: { labels: Object.fromEntries(Array.from({ length: 20_000 }, (_, k) => [`label-${k}`, `r${i}-${k}`])) } }) },
  // Last: before the nesting limits it aborted the server (V8's regexp compiler ran out of stack).
  { name: 'YAML flow nested 100 000 deep', method: 'POST', path: () => CM, type: 'application/yaml', body: (i) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: y-${i}\n  annotations: ${'{a: '.repeat(100_000)}1${'}'.repeat(100_000)}\n` },
];

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;

/** Probes /healthz back to back until `done` resolves; the latencies in ms. */
async function probe(done: Promise<unknown>): Promise<number[]> {
  let finished = false;
  void done.finally(() => (finished = true));
  const latencies: number[] = [];
  while (!finished) {
    const start = performance.now();
    try {
      const res = await probePool.request({ method: 'GET', path: '/healthz' });
      await res.body.text();
    } catch {
      break; // the server is gone
    }
    latencies.push(performance.now() - start);
  }
  return latencies;
}

async function send(h: Hostile, i: number): Promise<{ status: number | string; ms: number }> {
  const start = performance.now();
  try {
    const res = await sendPool.request({ method: h.method, path: h.path(i), headers: { ...auth, 'content-type': h.type }, body: h.body(i) });
    await res.body.text();
    return { status: res.statusCode, ms: performance.now() - start };
  } catch (error) {
    return { status: (error as Error).message, ms: performance.now() - start };
  }
}

function report(label: string, latencies: number[], extra = '') {
  const sorted = [...latencies].sort((a, b) => a - b);
  if (sorted.length === 0) return console.log(`${label.padEnd(48)} no /healthz answer ${extra}`);
  console.log(`${label.padEnd(48)} healthz p50 ${percentile(sorted, 0.5).toFixed(1).padStart(7)} ms  p99 ${percentile(sorted, 0.99).toFixed(1).padStart(7)} ms  max ${sorted.at(-1)!.toFixed(1).padStart(7)} ms ${extra}`);
}

await send({ name: 'target', method: 'POST', path: () => CM, type: 'application/json', body: () => JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'target', labels: labels(20_000) } }) }, 0);
console.log(`node ${process.version}, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
report('idle (1 s)', await probe(new Promise((r) => setTimeout(r, 1000))));
for (const h of HOSTILE) {
  const all: number[] = [];
  const results: string[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const sent = send(h, i + 1);
    all.push(...(await probe(sent)));
    const { status, ms } = await sent;
    results.push(`${status} in ${ms.toFixed(0)} ms`);
  }
  report(h.name, all, `| ${results.join(', ')}`);
  if (child.exitCode !== null || child.signalCode !== null) {
    console.log(`the server died (${child.exitCode ?? child.signalCode})`);
    break;
  }
}
console.log(`load average after ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
await probePool.close();
await sendPool.close();
child.kill('SIGTERM');
