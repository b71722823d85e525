import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpsRequest, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket, WebSocketServer } from 'ws';
import { startApiServer, type RunningApiServer } from '../../src/cli/apiserver-command.js';
import { makeCa, makeClientCert, type TestCa } from '../support/client-certs.js';
import { kubectl, requireKubectl } from '../support/kubectl.js';
import { freePort } from '../support/free-port.js';

/**
 * The aggregation layer against a real aggregated API server: a small HTTPS server in this process
 * serving widgets.example.com/v1 (discovery and a list) that, as a real one must, accepts only
 * requests whose client certificate the front-proxy CA signed, and reads the user from
 * X-Remote-User/X-Remote-Group. The Service's endpoints are an Endpoints object written here.
 */

const NS = 'aggregation-test';
const GROUP = 'widgets.example.com';
const WIDGETS = `/apis/${GROUP}/v1/namespaces/${NS}/widgets`;

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly user: string | undefined;
  readonly groups: string | undefined;
  readonly authorization: string | undefined;
  readonly proxyCn: string | undefined;
  /** The X-Remote-Extra-* headers, by the rest of their name. */
  readonly extra: Record<string, string>;
}

/** The aggregated server: what it was asked, and a way to stop it. */
class RemoteServer {
  readonly seen: Seen[] = [];
  server!: Server;
  port = 0;

  async start(serving: { cert: string; key: string }, frontProxyCa: string, port = 0): Promise<void> {
    this.server = createServer({ ...serving, ca: frontProxyCa, requestCert: true, rejectUnauthorized: false }, (req, res) => this.#handle(req, res));
    // A watch over WebSocket: the first message says who the front proxy named.
    const sockets = new WebSocketServer({ noServer: true });
    this.server.on('upgrade', (req: IncomingMessage, socket, head) => {
      const tls = req.socket as TLSSocket;
      if (!tls.authorized) return socket.destroy();
      sockets.handleUpgrade(req, socket, head, (ws) => ws.send(JSON.stringify({ type: 'ADDED', object: widget('w1', req.headers['x-remote-user']) })));
    });
    this.server.listen(port, '127.0.0.1');
    await once(this.server, 'listening');
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    this.server.close();
    await once(this.server, 'close');
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const socket = req.socket as TLSSocket;
    const cn = socket.getPeerCertificate()?.subject?.CN;
    const proxyCn = Array.isArray(cn) ? cn[0] : cn;
    const header = (name: string) => (req.headers[name] === undefined ? undefined : String(req.headers[name]));
    const extra = Object.fromEntries(Object.keys(req.headers).filter((h) => h.startsWith('x-remote-extra-')).map((h) => [h.slice('x-remote-extra-'.length), header(h)!]));
    this.seen.push({ method: req.method!, url: req.url!, user: header('x-remote-user'), groups: header('x-remote-group'), authorization: header('authorization'), proxyCn, extra });
    const json = (code: number, body: unknown) => {
      res.writeHead(code, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    // A real aggregated server trusts the headers only from a verified front proxy.
    if (!socket.authorized || proxyCn !== 'front-proxy-client') return json(401, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 401, reason: 'Unauthorized' });
    const url = new URL(req.url!, 'https://remote');
    if (url.pathname === `/apis/${GROUP}/v1`) {
      return json(200, {
        kind: 'APIResourceList',
        apiVersion: 'v1',
        groupVersion: `${GROUP}/v1`,
        resources: [{ name: 'widgets', singularName: 'widget', namespaced: true, kind: 'Widget', verbs: ['create', 'get', 'list', 'watch'], shortNames: ['wdg'] }],
      });
    }
    if (url.pathname === WIDGETS && req.method === 'GET' && url.searchParams.get('watch') === '1') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(JSON.stringify({ type: 'ADDED', object: widget('w1', req.headers['x-remote-user']) }) + '\n');
      return; // open until the client goes
    }
    if (url.pathname === WIDGETS && req.method === 'GET') {
      return json(200, { kind: 'WidgetList', apiVersion: `${GROUP}/v1`, metadata: { resourceVersion: '1' }, items: [widget('w1', req.headers['x-remote-user'])] });
    }
    if (url.pathname === WIDGETS && req.method === 'POST') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => json(201, JSON.parse(Buffer.concat(chunks).toString('utf8'))));
      return;
    }
    json(404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 404, reason: 'NotFound' });
  }
}

