import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type RunningApiServer } from '../../../src/cli/apiserver-command.js';
import { makeCa, makeClientCert, type TestCa, type TestClientCert } from '../../support/client-certs.js';
import { kubectl, requireKubectl } from '../../support/kubectl.js';
import { httpsCall } from './https-request.js';

const DAY = 86_400_000;
let dir: string;
let server: RunningApiServer;
let ca: TestCa;
let other: TestCa;
let alice: TestClientCert;

const NS = '/api/v1/namespaces';

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-authn-x509-'));
  ca = await makeCa('clients');
  other = await makeCa('elsewhere');
  alice = await makeClientCert(ca, { cn: 'alice', organizations: ['dev', 'ops'] });
  writeFileSync(join(dir, 'client-ca.crt'), ca.pem);
  server = await startApiServer(['--storage=memory', '--secure-port=0', '--bind-address=127.0.0.1', `--data-dir=${join(dir, 'data')}`, `--client-ca-file=${join(dir, 'client-ca.crt')}`]);
});
afterAll(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const get = (path: string, cert?: TestClientCert, token?: string) =>
  httpsCall('GET', `${server.url}${path}`, { ca: server.caPem, ...(cert ? { cert: cert.cert, key: cert.key } : {}), ...(token ? { token } : {}) });

const RBAC = '/apis/rbac.authorization.k8s.io/v1';

/** As the admin, binds a ClusterRole (cluster-wide, or in `namespace`): RBAC is on, so an authenticated user may do nothing else. */
async function bind(name: string, clusterRole: string, subject: { kind: 'User' | 'Group'; name: string }, namespace?: string) {
  const kind = namespace ? 'RoleBinding' : 'ClusterRoleBinding';
  const res = await httpsCall('POST', `${server.url}${RBAC}/${namespace ? `namespaces/${namespace}/rolebindings` : 'clusterrolebindings'}`, {
    ca: server.caPem,
    token: server.adminToken,
    body: {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind,
      metadata: { name, ...(namespace ? { namespace } : {}) },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: clusterRole },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', ...subject }],
    },
  });
  expect(res.status).toBe(201);
}

/** A 403 whose message names the user: authentication succeeded, authorization said no. */
const expectForbiddenAs = (res: { status: number; body: any }, user: string) => {
  expect(res.status).toBe(403);
  expect(res.body).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Forbidden', code: 403 });
  expect(res.body.message).toContain(`User "${user}" cannot `);
};

const expectUnauthorized = (res: { status: number; body: any }) => {
  expect(res.status).toBe(401);
  expect(res.body).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Unauthorized', code: 401 });
};

describe('x509 client certificates (--client-ca-file)', () => {
  it('authenticates a client whose certificate the client CA signed: CN is the user, O the groups', async () => {
    // Before any grant, RBAC refuses alice by name: the certificate made her "alice".
    expectForbiddenAs(await get(NS, alice), 'alice');
    // Bound through the group her certificate's O= gives her.
    await bind('dev-view', 'view', { kind: 'Group', name: 'dev' });
    const res = await get(NS, alice);
    expect(res.status).toBe(200);
    expect(res.body.kind).toBe('NamespaceList');
  });

  it('does not require a certificate: the admin token still works without one', async () => {
    expect((await get(NS, undefined, server.adminToken)).status).toBe(200);
  });

  it('treats a request with no credentials at all as system:anonymous (--anonymous-auth defaults to true under RBAC)', async () => {
    expectForbiddenAs(await get(NS), 'system:anonymous');
    expect((await get('/version')).status).toBe(200);
  });

  it.each([
    ['signed by another CA', async () => makeClientCert(other, { cn: 'mallory' })],
    ['expired', async () => makeClientCert(ca, { cn: 'old', notBefore: new Date(Date.now() - 10 * DAY), notAfter: new Date(Date.now() - DAY) })],
    ['not yet valid', async () => makeClientCert(ca, { cn: 'early', notBefore: new Date(Date.now() + DAY), notAfter: new Date(Date.now() + 10 * DAY) })],
    ['issued for server authentication only', async () => makeClientCert(ca, { cn: 'server', usage: 'server' })],
  ])('refuses a certificate %s with a 401 Status, even alongside a good token', async (_what, make) => {
    const cert = await make();
    expectUnauthorized(await get(NS, cert));
    expectUnauthorized(await get(NS, cert, server.adminToken));
  });

  it('writes nothing for a refused certificate', async () => {
    const cert = await makeClientCert(other, { cn: 'mallory' });
    const res = await httpsCall('POST', `${server.url}/api/v1/namespaces/default/configmaps`, {
      ca: server.caPem,
      cert: cert.cert,
      key: cert.key,
      body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'by-mallory' } },
    });
    expectUnauthorized(res);
    expect((await get('/api/v1/namespaces/default/configmaps/by-mallory', undefined, server.adminToken)).status).toBe(404);
  });

  it('lets kubectl in with a kubeconfig holding client-certificate-data, as alice, with what RBAC grants her', async () => {
    requireKubectl();
    const b64 = (text: string) => Buffer.from(text).toString('base64');
    const path = join(dir, 'alice.kubeconfig');
    writeFileSync(
      path,
      [
        'apiVersion: v1',
        'kind: Config',
        `clusters: [{name: svc, cluster: {server: "${server.url}", certificate-authority-data: ${b64(server.caPem!)}}}]`,
        `users: [{name: alice, user: {client-certificate-data: ${b64(alice.cert)}, client-key-data: ${b64(alice.key)}}}]`,
        'contexts: [{name: alice, context: {cluster: svc, user: alice}}]',
        'current-context: alice',
      ].join('\n'),
    );
    const refused = await kubectl(path, ['create', 'configmap', 'from-alice', '--from-literal=a=b']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('User "alice" cannot create resource "configmaps" in API group "" in the namespace "default"');
    await bind('alice-edits', 'edit', { kind: 'User', name: 'alice' }, 'default');
    const created = await kubectl(path, ['create', 'configmap', 'from-alice', '--from-literal=a=b']);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const read = await kubectl(path, ['get', 'configmap', 'from-alice', '-o', 'jsonpath={.data.a}']);
    expect(read.stdout).toBe('b');
  });
});
