/**
 * The API server's connection to node agents, without a container runtime: verification of the
 * agent's serving certificate by --node-agent-certificate-authority, the timeout, request bodies
 * through nodes/proxy, and an attach upgrade. The agents are real agent servers over HTTPS.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtin, Client } from '../../src/client/index.js';
import { startApiServer, type RunningApiServer } from '../support/api-server.js';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { CriClient, startAgentServer, upgradeOf, type AgentRouteModule, type RunningAgentServer } from '../../src/nodeagent/index.js';
import { agentFlags, call, echoRoutes } from '../nodeagent/server/support.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-agent-proxy-'));
let api: RunningApiServer;
let admin: Client;
let cri: CriClient;
let trusted: RunningAgentServer;
let impostor: RunningAgentServer;
let silent: Server;
const held: Socket[] = [];

/** Echoes a POSTed JSON body back, with the method and path it arrived as. */
const bodyEcho: AgentRouteModule = {
  name: 'body-echo',
  debugging: false,
  register(app) {
    app.post('/echo-body/*', async (request) => ({ method: request.method, url: request.url, body: request.body }));
  },
};

/**
 * A SPDY-style exec: answers the POST upgrade with a raw 101 naming the first protocol version the
 * client offered, then echoes every byte (a stand-in for the streaming routes).
 */
const spdyEcho: AgentRouteModule = {
  name: 'spdy-echo',
  debugging: true,
  register(app) {
    app.post('/exec/:namespace/:pod/:container', async (request, reply) => {
      const upgrade = upgradeOf(request);
      if (!upgrade) throw new Error('not an upgrade');
      reply.hijack();
      const offered = request.raw.headersDistinct['x-stream-protocol-version'] ?? [];
      upgrade.socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: ${offered[0] ?? ''}\r\nX-Seen-Url: ${request.url}\r\n\r\n`);
      if (upgrade.head.length > 0) upgrade.socket.write(upgrade.head);
      upgrade.socket.pipe(upgrade.socket);
    });
  },
};

async function node(name: string, port: number): Promise<void> {
  await admin.create(builtin.nodes, {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name },
    status: { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: port } } },
  } as never);
}

beforeAll(async () => {
  cri = new CriClient({ endpoint: `unix://${join(dir, 'none.sock')}`, timeoutMs: 1000 });
  const start = (name: string) =>
    startAgentServer({ flags: agentFlags(dir, { certDir: join(dir, `pki-${name}`) }), nodeName: name, cri, routes: [bodyEcho, spdyEcho, echoRoutes(['/attach/:namespace/:pod/:container'])] });
  trusted = await start('trusted');
  impostor = await start('impostor');
  // Accepts connections and never says a word: no TLS handshake, no answer.
  silent = createServer((socket) => void held.push(socket));
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  // The agent's self-signed certificate is its own CA: the API server trusts exactly that one.
  writeFileSync(join(dir, 'agent-ca.pem'), trusted.certificate);
  api = await startApiServer({
    dataDir: join(dir, 'api'),
    storage: 'memory',
    bindAddress: '127.0.0.1',
    securePort: 0,
    nodeAgent: { certificateAuthorityFile: join(dir, 'agent-ca.pem'), timeoutMs: 500 },
    // Short, so the exec stream below is seen to outlive them (the node agent's 500 ms answer too).
    connectionTimeouts: { headerMs: 1000, bodyMs: 1000 },
  });
  admin = new Client({ server: api.url, token: api.adminToken, caData: api.caPem });
  await node('trusted', trusted.port);
  await node('impostor', impostor.port);
  await node('silent', (silent.address() as AddressInfo).port);
  await admin.create(builtin.pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec: { nodeName: 'trusted', containers: [{ name: 'c', image: 'busybox' }] } } as never);
}, 60_000);

afterAll(async () => {
  for (const socket of held) socket.destroy();
  silent?.close();
  await trusted?.close();
  await impostor?.close();
  cri?.close();
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

const viaApi = (path: string, init: Parameters<typeof call>[2] = {}) => call(api.port, path, { token: api.adminToken, ca: api.caPem, ...init });

describe('--node-agent-certificate-authority', () => {
  it('an agent whose certificate chains to it is reached', async () => {
    expect(await viaApi('/api/v1/nodes/trusted/proxy/healthz')).toMatchObject({ status: 200, text: 'ok' });
  });

  it('an agent with another certificate is refused: 503 naming the node', async () => {
    const res = await viaApi('/api/v1/nodes/impostor/proxy/healthz');
    expect(res.json).toMatchObject({ kind: 'Status', code: 503, reason: 'ServiceUnavailable' });
    expect(res.json.message).toContain('"impostor"');
  });
});

describe('--node-agent-timeout', () => {
  it('an agent that does not answer in time is a 504 Timeout Status', async () => {
    const res = await viaApi('/api/v1/nodes/silent/proxy/healthz');
    expect(res.json).toMatchObject({ kind: 'Status', code: 504, reason: 'Timeout' });
    expect(res.json.message).toContain('"silent"');
  });
});

describe('nodes/proxy', () => {
  it('passes the method, the path after proxy/, the query and a JSON body', async () => {
    const res = await viaApi('/api/v1/nodes/trusted/proxy/echo-body/a/b?x=1&y=2', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ hello: 'agent' }) });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ method: 'POST', url: '/echo-body/a/b?x=1&y=2', body: { hello: 'agent' } });
  });

  it('takes a trailing slash after proxy: the agent is asked for /', async () => {
    const res = await viaApi('/api/v1/nodes/trusted/proxy/echo-body/?x=1', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ url: '/echo-body/?x=1' });
  });

  it("passes the agent's own error Status through", async () => {
    expect((await viaApi('/api/v1/nodes/trusted/proxy/no/such/path')).json).toMatchObject({ kind: 'Status', code: 404 });
  });
});