const widget = (name: string, servedTo: unknown) => ({
  kind: 'Widget',
  apiVersion: `${GROUP}/v1`,
  metadata: { name, namespace: NS, creationTimestamp: '2026-01-01T00:00:00Z' },
  spec: { servedTo },
});

/** A request to svc over HTTPS with a bearer token; resolves with the status and the first line (then hangs up) or the whole body. */
function svcRequest(
  server: RunningApiServer,
  method: string,
  path: string,
  init: { token?: string; body?: string; firstChunk?: boolean; headers?: Record<string, string>; cert?: { cert: string; key: string } } = {},
) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const url = new URL(path, server.url);
    const req = httpsRequest(
      {
        host: url.hostname,
        port: url.port,
        method,
        path: url.pathname + url.search,
        ca: server.caPem,
        agent: false,
        ...init.cert,
        headers: {
          ...init.headers,
          ...(init.cert ? {} : { authorization: `Bearer ${init.token ?? server.adminToken}` }),
          ...(init.body ? { 'content-type': 'application/json' } : {}),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          text += chunk;
          if (init.firstChunk && text.includes('\n')) {
            res.destroy();
            resolve({ status: res.statusCode ?? 0, text });
          }
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(init.body);
  });
}

const apiServiceManifest = (name: string, version: string, service: string, caBundle: string) => `
apiVersion: apiregistration.k8s.io/v1
kind: APIService
metadata:
  name: ${name}
spec:
  group: ${GROUP}
  version: ${version}
  service:
    namespace: ${NS}
    name: ${service}
    port: 443
  caBundle: ${caBundle}
  groupPriorityMinimum: 1000
  versionPriority: 15
`;

