// List benchmark (issue 5): 100k pods of about 2 KiB in a sqlite store, served by the API server
// from its watch cache. Full list and one 500-item page over loopback HTTP, and the server's RSS
// against the raw JSON of the objects.
//   npm run bench:lists
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { measure } from 'mitata';
import { Agent, request } from 'undici';
import { encodeForStorage } from '../../src/apiserver/storage-codec.js';
import { SqliteStore } from '../../src/storage/index.js';
import { BENCH_TOKEN, startBenchServer } from './child.js';

const PODS = Number(process.env['PODS'] ?? 100_000);
const PAGE = 500;
const NAMESPACES = 100;

/** A pod as a controller would leave it: about 2 KiB of JSON. */
function pod(i: number) {
  const namespace = `ns-${i % NAMESPACES}`;
  return {
    kind: 'Pod',
    apiVersion: 'v1',
    metadata: {
      name: `web-${String(i).padStart(6, '0')}`,
      namespace,
      uid: `6b1c3f5e-0000-4000-8000-${String(i).padStart(12, '0')}`,
      creationTimestamp: '2026-11-23T10:00:00Z',
      generation: 1,
      labels: { app: 'web', tier: `t${i % 10}`, 'pod-template-hash': '5d8f7c9b6d' },
      annotations: { 'svc.io/created-by': 'bench', note: 'x'.repeat(870) },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-5d8f7c9b6d', uid: '0f6b7a2e-1111-4222-8333-444455556666', controller: true }],
    },
    spec: {
      nodeName: `node-${i % 1000}`,
      serviceAccountName: 'default',
      restartPolicy: 'Always',
      containers: [
        {
          name: 'web',
          image: 'registry.local/web:1.27.3',
          ports: [{ containerPort: 8080, protocol: 'TCP' }],
          env: [
            { name: 'MODE', value: 'production' },
            { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
          ],
          resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { memory: '256Mi' } },
          readinessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 10 },
        },
      ],
    },
    status: {
      phase: 'Running',
      podIP: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`,
      conditions: [
        { type: 'Ready', status: 'True', lastTransitionTime: '2026-11-23T10:00:05Z' },
        { type: 'ContainersReady', status: 'True', lastTransitionTime: '2026-11-23T10:00:05Z' },
      ],
    },
  };
}

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-lists-'));
const db = join(dir, 'state.db');
let rawBytes = 0;
{
  const store = new SqliteStore({ path: db });
  for (let i = 0; i < PODS; i += 1_000) {
    const writes: Promise<unknown>[] = [];
    for (let j = i; j < Math.min(PODS, i + 1_000); j++) {
      const object = pod(j);
      const bytes = encodeForStorage(object);
      rawBytes += bytes.length;
      writes.push(store.create(`/registry/core/pods/${object.metadata.namespace}/${object.metadata.name}`, bytes));
    }
    await Promise.all(writes);
  }
  await store.close();
}

const server = await startBenchServer(db);
const dispatcher = new Agent({ connections: 4 });
const headers = { authorization: `Bearer ${BENCH_TOKEN}` };

async function get(path: string): Promise<{ bytes: number; body: string }> {
  const res = await request(`${server.origin}${path}`, { headers, dispatcher });
  if (res.statusCode !== 200) throw new Error(`${path}: ${res.statusCode} ${await res.body.text()}`);
  const body = await res.body.text();
  return { bytes: Buffer.byteLength(body), body };
}

const idle = await server.memory();
if (process.env['VERBOSE']) console.error('idle', idle);

// Full list: every pod in all namespaces, time to the last byte (best of 5).
const fullTimes: number[] = [];
let fullBytes = 0;
for (let round = 0; round < 5; round++) {
  const t0 = performance.now();
  const { bytes, body } = await get('/api/v1/pods');
  fullTimes.push(performance.now() - t0);
  fullBytes = bytes;
  if (round === 0 && (JSON.parse(body) as { items: unknown[] }).items.length !== PODS) throw new Error('the list is incomplete');
}
const memory = await server.memory();

// One page of 500 (the page client-go's pager asks for), from the middle of the collection.
const first = JSON.parse((await get(`/api/v1/pods?limit=${Math.floor(PODS / 2)}`)).body) as { metadata: { continue: string } };
const token = encodeURIComponent(first.metadata.continue);
const page = await measure(async () => {
  await get(`/api/v1/pods?limit=${PAGE}&continue=${token}`);
});
const firstPage = await measure(async () => {
  await get(`/api/v1/pods?limit=${PAGE}`);
});

await server.stop();
await dispatcher.close();
rmSync(dir, { recursive: true, force: true });

const mb = (n: number) => `${(n / 1024 / 1024).toFixed(0)} MiB`;
const ms = (ns: number) => (ns / 1e6).toFixed(2);
const lines = [
  `${PODS.toLocaleString('en-US')} pods, ${(rawBytes / PODS).toFixed(0)} bytes of JSON each (${mb(rawBytes)} in all), sqlite store, watch cache, loopback HTTP`,
  '',
  '| measure | result | goal |',
  '| --- | --- | --- |',
  `| full list, all namespaces (${mb(fullBytes)}), best of 5 | ${Math.min(...fullTimes).toFixed(0)} ms (worst ${Math.max(...fullTimes).toFixed(0)} ms) | ≤ 1,500 ms |`,
  `| one ${PAGE}-item page (continue token, mid-collection), mean of ${page.samples.length} | ${ms(page.avg)} ms (p99 ${ms(page.p99)} ms) | ≤ 20 ms |`,
  `| first ${PAGE}-item page (consistent read), mean | ${ms(firstPage.avg)} ms (p99 ${ms(firstPage.p99)} ms) | |`,
  `| server RSS holding the cache, before any list (gc'd) | ${mb(idle.rss)} = ${(idle.rss / rawBytes).toFixed(2)} × the raw JSON (heap ${mb(idle.heapUsed)}, buffers ${mb(idle.arrayBuffers)}) | ≤ 2 × |`,
  `| server RSS after the lists (gc'd) | ${mb(memory.rss)} = ${(memory.rss / rawBytes).toFixed(2)} × the raw JSON (heap ${mb(memory.heapUsed)}, buffers ${mb(memory.arrayBuffers)}) | ≤ 2 × |`,
  `| server start (first list of every cache) | ${(server.startMs / 1000).toFixed(1)} s | |`,
];
console.log(lines.join('\n'));