describe('pods/attach', () => {
  it('an attach upgrade reaches /attach/{namespace}/{pod}/{container} with the container defaulted', async () => {
    const ws = new WebSocket(`wss://127.0.0.1:${api.port}/api/v1/namespaces/default/pods/p/attach?stdin=true&stdout=true&tty=true`, ['v5.channel.k8s.io'], {
      ca: api.caPem,
      headers: { authorization: `Bearer ${api.adminToken}` },
    });
    const first = await new Promise<string>((resolve, reject) => {
      ws.on('message', (data) => resolve(String(data)));
      ws.on('error', reject);
    });
    ws.close();
    const { url, protocol } = JSON.parse(first) as { url: string; protocol: string };
    expect(protocol).toBe('v5.channel.k8s.io');
    expect(url.startsWith('/attach/default/p/c?')).toBe(true);
    expect(Object.fromEntries(new URL(url, 'http://x').searchParams)).toEqual({ stdin: 'true', stdout: 'true', tty: '1', input: '1', output: '1' });
  });

  it('reads the stream options as strconv.ParseBool does (stdin=True, stdout=T, tty=1) and passes them on in one spelling', async () => {
    const ws = new WebSocket(`wss://127.0.0.1:${api.port}/api/v1/namespaces/default/pods/p/attach?stdin=True&stdout=T&stderr=False&tty=1`, ['v5.channel.k8s.io'], {
      ca: api.caPem,
      headers: { authorization: `Bearer ${api.adminToken}` },
    });
    const first = await new Promise<string>((resolve, reject) => {
      ws.on('message', (data) => resolve(String(data)));
      ws.on('error', reject);
    });
    ws.close();
    const { url } = JSON.parse(first) as { url: string };
    expect(Object.fromEntries(new URL(url, 'http://x').searchParams)).toEqual({ stdin: 'true', stdout: 'true', stderr: 'false', tty: '1', input: '1', output: '1' });
  });

  it('answers a stream or log option that is no boolean with a 400 Status before reaching the agent', async () => {
    for (const path of ['attach?stdin=yes&stdout=true', 'log?follow=yes', 'log?previous=nope', 'log?timestamps=2']) {
      const res = await viaApi(`/api/v1/namespaces/default/pods/p/${path}`);
      expect(res.status, path).toBe(400);
      expect(res.json, path).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400 });
    }
  });

  it('an anonymous upgrade is refused by RBAC: a 403 written on the socket, which then closes', async () => {
    const ws = new WebSocket(`wss://127.0.0.1:${api.port}/api/v1/namespaces/default/pods/p/attach?stdout=true`, { ca: api.caPem });
    const status = await new Promise<number>((resolve) => {
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('error', () => {});
    });
    expect(status).toBe(403);
  });
});

describe('pods/exec over SPDY', () => {
  it('a POST upgrade is piped as it is: X-Stream-Protocol-Version reaches the agent, its 101 and the bytes after come back', async () => {
    const socket = tlsConnect({ host: '127.0.0.1', port: api.port, ca: api.caPem, servername: 'localhost' });
    // Destroyed whatever happens: a spliced stream left open holds the API server's and the
    // agent's close (afterAll) for ever.
    try {
      await upgradeAndEcho(socket);
    } finally {
      socket.destroy();
    }
  });
});

/** Sends the exec upgrade on `socket`, checks the 101 the agent wrote, outlives the request timeouts, then echoes a frame. */
async function upgradeAndEcho(socket: TLSSocket): Promise<void> {
  // A socket closed before its handshake without an error would otherwise leave this wait hanging.
  await new Promise<void>((resolve, reject) =>
    socket
      .once('secureConnect', resolve)
      .once('error', reject)
      .once('close', () => reject(new Error('the connection closed before the TLS handshake completed'))),
  );
  socket.write(
    [
      'POST /api/v1/namespaces/default/pods/p/exec?container=c&command=ls&stdout=true HTTP/1.1',
      `Host: 127.0.0.1:${api.port}`,
      `Authorization: Bearer ${api.adminToken}`,
      'Connection: Upgrade',
      'Upgrade: SPDY/3.1',
      'X-Stream-Protocol-Version: v4.channel.k8s.io',
      'X-Stream-Protocol-Version: channel.k8s.io',
      '',
      '',
    ].join('\r\n'),
  );
  let received = '';
  socket.setEncoding('latin1');
  socket.on('data', (d: string) => (received += d));
  // Bounded by the test's deadline, not by a count of short sleeps a loaded machine outlasts.
  const until = (check: () => boolean) => expect.poll(check).toBe(true);
  await until(() => received.includes('\r\n\r\n'));
  const [head] = received.split('\r\n\r\n');
  expect(head).toMatch(/^HTTP\/1.1 101 /);
  expect(head).toContain('X-Stream-Protocol-Version: v4.channel.k8s.io');
  expect(head).toContain('X-Seen-Url: /exec/default/p/c?container=c&command=ls&stdout=true&output=1');
  // The upgraded stream is no request any more: it outlives --request-header-timeout and
  // --request-body-timeout (1 s here; Node looks for expired requests every 500 ms).
  await new Promise((resolve) => setTimeout(resolve, 2500));
  expect(socket.destroyed).toBe(false);
  socket.write('frame-bytes\x00\x01');
  await until(() => received.endsWith('frame-bytes\x00\x01'));
}
