/**
 * The agent server over real HTTPS: its three ports, the serving certificate, and every
 * authentication and authorization rule, reviewed by a real svc-apiserver (TokenReview and
 * SubjectAccessReview against its RBAC). The runtime is not needed here: the CRI client points
 * at a socket that does not exist, which /metrics survives.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry, Counter } from 'prom-client';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtin, Client } from '../../../src/client/index.js';
import { startApiServer, type RunningApiServer } from '../../support/api-server.js';
import { CriClient, SELF_SIGNED_CERT, startAgentServer, type AgentServerFlags, type AgentServerOptions, type RunningAgentServer } from '../../../src/nodeagent/index.js';
import { makeCa, makeClientCert, type TestCa, type TestClientCert } from '../../support/client-certs.js';
import { agentFlags, call, echoRoutes, freePort } from './support.js';
import { waitUntil } from '../../support/wait.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-agent-server-'));
const NODE = 'node-1';
let api: RunningApiServer;
let admin: Client;
let reviews: Client;
let reviewCalls = 0;
let cri: CriClient;
let ca: TestCa;
let otherCa: TestCa;
let certUser: TestClientCert;
let strangerCert: TestClientCert;
const servers: RunningAgentServer[] = [];

const ALICE = 'alice-token';
const BOB = 'bob-token';

async function agent(flags: Partial<AgentServerFlags>, extra: Partial<AgentServerOptions> = {}): Promise<RunningAgentServer> {
  const server = await startAgentServer({ flags: agentFlags(dir, flags), nodeName: NODE, cri, client: reviews, config: { nodeName: NODE, port: 10250 }, ...extra });
  servers.push(server);
  return server;
}

beforeAll(async () => {
  const tokens = join(dir, 'tokens.csv');
  writeFileSync(tokens, `${ALICE},alice,uid-alice,"team-a"\n${BOB},bob,uid-bob\n`);
  api = await startApiServer({ dataDir: join(dir, 'api'), storage: 'memory', bindAddress: '127.0.0.1', securePort: 0, tokenAuthFile: tokens });
  admin = new Client({ server: api.url, token: api.adminToken, caData: api.caPem });
  // The agent's own client: every request it sends is counted (reviews it did not answer from cache).
  reviews = new Client({ server: api.url, token: api.adminToken, caData: api.caPem, throttle: async () => void reviewCalls++ });
  cri = new CriClient({ endpoint: `unix://${join(dir, 'no-runtime.sock')}`, timeoutMs: 2000 });
  ca = await makeCa('agent-clients');
  otherCa = await makeCa('strangers');
  certUser = await makeClientCert(ca, { cn: 'cert-user', organizations: ['ops', 'auditors'] });
  strangerCert = await makeClientCert(otherCa, { cn: 'cert-user' });
  writeFileSync(join(dir, 'client-ca.pem'), ca.pem);
  // RBAC: alice may read the node's metrics; cert-user (through its group ops) may proxy; bob nothing.
  await admin.create(builtin.clusterRoles, { apiVersion: 'rbac.authorization.svc.io/v1', kind: 'ClusterRole', metadata: { name: 'node-metrics' }, rules: [{ apiGroups: [''], resources: ['nodes/metrics'], verbs: ['get'] }] });
  await admin.create(builtin.clusterRoles, { apiVersion: 'rbac.authorization.svc.io/v1', kind: 'ClusterRole', metadata: { name: 'node-proxy' }, rules: [{ apiGroups: [''], resources: ['nodes/proxy'], verbs: ['get', 'create'] }] });
  await admin.create(builtin.clusterRoleBindings, {
    apiVersion: 'rbac.authorization.svc.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'alice-metrics' },
    roleRef: { apiGroup: 'rbac.authorization.svc.io', kind: 'ClusterRole', name: 'node-metrics' },
    subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.svc.io', name: 'alice' }],
  });
  await admin.create(builtin.clusterRoleBindings, {
    apiVersion: 'rbac.authorization.svc.io/v1',
    kind: 'ClusterRoleBinding',
    metadata: { name: 'ops-proxy' },
    roleRef: { apiGroup: 'rbac.authorization.svc.io', kind: 'ClusterRole', name: 'node-proxy' },
    subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.svc.io', name: 'ops' }],
  });
}, 60_000);

afterAll(async () => {
  for (const server of servers) await server.close();
  cri?.close();
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('endpoints', () => {
  let s: RunningAgentServer;
  beforeAll(async () => {
    const workers = new Registry();
    new Counter({ name: 'nodeagent_pod_syncs_total', help: 'syncs', registers: [workers] }).inc(3);
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default', uid: 'u-1' }, spec: { containers: [{ name: 'c', image: 'busybox' }] }, status: { phase: 'Running' as const } };
    s = await agent({}, { pods: { pods: () => [pod] }, metrics: workers, routes: [echoRoutes(['/echo'])] });
  });

  it('/healthz and /healthz/ping answer ok', async () => {
    expect(await call(s.port, '/healthz')).toMatchObject({ status: 200, text: 'ok' });
    expect(await call(s.port, '/healthz/ping')).toMatchObject({ status: 200, text: 'ok' });
    // The daemons' shared health answer: the checks listed on ?verbose, an unknown one is a 404.
    expect(await call(s.port, '/healthz?verbose')).toMatchObject({ status: 200, text: '[+]ping ok\nhealthz check passed\n' });
    expect((await call(s.port, '/healthz/nothing')).status).toBe(404);
  });

  it('/pods is a PodList of the pods the agent runs', async () => {
    const res = await call(s.port, '/pods');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ kind: 'PodList', apiVersion: 'v1', items: [{ metadata: { name: 'web', uid: 'u-1' }, status: { phase: 'Running' } }] });
  });

  it('/configz wraps the resolved configuration in nodeagentconfig', async () => {
    expect((await call(s.port, '/configz')).json).toEqual({ nodeagentconfig: { nodeName: NODE, port: 10250 } });
  });

  it("/metrics exposes the agent's gauges and the workers' registry", async () => {
    const res = await call(s.port, '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toContain('text/plain');
    expect(res.text).toMatch(/^nodeagent_running_pods 1$/m);
    expect(res.text).toMatch(/^nodeagent_pod_syncs_total 3$/m);
    expect(res.text).toContain('nodeagent_http_requests_total{method="GET",path="pods",server_type="readwrite",code="200"}');
  });

  it('an unknown path is a 404 Status', async () => {
    expect((await call(s.port, '/nothing')).json).toMatchObject({ kind: 'Status', code: 404, reason: 'NotFound' });
  });

  it('a route module gets upgrades through the same checks (a WebSocket echo)', async () => {
    const ws = new WebSocket(`wss://127.0.0.1:${s.port}/echo?x=1`, ['v5.channel.k8s.io'], { rejectUnauthorized: false });
    const messages: string[] = [];
    await new Promise<void>((resolve, reject) => {
      ws.on('message', (data) => {
        messages.push(String(data));
        if (messages.length === 1) ws.send('ping');
        else resolve();
      });
      ws.on('error', reject);
    });
    ws.close();
    expect(JSON.parse(messages[0]!)).toEqual({ url: '/echo?x=1', protocol: 'v5.channel.k8s.io' });
    expect(messages[1]).toBe('ping');
  });
});

describe('the serving certificate', () => {
  it('is generated once in --cert-dir and reused by the next start', async () => {
    const certDir = join(dir, 'pki-once');
    const first = await agent({ certDir });
    const written = readFileSync(join(certDir, SELF_SIGNED_CERT), 'utf8');
    expect(first.certificate).toBe(written);
    const second = await agent({ certDir });
    expect(second.certificate).toBe(written);
    // The certificate names the node and localhost: a client that trusts it verifies the connection.
    expect((await call(second.port, '/healthz', { ca: written })).status).toBe(200);
  });

  it('uses --tls-cert-file and --tls-private-key-file when given', async () => {
    const serving = await makeClientCert(ca, { cn: 'localhost', usage: 'server' });
    writeFileSync(join(dir, 'serving.crt'), serving.cert);
    writeFileSync(join(dir, 'serving.key'), serving.key);
    const s = await agent({ tlsCertFile: join(dir, 'serving.crt'), tlsPrivateKeyFile: join(dir, 'serving.key'), certDir: join(dir, 'unused') });
    expect(s.certificate).toBe(serving.cert);
  });

  it('--tls-min-version=VersionTLS13 refuses a TLS 1.2 client', async () => {
    const s = await agent({ tlsMinVersion: 'VersionTLS13' });
    await expect(call(s.port, '/healthz', { maxVersion: 'TLSv1.2' })).rejects.toThrow();
    expect((await call(s.port, '/healthz')).status).toBe(200);
  });

  it('--tls-cipher-suites takes Go names and refuses unknown ones', async () => {
    const s = await agent({ tlsCipherSuites: ['TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256', 'TLS_AES_128_GCM_SHA256'] });
    expect((await call(s.port, '/healthz')).status).toBe(200);
    await expect(agent({ tlsCipherSuites: ['TLS_NOT_A_SUITE'] })).rejects.toMatchObject({ code: 400, message: expect.stringContaining('TLS_NOT_A_SUITE') });
  });
});

describe('the read-only and health ports', () => {
  let s: RunningAgentServer;
  beforeAll(async () => {
    s = await agent({ readOnlyPort: await freePort(), healthzPort: await freePort(), anonymousAuth: false }, { routes: [echoRoutes(['/echo'])] });
  });

  it('the read-only port serves /pods, /healthz, /stats/summary and /metrics over HTTP without credentials', async () => {
    expect((await call(s.readOnlyPort!, '/pods', {}, true)).json).toMatchObject({ kind: 'PodList', items: [] });
    expect((await call(s.readOnlyPort!, '/healthz', {}, true)).status).toBe(200);
    expect((await call(s.readOnlyPort!, '/metrics', {}, true)).text).toContain('server_type="readonly"');
    // /stats/summary is served there (this runtime is absent, so it answers a Status, not a 404).
    expect((await call(s.readOnlyPort!, '/stats/summary', {}, true)).status).not.toBe(404);
  });

  it('the read-only port has no logs, exec, configz or route modules', async () => {
    for (const path of ['/configz', '/containerLogs/default/web/c', '/echo', '/exec/default/web/c']) {
      expect((await call(s.readOnlyPort!, path, {}, true)).json, path).toMatchObject({ kind: 'Status', code: 404 });
    }
  });

  it('the health port serves /healthz only', async () => {
    expect(await call(s.healthzPort!, '/healthz', {}, true)).toMatchObject({ status: 200, text: 'ok' });
    expect((await call(s.healthzPort!, '/pods', {}, true)).status).toBe(404);
  });

  it('port 0 disables them', async () => {
    const off = await agent({ readOnlyPort: 0, healthzPort: 0 });
    expect(off.readOnlyPort).toBeUndefined();
    expect(off.healthzPort).toBeUndefined();
  });

  it('--enable-debugging-handlers=false removes container logs and debugging route modules', async () => {
    const off = await agent({ enableDebuggingHandlers: false }, { routes: [echoRoutes(['/echo']), echoRoutes(['/kept'], false)] });
    expect((await call(off.port, '/containerLogs/default/web/c')).status).toBe(404);
    expect((await call(off.port, '/echo')).status).toBe(404);
    expect((await call(off.port, '/kept')).json).toMatchObject({ code: 400, message: 'Upgrade request required' });
  });
});

describe('authentication', () => {
  it('--anonymous-auth lets a request without credentials in; off, it is a 401 Status', async () => {
    const on = await agent({ anonymousAuth: true });
    expect((await call(on.port, '/pods')).status).toBe(200);
    const off = await agent({ anonymousAuth: false });
    expect((await call(off.port, '/pods')).json).toMatchObject({ kind: 'Status', code: 401, reason: 'Unauthorized' });
  });

  it('a client certificate signed by --client-ca-file authenticates; one from another CA is a 401 even with anonymous on', async () => {
    const s = await agent({ anonymousAuth: true, clientCaFile: join(dir, 'client-ca.pem'), authorizationMode: 'Webhook' });
    // cert-user is in group ops (its O), which may proxy: the review saw the certificate's identity.
    expect((await call(s.port, '/pods', { cert: certUser.cert, key: certUser.key })).status).toBe(200);
    expect((await call(s.port, '/pods', { cert: strangerCert.cert, key: strangerCert.key })).json).toMatchObject({ code: 401, reason: 'Unauthorized' });
  });

  it('bearer tokens go through TokenReview; a rejected token is a 401 even with anonymous on', async () => {
    const s = await agent({ anonymousAuth: true, authenticationTokenWebhook: true, authorizationMode: 'Webhook' });
    expect((await call(s.port, '/metrics', { token: ALICE })).status).toBe(200);
    expect((await call(s.port, '/metrics', { token: 'nobody-has-this' })).json).toMatchObject({ code: 401, reason: 'Unauthorized' });
  });

  it('without --authentication-token-webhook a token is not looked at: the request is anonymous', async () => {
    const s = await agent({ anonymousAuth: true, authorizationMode: 'Webhook' });
    const res = await call(s.port, '/metrics', { token: ALICE });
    expect(res.json).toMatchObject({ code: 403 });
    expect(res.json.message).toContain('user=system:anonymous');
  });

  it('TokenReview answers are cached for the TTL on the injected clock', async () => {
    let now = 1_000_000;
    const s = await agent({ authenticationTokenWebhook: true, authenticationTokenWebhookCacheTtl: 60_000, anonymousAuth: false }, { now: () => now });
    // A service account token, good while the service account exists.
    await admin.create(builtin.serviceAccounts, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot', namespace: 'default' } });
    const minted = await call(api.port, '/api/v1/namespaces/default/serviceaccounts/robot/token', {
      method: 'POST',
      token: api.adminToken,
      ca: api.caPem,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'authentication.svc.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } }),
    });
    const token = minted.json.status.token as string;
    expect((await call(s.port, '/pods', { token })).status).toBe(200);
    await admin.delete(builtin.serviceAccounts, 'robot', { namespace: 'default' });
    // The API server no longer accepts it, the agent's cached answer still does until the TTL runs out.
    expect((await call(s.port, '/pods', { token })).status).toBe(200);
    now += 60_001;
    expect((await call(s.port, '/pods', { token })).json).toMatchObject({ code: 401 });
  });
});

describe('authorization', () => {
  it('AlwaysAllow lets any authenticated request in', async () => {
    const s = await agent({ authenticationTokenWebhook: true });
    expect((await call(s.port, '/pods', { token: BOB })).status).toBe(200);
  });

  it('Webhook maps the request to nodes/<subresource> and allows or denies by the review, as a 403 Status', async () => {
    const s = await agent({ authenticationTokenWebhook: true, authorizationMode: 'Webhook' });
    expect((await call(s.port, '/metrics', { token: ALICE })).status).toBe(200);
    const denied = await call(s.port, '/pods', { token: ALICE });
    expect(denied.json).toMatchObject({ kind: 'Status', code: 403, reason: 'Forbidden', details: { kind: 'nodes', name: NODE } });
    expect(denied.json.message).toContain('user=alice, verb=get, resource=nodes, subresource=proxy');
    expect((await call(s.port, '/metrics', { token: BOB })).json.message).toContain('subresource=metrics');
  });

  it('allowed and denied answers are cached for their own TTLs on the injected clock', async () => {
    let now = 5_000_000;
    const s = await agent({ authenticationTokenWebhook: true, authorizationMode: 'Webhook', authorizationWebhookCacheAuthorizedTtl: 300_000, authorizationWebhookCacheUnauthorizedTtl: 30_000 }, { now: () => now });
    expect((await call(s.port, '/metrics', { token: ALICE })).status).toBe(200);
    expect((await call(s.port, '/metrics', { token: BOB })).status).toBe(403);
    const before = reviewCalls;
    expect((await call(s.port, '/metrics', { token: ALICE })).status).toBe(200);
    expect((await call(s.port, '/metrics', { token: BOB })).status).toBe(403);
    expect(reviewCalls).toBe(before);
    // Past the unauthorized TTL bob is asked about again; alice is still answered from the cache.
    now += 30_001;
    expect((await call(s.port, '/metrics', { token: BOB })).status).toBe(403);
    expect(reviewCalls).toBe(before + 1);
    expect((await call(s.port, '/metrics', { token: ALICE })).status).toBe(200);
    expect(reviewCalls).toBe(before + 1);
    // Revoked in the API server: the cached allow holds until the authorized TTL ends.
    await admin.delete(builtin.clusterRoleBindings, 'alice-metrics');
    await until(async () => (await sar('alice', 'metrics')) === false);
    expect((await call(s.port, '/metrics', { token: ALICE })).status).toBe(200);
    now += 300_001;
    expect((await call(s.port, '/metrics', { token: ALICE })).status).toBe(403);
  });

  it('the webhook modes need a client', async () => {
    await expect(startAgentServer({ flags: agentFlags(dir, { authorizationMode: 'Webhook' }), nodeName: NODE, cri })).rejects.toMatchObject({ code: 400 });
  });
});

async function sar(user: string, subresource: string): Promise<boolean> {
  const res = await call(api.port, '/apis/authorization.svc.io/v1/subjectaccessreviews', {
    method: 'POST',
    token: api.adminToken,
    ca: api.caPem,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ apiVersion: 'authorization.svc.io/v1', kind: 'SubjectAccessReview', spec: { user, resourceAttributes: { verb: 'get', resource: 'nodes', subresource, name: NODE } } }),
  });
  return res.json.status.allowed === true;
}

const until = (check: () => Promise<boolean>): Promise<void> => waitUntil(check, 'the condition', 50);
