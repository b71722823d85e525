// Child process of bench/apiserver/flood.ts: the API server on a sqlite store with 500 ConfigMaps,
// flow control set from FLOOD_MAX_INFLIGHT (read-only seats; default 400 as the flag), and two
// plain users, `flooder` and `other`, plus an admin to seed with. Plain HTTP on loopback.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unauthorized } from '../../src/api/index.js';
import { buildApp } from '../../src/apiserver/index.js';
import { SqliteStore } from '../../src/storage/index.js';

const USERS: Record<string, { name: string; uid: string; groups: string[] }> = {
  'Bearer flooder-token': { name: 'flooder', uid: 'u-flooder', groups: ['system:authenticated'] },
  'Bearer other-token': { name: 'other', uid: 'u-other', groups: ['system:authenticated'] },
  'Bearer admin-token': { name: 'admin', uid: 'u-admin', groups: ['system:masters'] },
};
const OBJECTS = 500;
const store = new SqliteStore({ path: join(mkdtempSync(join(tmpdir(), 'svc-bench-flood-')), 'state.db') });
const api = await buildApp({
  store,
  authorization: ['AlwaysAllow'],
  authenticate: (headers) => {
    const user = USERS[String(headers['authorization'])];
    if (!user) throw unauthorized('Unauthorized');
    return user;
  },
  flowControl: { maxRequestsInflight: Number(process.env['FLOOD_MAX_INFLIGHT'] ?? 400) },
});
await api.listen({ host: '127.0.0.1', port: 0 });
for (let i = 0; i < OBJECTS; i++) {
  const created = await api.inject({
    method: 'POST',
    url: '/api/v1/namespaces/default/configmaps',
    headers: { authorization: 'Bearer admin-token', 'content-type': 'application/json' },
    payload: JSON.stringify({ metadata: { name: i === 0 ? 'target' : `cm-${i}` }, data: { key: 'x'.repeat(1024) } }),
  });
  if (created.statusCode !== 201) throw new Error(`seed failed: ${created.body}`);
}
process.stdout.write(`${JSON.stringify({ port: (api.server.address() as { port: number }).port, objects: OBJECTS })}\n`);
process.on('SIGTERM', async () => {
  await api.close();
  await store.close();
  process.exit(0);
});
