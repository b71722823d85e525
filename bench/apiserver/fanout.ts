// Watch fan-out benchmark (issue 5): 1,000 watchers, each watching the pods of one node (the
// kubelet's watch: fieldSelector=spec.nodeName=<node>), while 1,000 pod updates/s are written
// through the API. Delivery latency is from the moment the writer sent the update to the moment
// the watcher parsed its event; memory per watcher is the server's growth with 1,000 idle watches.
//   npm run bench:fanout   (BENCH_WATCH_WRITE_INTERVAL_MS=10 sets the server's --watch-write-interval)
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'undici';
import { BENCH_TOKEN, startBenchServer } from './child.js';

const WATCHERS = 1_000;
const RATE = 1_000;
const SECONDS = Number(process.env['SECONDS'] ?? 20);
// FANOUT_SELECTOR=label: each watcher selects its pod by a label instead, which no index serves,
// so every event is judged by every watcher's filter (the worst case of the hub).
const BY_LABEL = process.env['FANOUT_SELECTOR'] === 'label';
const headers = { authorization: `Bearer ${BENCH_TOKEN}`, 'content-type': 'application/json' };
const now = () => performance.timeOrigin + performance.now();

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-fanout-'));
const server = await startBenchServer(join(dir, 'state.db'));
const pool = new Pool(server.origin, { connections: 32 });

async function call(method: 'POST' | 'PUT', path: string, body: unknown): Promise<{ metadata: { resourceVersion: string } }> {
  const res = await pool.request({ method, path, headers, body: JSON.stringify(body) });
  const text = await res.body.text();
  if (res.statusCode >= 300) throw new Error(`${method} ${path}: ${res.statusCode} ${text}`);
  return JSON.parse(text) as { metadata: { resourceVersion: string } };
}

const pod = (i: number, sentAt: number, resourceVersion?: string) => ({
  kind: 'Pod',
  apiVersion: 'v1',
  metadata: { name: `p-${i}`, namespace: 'default', labels: { node: `node-${i}` }, annotations: { 'bench.svc.io/sent-at': String(sentAt) }, ...(resourceVersion ? { resourceVersion } : {}) },
  spec: { nodeName: `node-${i}`, containers: [{ name: 'c', image: 'registry.local/app:1' }] },
});

// One pod per node; every watcher will see exactly the updates of its node's pod.
const versions: string[] = [];
for (let i = 0; i < WATCHERS; i += 50) {
  const batch = [];
  for (let j = i; j < i + 50; j++) batch.push(call('POST', '/api/v1/namespaces/default/pods', pod(j, 0)).then((p) => (versions[j] = p.metadata.resourceVersion)));
  await Promise.all(batch);
}
const before = await server.memory();

const latencies: number[] = [];
const writeLatencies: number[] = [];
let received = 0;
let ended = 0;
const agent = new http.Agent({ keepAlive: false, maxSockets: Infinity });
const url = new URL(server.origin);
const requests: http.ClientRequest[] = [];
await Promise.all(
  Array.from({ length: WATCHERS }, (_, i) => {
    return new Promise<void>((resolve, reject) => {
      const selector = BY_LABEL ? `labelSelector=${encodeURIComponent(`node=node-${i}`)}` : `fieldSelector=${encodeURIComponent(`spec.nodeName=node-${i}`)}`;
      const path = `/api/v1/pods?watch=1&resourceVersion=${versions[WATCHERS - 1]}&${selector}`;
      const req = http.get({ host: url.hostname, port: url.port, path, agent, headers }, (res) => {
        if (res.statusCode !== 200) return reject(new Error(`watch ${i}: ${res.statusCode}`));
        let rest = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          const at = now();
          const lines = (rest + chunk).split('\n');
          rest = lines.pop()!;
          for (const line of lines) {
            const event = JSON.parse(line) as { type: string; object: { metadata: { annotations?: Record<string, string> } } };
            const sentAt = Number(event.object.metadata.annotations?.['bench.svc.io/sent-at']);
            if (event.type === 'MODIFIED' && sentAt > 0) {
              latencies.push(at - sentAt);
              received++;
            }
          }
        });
        res.on('end', () => ended++);
        resolve();
      });
      req.on('error', reject);
      requests.push(req);
    });
  }),
);
const watching = await server.memory();

await server.loopDelay();
// Open loop: every 10 ms, the updates due by then, whatever the previous ones are doing.
let sent = 0;
let failed = 0;
const started = performance.now();
const inflight = new Set<Promise<unknown>>();
while (performance.now() - started < SECONDS * 1000) {
  const due = Math.floor(((performance.now() - started) / 1000) * RATE);
  for (; sent < due; sent++) {
    const i = sent % WATCHERS;
    const sentAt = now();
    const p = call('PUT', `/api/v1/namespaces/default/pods/p-${i}`, pod(i, sentAt, versions[i]))
      .then((updated) => {
        writeLatencies.push(now() - sentAt);
        versions[i] = updated.metadata.resourceVersion;
      })
      .catch(() => failed++)
      .finally(() => inflight.delete(p));
    inflight.add(p);
  }
  await new Promise((resolve) => setTimeout(resolve, 10));
}
const elapsed = (performance.now() - started) / 1000;
const loop = await server.loopDelay();
await Promise.all(inflight);
await new Promise((resolve) => setTimeout(resolve, 500));

for (const req of requests) req.destroy();
await pool.close();
await server.stop();
rmSync(dir, { recursive: true, force: true });

latencies.sort((a, b) => a - b);
writeLatencies.sort((a, b) => a - b);
const quantile = (values: number[], p: number) => values[Math.min(values.length - 1, Math.floor(p * values.length))]!.toFixed(1);
const q = (p: number) => quantile(latencies, p);
const kb = (n: number) => (n / 1024).toFixed(1);
console.log(
  [
    `${WATCHERS.toLocaleString('en-US')} watchers (${BY_LABEL ? 'labelSelector node=<node>: no index, every watcher judges every event' : 'fieldSelector spec.nodeName=<node>: indexed'}, one pod per node), ${RATE.toLocaleString('en-US')} updates/s for ${SECONDS} s through PUT, ${process.env['BENCH_STORE'] === 'memory' ? 'memory' : 'sqlite'} store, loopback HTTP`,
    '',
    '| measure | result | goal |',
    '| --- | --- | --- |',
    `| updates written | ${(sent - failed).toLocaleString('en-US')} (${((sent - failed) / elapsed).toFixed(0)}/s, ${failed} failed) | 1,000/s |`,
    `| events delivered | ${received.toLocaleString('en-US')} (${ended} watches ended early) | one per update |`,
    `| delivery latency, send → watcher (p50 / p99 / max) | ${q(0.5)} / ${q(0.99)} / ${latencies.at(-1)!.toFixed(1)} ms | p99 ≤ 100 ms |`,
    `| the PUT itself, send → response (p50 / p99) | ${quantile(writeLatencies, 0.5)} / ${quantile(writeLatencies, 0.99)} ms | |`,
    `| server event-loop delay while writing (p99 / max) | ${loop.p99.toFixed(1)} / ${loop.max.toFixed(1)} ms | |`,
    `| server memory per idle watcher: RSS / heap | ${kb((watching.rss - before.rss) / WATCHERS)} KB / ${kb((watching.heapUsed - before.heapUsed) / WATCHERS)} KB | ≤ 50 KB |`,
  ].join('\n'),
);
