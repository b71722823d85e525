// Patch and apply operations per second on a 2 KiB Deployment, through the whole API server
// (routing, decoding, merge, validation, managedFields, store write) with Fastify's inject: no
// sockets, one writer at a time, memory and SQLite stores; then the same writes when they change
// nothing (no store write). Run: npm run bench:writes
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InjectOptions } from 'fastify';
import { buildApp } from '../../src/apiserver/index.js';
import { MemoryStore, SqliteStore, type Store } from '../../src/storage/index.js';

const TOKEN = 'bench';
const URL = '/apis/apps/v1/namespaces/default/deployments';
const SECONDS = Number(process.env['BENCH_SECONDS'] ?? 3);

function deployment(name: string, replicas: number) {
  const env = Array.from({ length: 20 }, (_, i) => ({ name: `SETTING_${i}`, value: `value-${i}-${'x'.repeat(40)}` }));
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, labels: { app: name, tier: 'web', team: 'payments' }, annotations: { 'example.com/owner': 'payments-team' } },
    spec: {
      replicas,
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name, tier: 'web' } },
        spec: {
          containers: [
            { name: 'web', image: 'registry.example.com/web:1.2.3', ports: [{ containerPort: 8080, protocol: 'TCP' }], env, resources: { requests: { cpu: '100m', memory: '128Mi' } } },
            { name: 'proxy', image: 'envoyproxy/envoy:v1.30', ports: [{ containerPort: 9901, protocol: 'TCP' }] },
          ],
        },
      },
    },
  };
}

async function measure(label: string, op: (i: number) => Promise<number>): Promise<number> {
  for (let i = 0; i < 200; i++) await op(i); // warm up
  let count = 0;
  const end = performance.now() + SECONDS * 1000;
  const start = performance.now();
  while (performance.now() < end) {
    const status = await op(count);
    if (status >= 300) throw new Error(`${label}: status ${status}`);
    count++;
  }
  const rate = count / ((performance.now() - start) / 1000);
  console.log(`${label.padEnd(44)} ${rate.toFixed(0).padStart(7)} ops/s`);
  return rate;
}

async function run(backend: string, store: Store) {
  const app = await buildApp({ store, authenticate: () => ({ name: 'bench', uid: 'b', groups: ['system:masters'] }) });
  const call = (method: string, url: string, body: string, type: string) =>
    app.inject({ method: method as InjectOptions['method'], url, payload: body, headers: { authorization: `Bearer ${TOKEN}`, 'content-type': type } }).then((r) => r.statusCode);
  const size = JSON.stringify(deployment('bench', 1)).length;
  await call('POST', URL, JSON.stringify(deployment('bench', 1)), 'application/json');
  console.log(`\n${backend} store, Deployment of ${size} bytes of JSON`);
  await measure('merge patch (spec.replicas)', (i) => call('PATCH', `${URL}/bench`, JSON.stringify({ spec: { replicas: (i % 5) + 1 } }), 'application/merge-patch+json'));
  await measure('JSON patch (replace /spec/replicas)', (i) =>
    call('PATCH', `${URL}/bench`, JSON.stringify([{ op: 'replace', path: '/spec/replicas', value: (i % 5) + 1 }]), 'application/json-patch+json'));
  await measure('strategic merge patch (one container image)', (i) =>
    call('PATCH', `${URL}/bench`, JSON.stringify({ spec: { template: { spec: { containers: [{ name: 'web', image: `web:${i % 7}` }] } } } }), 'application/strategic-merge-patch+json'));
  const manifest = (i: number) => JSON.stringify(deployment('bench', (i % 5) + 1)); // JSON is YAML
  await measure('server-side apply (whole manifest)', (i) => call('PATCH', `${URL}/bench?fieldManager=bench&force=true`, manifest(i), 'application/apply-patch+yaml'));
  // Writes that change nothing: nothing is stored, the stored object is the answer (docs/writes.md).
  await measure('merge patch that changes nothing', () => call('PATCH', `${URL}/bench`, JSON.stringify({ spec: { replicas: 3 } }), 'application/merge-patch+json'));
  await measure('server-side apply that changes nothing', () => call('PATCH', `${URL}/bench?fieldManager=bench&force=true`, manifest(2), 'application/apply-patch+yaml'));
  await app.close();
  await store.close();
}

await run('memory', new MemoryStore());
const dir = mkdtempSync(join(tmpdir(), 'svc-bench-writes-'));
try {
  await run('sqlite', new SqliteStore({ path: join(dir, 'state.db') }));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
