// Child process of bench/apiserver/run.ts: the API server on a sqlite store, and beside it a bare
// Fastify route that answers the very bytes the API server answers for one object. Both plain
// HTTP on loopback, so the comparison measures the server's own work, not TLS.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { unauthorized } from '../../src/api/index.js';
import { buildApp } from '../../src/apiserver/index.js';
import { SqliteStore } from '../../src/storage/index.js';

const TOKEN = 'bench-token';
const ADMIN = 'bench-admin-token';
// SVC_BENCH_AUTHZ: `masters` (default: the caller is in system:masters), `rbac` (a plain user whom
// a ClusterRoleBinding of `edit` lets read and create: the RBAC decision path), `allow` (AlwaysAllow).
const mode = process.env['SVC_BENCH_AUTHZ'] ?? 'masters';
const benchGroups = mode === 'masters' ? ['system:masters'] : ['system:authenticated'];
const store = new SqliteStore({ path: join(mkdtempSync(join(tmpdir(), 'svc-bench-api-')), 'state.db') });
const api = await buildApp({
  store,
  authorization: mode === 'allow' ? ['AlwaysAllow'] : ['RBAC'],
  authenticate: (headers) => {
    if (headers['authorization'] === `Bearer ${TOKEN}`) return { name: 'bench', uid: 'bench', groups: benchGroups };
    if (headers['authorization'] === `Bearer ${ADMIN}`) return { name: 'admin', uid: 'admin', groups: ['system:masters'] };
    throw unauthorized('Unauthorized');
  },
});
await api.listen({ host: '127.0.0.1', port: 0 });

const binding = {
  kind: 'ClusterRoleBinding',
  metadata: { name: 'bench-view' },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'edit' },
  subjects: [{ kind: 'User', name: 'bench' }],
};
const bound = await api.inject({
  method: 'POST',
  url: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
  headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
  payload: JSON.stringify(binding),
});
if (mode !== 'allow' && bound.statusCode !== 201) throw new Error(`binding failed: ${bound.body}`);
const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'target', labels: { app: 'bench' } }, data: { key: 'x'.repeat(1024) } };
const created = await api.inject({
  method: 'POST',
  url: '/api/v1/namespaces/default/configmaps',
  headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
  payload: JSON.stringify(cm),
});
if (created.statusCode !== 201) throw new Error(`seed failed: ${created.body}`);
const bytes = (await api.inject({ method: 'GET', url: '/api/v1/namespaces/default/configmaps/target', headers: { authorization: `Bearer ${TOKEN}` } })).body;

const bare = Fastify();
bare.get('/api/v1/namespaces/default/configmaps/target', async (_req, reply) => reply.type('application/json').send(bytes));
await bare.listen({ host: '127.0.0.1', port: 0 });

const port = (app: { server: { address(): unknown } }) => (app.server.address() as { port: number }).port;
process.stdout.write(`${JSON.stringify({ api: port(api), bare: port(bare), token: TOKEN, bytes: bytes.length })}\n`);
process.on('SIGTERM', async () => {
  await api.close();
  await bare.close();
  await store.close();
  process.exit(0);
});
