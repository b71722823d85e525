// Child process of bench/apiserver/creates.ts: the API server on a sqlite store (plain HTTP on
// loopback, token authentication, the caller in system:masters), which also times the same store
// alone when asked, so that the HTTP path and the storage it costs on top of are measured in one
// process, one disk and one moment. IPC: `{store: n}` → `{ms}` for n creates of the bench's
// ConfigMap bytes, 64 in flight, on a prefix of their own; `cpu` → `{cpuMs}`; `stop`.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unauthorized } from '../../src/api/index.js';
import { buildApp } from '../../src/apiserver/index.js';
import { SqliteStore } from '../../src/storage/index.js';

const TOKEN = 'bench-token';
const store = new SqliteStore({ path: join(mkdtempSync(join(tmpdir(), 'svc-bench-creates-')), 'state.db') });
const api = await buildApp({
  store,
  authenticate: (headers) => {
    if (headers['authorization'] === `Bearer ${TOKEN}`) return { name: 'bench', uid: 'bench', groups: ['system:masters'] };
    throw unauthorized('Unauthorized');
  },
});
await api.listen({ host: '127.0.0.1', port: 0 });

// What the server stores for one of the bench's ConfigMaps, so the store alone writes as much.
const sample = await api.inject({
  method: 'POST',
  url: '/api/v1/namespaces/default/configmaps',
  headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
  payload: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'sample' }, data: { key: 'x'.repeat(1024) } }),
});
if (sample.statusCode !== 201) throw new Error(`sample: ${sample.statusCode} ${sample.body}`);
const value = new TextEncoder().encode(sample.body.trimEnd());

let storeRound = 0;
async function storeCreates(n: number): Promise<number> {
  const prefix = `${store.prefix}bench-store/${storeRound++}/`;
  let next = 0;
  const started = performance.now();
  const writer = async () => {
    while (next < n) await store.create(`${prefix}${next++}`, value);
  };
  await Promise.all(Array.from({ length: 64 }, writer));
  return performance.now() - started;
}

process.on('message', async (message: unknown) => {
  if (message === 'stop') {
    await api.close();
    await store.close();
    process.exit(0);
  }
  if (message === 'cpu') process.send!({ cpuMs: (process.cpuUsage().user + process.cpuUsage().system) / 1000 });
  else if (typeof message === 'object' && message !== null && 'store' in message) process.send!({ ms: await storeCreates(Number(message.store)) });
});
process.stdout.write(`${JSON.stringify({ port: (api.server.address() as { port: number }).port, token: TOKEN, bytes: value.length })}\n`);