describe('kubectl and an aggregated API server', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-aggregation-'));
  const remote = new RemoteServer();
  let server: RunningApiServer;
  let config: string;
  let remoteCa: TestCa;
  let serving: { cert: string; key: string };
  let frontProxyCa: string;
  const k = (args: string[], stdin?: string) => kubectl(config, args, stdin);

  beforeAll(async () => {
    requireKubectl();
    const tokens = join(dir, 'tokens.csv');
    writeFileSync(tokens, 'bob-token,bob,uid-bob\n');
    server = await startApiServer({
      dataDir: join(dir, 'data'),
      storage: 'sqlite',
      bindAddress: '127.0.0.1',
      securePort: 0,
      tokenAuthFile: tokens,
      aggregatorCheckIntervalMs: 1000,
    });
    config = server.svcconfigPath;
    frontProxyCa = readFileSync(join(dir, 'data', 'pki', 'front-proxy-ca.crt'), 'utf8');
    remoteCa = await makeCa('widgets-ca');
    serving = await makeClientCert(remoteCa, { cn: 'widgets', usage: 'server', dnsNames: [`widgets.${NS}.svc`] });
    // Below the ephemeral range: the remote is started again on this port after a stop, and a port
    // a port-0 listen handed out could be taken by another test's in between.
    await remote.start(serving, frontProxyCa, await freePort('127.0.0.1'));
    const setup = await k(['apply', '-f', '-'], `
apiVersion: v1
kind: Namespace
metadata:
  name: ${NS}
---
apiVersion: v1
kind: Service
metadata:
  name: widgets
  namespace: ${NS}
spec:
  ports:
    - name: https
      port: 443
      targetPort: ${remote.port}
---
apiVersion: v1
kind: Endpoints
metadata:
  name: widgets
  namespace: ${NS}
subsets:
  - addresses:
      - ip: 127.0.0.1
    ports:
      - name: https
        port: ${remote.port}
`);
    expect(setup.stderr).toBe('');
    const registered = await k(['apply', '-f', '-'], apiServiceManifest(`v1.${GROUP}`, 'v1', 'widgets', Buffer.from(remoteCa.pem).toString('base64')));
    expect(registered.stderr).toBe('');
    expect(registered.stdout.trim()).toMatch(/^apiservice\.apiregistration\.(k8s|svc)\.io\/v1\.widgets\.example\.com created$/);
  });

  afterAll(async () => {
    await server?.close();
    if (remote.server?.listening) await remote.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('turns the remote APIService Available and lists it with the local ones', async () => {
    const waited = await k(['wait', '--for=condition=Available', '--timeout=30s', `apiservice/v1.${GROUP}`]);
    expect(waited.stderr).toBe('');
    const got = await k(['get', 'apiservices']);
    expect(got.stderr).toBe('');
    const lines = got.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^NAME\s+SERVICE\s+AVAILABLE\s+AGE$/);
    expect(got.stdout).toMatch(/^v1\.\s+Local\s+True\s+\S+$/m);
    expect(got.stdout).toMatch(/^v1\.apps\s+Local\s+True\s+\S+$/m);
    expect(got.stdout).toMatch(new RegExp(`^v1\\.widgets\\.example\\.com\\s+${NS}/widgets\\s+True\\s+\\S+$`, 'm'));
    // The discovery check came through the front proxy, as svc's own user.
    expect(remote.seen.find((s) => s.url === `/apis/${GROUP}/v1`)).toMatchObject({ user: 'system:kube-aggregator', proxyCn: 'front-proxy-client' });
  });

  it('puts the remote group in discovery: kubectl api-resources lists its resources', async () => {
    const resources = await k(['api-resources', `--api-group=${GROUP}`]);
    expect(resources.stderr).toBe('');
    expect(resources.stdout).toMatch(/^widgets\s+wdg\s+widgets\.example\.com\/v1\s+true\s+Widget$/m);
    const groups = JSON.parse((await k(['get', '--raw', '/apis'])).stdout);
    expect(groups.groups.at(-1)).toEqual({ name: GROUP, versions: [{ groupVersion: `${GROUP}/v1`, version: 'v1' }], preferredVersion: { groupVersion: `${GROUP}/v1`, version: 'v1' } });
    const group = JSON.parse((await k(['get', '--raw', `/apis/${GROUP}`])).stdout);
    expect(group).toMatchObject({ kind: 'APIGroup', name: GROUP, preferredVersion: { version: 'v1' } });
  });

  it('proxies requests with the caller named in front-proxy headers and its credentials kept back', async () => {
    const before = remote.seen.length;
    const raw = await k(['get', '--raw', WIDGETS]);
    expect(raw.stderr).toBe('');
    expect(JSON.parse(raw.stdout)).toMatchObject({ kind: 'WidgetList', items: [{ metadata: { name: 'w1' }, spec: { servedTo: 'svc-admin' } }] });
    const seen = remote.seen.slice(before).find((s) => s.url === WIDGETS)!;
    expect(seen).toMatchObject({ method: 'GET', user: 'svc-admin', authorization: undefined, proxyCn: 'front-proxy-client' });
    expect(seen.groups?.split(/,\s*/)).toEqual(expect.arrayContaining(['system:masters', 'system:authenticated']));

    // kubectl's own printing of the remote's resource, through discovery and the proxy.
    const got = await k(['get', 'widgets', '-n', NS]);
    expect(got.stderr).toBe('');
    expect(got.stdout).toMatch(/^w1\s/m);
  });

  it('passes on the user a front proxy in front of svc named, extra included, and never a client\'s own X-Remote headers', async () => {
    const pki = join(dir, 'data', 'pki');
    const frontProxy = { cert: readFileSync(join(pki, 'front-proxy-client.crt'), 'utf8'), key: readFileSync(join(pki, 'front-proxy-client.key'), 'utf8') };
    let before = remote.seen.length;
    const chained = await svcRequest(server, 'GET', WIDGETS, {
      cert: frontProxy,
      headers: { 'X-Remote-User': 'carol', 'X-Remote-Group': 'system:masters', 'X-Remote-Extra-Scopes': 'read', 'X-Remote-Extra-Acme.com%2Fteam': 'blue' },
    });
    expect(chained.status).toBe(200);
    expect(remote.seen.slice(before).find((s) => s.url === WIDGETS)).toMatchObject({ user: 'carol', extra: { scopes: 'read', 'acme.com%2fteam': 'blue' } });

    before = remote.seen.length;
    const spoofed = await svcRequest(server, 'GET', WIDGETS, { headers: { 'X-Remote-User': 'mallory', 'X-Remote-Extra-Scopes': 'all' } });
    expect(spoofed.status).toBe(200);
    expect(remote.seen.slice(before).find((s) => s.url === WIDGETS)).toMatchObject({ user: 'svc-admin', extra: {} });
  });

  it('streams both ways: a request body goes in, a watch comes out as it is written', async () => {
    const body = JSON.stringify(widget('w2', 'sent'));
    const created = await svcRequest(server, 'POST', WIDGETS, { body });
    expect(created.status).toBe(201);
    expect(JSON.parse(created.text)).toEqual(JSON.parse(body));
    const watch = await svcRequest(server, 'GET', `${WIDGETS}?watch=1`, { firstChunk: true });
    expect(watch.status).toBe(200);
    expect(JSON.parse(watch.text.split('\n')[0]!)).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'w1' } } });
  });

  it('pipes an HTTP upgrade: a watch over WebSocket', async () => {
    const url = new URL(`${WIDGETS}?watch=1`, server.url.replace('https:', 'wss:'));
    const ws = new WebSocket(url, { ca: server.caPem, headers: { authorization: `Bearer ${server.adminToken}` } });
    try {
      const [message] = (await once(ws, 'message')) as [Buffer];
      expect(JSON.parse(message.toString('utf8'))).toMatchObject({ type: 'ADDED', object: { spec: { servedTo: 'svc-admin' } } });
    } finally {
      ws.close();
    }
  });

  it('answers 403 itself to a user RBAC does not allow, without calling the remote, and passes the user on once allowed', async () => {
    const before = remote.seen.length;
    const denied = await svcRequest(server, 'GET', WIDGETS, { token: 'bob-token' });
    expect(denied.status).toBe(403);
    expect(JSON.parse(denied.text)).toMatchObject({ kind: 'Status', reason: 'Forbidden', code: 403 });
    expect(JSON.parse(denied.text).message).toContain('User "bob" cannot list resource "widgets" in API group "widgets.example.com"');
    expect(remote.seen.slice(before).filter((s) => s.url.startsWith(WIDGETS))).toEqual([]);

    const granted = await k(['apply', '-f', '-'], `
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata:
  name: widget-reader
  namespace: ${NS}
rules:
  - apiGroups: [${GROUP}]
    resources: [widgets]
    verbs: [list]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata:
  name: bob-reads-widgets
  namespace: ${NS}
subjects:
  - kind: User
    name: bob
    apiGroup: rbac.authorization.k8s.io
roleRef:
  kind: Role
  name: widget-reader
  apiGroup: rbac.authorization.k8s.io
`);
    expect(granted.stderr).toBe('');
    let allowed = { status: 0, text: '' };
    for (let i = 0; i < 100 && allowed.status !== 200; i++) {
      allowed = await svcRequest(server, 'GET', WIDGETS, { token: 'bob-token' });
      if (allowed.status !== 200) await new Promise((r) => setTimeout(r, 50));
    }
    expect(allowed.status).toBe(200);
    expect(JSON.parse(allowed.text).items[0].spec.servedTo).toBe('bob');
  });

  it('says why an APIService whose Service is missing is not available', async () => {
    const applied = await k(['apply', '-f', '-'], apiServiceManifest(`v1alpha1.${GROUP}`, 'v1alpha1', 'nowhere', Buffer.from(remoteCa.pem).toString('base64')));
    expect(applied.stderr).toBe('');
    const waited = await k(['wait', '--for=condition=Available=False', '--timeout=30s', `apiservice/v1alpha1.${GROUP}`]);
    expect(waited.stderr).toBe('');
    const got = await k(['get', 'apiservice', `v1alpha1.${GROUP}`]);
    expect(got.stdout).toMatch(new RegExp(`^v1alpha1\\.widgets\\.example\\.com\\s+${NS}/nowhere\\s+False \\(ServiceNotFound\\)\\s+\\S+$`, 'm'));
    const raw = await svcRequest(server, 'GET', `/apis/${GROUP}/v1alpha1/namespaces/${NS}/widgets`);
    expect(raw.status).toBe(503);
    expect(JSON.parse(raw.text)).toMatchObject({ kind: 'Status', reason: 'ServiceUnavailable', code: 503 });
    expect((await k(['delete', 'apiservice', `v1alpha1.${GROUP}`])).stderr).toBe('');
  });

  it('says when the Service has no endpoints, or none with the port\'s name', async () => {
    const setup = await k(['apply', '-f', '-'], `
apiVersion: v1
kind: Service
metadata:
  name: unnamed-port
  namespace: ${NS}
spec:
  ports:
    - name: https
      port: 443
---
apiVersion: v1
kind: Endpoints
metadata:
  name: unnamed-port
  namespace: ${NS}
subsets:
  - addresses:
      - ip: 127.0.0.1
    ports:
      - name: metrics
        port: ${remote.port}
---
apiVersion: v1
kind: Service
metadata:
  name: no-endpoints
  namespace: ${NS}
spec:
  ports:
    - port: 443
`);
    expect(setup.stderr).toBe('');
    const caBundle = Buffer.from(remoteCa.pem).toString('base64');
    expect((await k(['apply', '-f', '-'], apiServiceManifest(`v1beta1.${GROUP}`, 'v1beta1', 'unnamed-port', caBundle))).stderr).toBe('');
    expect((await k(['apply', '-f', '-'], apiServiceManifest(`v1beta2.${GROUP}`, 'v1beta2', 'no-endpoints', caBundle))).stderr).toBe('');
    for (const version of ['v1beta1', 'v1beta2']) {
      expect((await k(['wait', '--for=condition=Available=False', '--timeout=30s', `apiservice/${version}.${GROUP}`])).stderr).toBe('');
    }
    const reason = async (name: string) => (await k(['get', 'apiservice', name, '-o', 'jsonpath={.status.conditions[?(@.type=="Available")].reason}'])).stdout;
    expect(await reason(`v1beta1.${GROUP}`)).toBe('MissingEndpoints');
    expect(await reason(`v1beta2.${GROUP}`)).toBe('EndpointsNotFound');
    expect((await k(['delete', 'apiservice', `v1beta1.${GROUP}`, `v1beta2.${GROUP}`])).stderr).toBe('');
  });

  it('turns Available False when the remote stops, and answers 503 for its paths', async () => {
    await remote.stop();
    const failed = await svcRequest(server, 'GET', WIDGETS);
    expect(failed.status).toBe(503);
    expect(JSON.parse(failed.text)).toMatchObject({ kind: 'Status', reason: 'ServiceUnavailable', code: 503 });
    const waited = await k(['wait', '--for=condition=Available=False', '--timeout=30s', `apiservice/v1.${GROUP}`]);
    expect(waited.stderr).toBe('');
    const got = await k(['get', 'apiservice', `v1.${GROUP}`]);
    expect(got.stdout).toMatch(/False \(FailedDiscoveryCheck\)/);
    const again = await svcRequest(server, 'GET', WIDGETS);
    expect(again.status).toBe(503);
    expect(JSON.parse(again.text).message).toContain('FailedDiscoveryCheck');

    // Back on the same port: Available again, and served.
    await remote.start(serving, frontProxyCa, remote.port);
    const back = await k(['wait', '--for=condition=Available', '--timeout=30s', `apiservice/v1.${GROUP}`]);
    expect(back.stderr).toBe('');
    expect((await svcRequest(server, 'GET', WIDGETS)).status).toBe(200);
  });
});
