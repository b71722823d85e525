/**
 * Slow clients: a connection that sends half a request head, or half a body, is answered 408 and
 * closed after --request-header-timeout / --request-body-timeout, while a watch, whose request is
 * complete once its head is in, keeps streaming past both. Real HTTPS, tokens and sqlite; the
 * timeouts are set short through the config, and the tests wait for the server to close sockets
 * (behaviour), never for a duration.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { connect as netConnect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect, type TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type RunningApiServer } from '../../src/cli/apiserver-command.js';
import { apiServerConfig, apiServerFlags } from '../../src/cli/apiserver-flags.js';
import { parseFlags } from '../../src/cli/flags.js';

const CM = '/api/v1/namespaces/default/configmaps';
const dir = mkdtempSync(join(tmpdir(), 'svc-timeouts-'));
let api: RunningApiServer;

beforeAll(async () => {
  api = await startApiServer({
    dataDir: dir,
    storage: 'sqlite',
    bindAddress: '127.0.0.1',
    securePort: 0,
    connectionTimeouts: { headerMs: 300, bodyMs: 600 },
  });
});

afterAll(async () => {
  await api?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function tls(): Promise<TLSSocket> {
  const socket = tlsConnect({ host: '127.0.0.1', port: api.port, ca: api.caPem, servername: 'localhost' });
  await new Promise<void>((resolve, reject) =>
    socket.once('secureConnect', resolve).once('error', reject).once('close', () => reject(new Error('closed during the handshake'))),
  );
  return socket;
}

/** Everything the server sends until it closes the connection. */
function closedBy(socket: Socket): Promise<string> {
  let received = '';
  socket.setEncoding('latin1');
  socket.on('data', (d: string) => (received += d));
  socket.on('error', () => {});
  return new Promise((resolve) => socket.once('close', () => resolve(received)));
}

const head = (lines: string[]) => lines.join('\r\n');

describe('--request-header-timeout', () => {
  it('closes a connection that sent half a request head, answering 408', async () => {
    const socket = await tls();
    const closed = closedBy(socket);
    socket.write(head(['GET /api/v1/namespaces HTTP/1.1', `Host: 127.0.0.1:${api.port}`, `Authorization: Bearer ${api.adminToken}`, 'X-Slow: ']));
    expect(await closed).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('closes a connection that never finished its TLS handshake, and one that never said anything', async () => {
    const raw = netConnect({ host: '127.0.0.1', port: api.port });
    const rawClosed = closedBy(raw);
    raw.write(Uint8Array.of(0x16, 0x03, 0x01)); // the first bytes of a ClientHello, and no more
    const silent = await tls();
    await Promise.all([rawClosed, closedBy(silent)]);
    expect(raw.destroyed && silent.destroyed).toBe(true);
  });

  it('closes 200 such connections at once (the campaign that found them open after 70 s)', async () => {
    // Some handshakes may themselves outlast the short timeout on a busy machine: closed either way.
    const closed = Array.from({ length: 200 }, () => {
      const socket = tlsConnect({ host: '127.0.0.1', port: api.port, ca: api.caPem, servername: 'localhost' });
      socket.once('secureConnect', () => socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n'));
      return closedBy(socket);
    });
    const answers = await Promise.all(closed);
    expect(answers.every((a) => a === '' || a.startsWith('HTTP/1.1 408 '))).toBe(true);
  });
});

describe('--request-body-timeout', () => {
  it('closes a connection that sent half its body, answering 408, and creates nothing', async () => {
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'half' }, data: { a: '1' } });
    const socket = await tls();
    const closed = closedBy(socket);
    socket.write(
      head([
        `POST ${CM} HTTP/1.1`,
        `Host: 127.0.0.1:${api.port}`,
        `Authorization: Bearer ${api.adminToken}`,
        'Content-Type: application/json',
        `Content-Length: ${body.length}`,
        '',
        body.slice(0, body.length / 2),
      ]),
    );
    expect(await closed).toMatch(/^HTTP\/1\.1 408 /);
    const get = await fetchJson(`${CM}/half`);
    expect(get.status).toBe(404);
  });
});

describe('long-running requests', () => {
  it('a watch keeps streaming after both timeouts have passed: its request was complete with its head', async () => {
    const events: string[] = [];
    const req = httpsRequest({
      host: '127.0.0.1',
      port: api.port,
      path: `${CM}?watch=true&allowWatchBookmarks=false`,
      headers: { authorization: `Bearer ${api.adminToken}` },
      ca: api.caPem,
      servername: 'localhost',
      agent: false,
    });
    const response = new Promise<import('node:http').IncomingMessage>((resolve, reject) => req.on('response', resolve).on('error', reject));
    req.end();
    const res = await response;
    expect(res.statusCode).toBe(200);
    res.setEncoding('utf8');
    res.on('data', (d: string) => events.push(d));
    // Outlive both timeouts: a slow-header connection opened now is closed by the server first.
    const probe = await tls();
    const probeClosed = closedBy(probe);
    probe.write('GET /healthz HTTP/1.1\r\n');
    const second = await tls();
    const secondClosed = closedBy(second);
    second.write(`POST ${CM} HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n{`);
    await Promise.all([probeClosed, secondClosed]);
    const created = await fetchJson(CM, 'POST', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after' } });
    expect(created.status).toBe(201);
    await expect.poll(() => events.join('')).toContain('"name":"after"');
    expect(res.destroyed).toBe(false);
    req.destroy();
  });
});

describe('the flags', () => {
  it('default to 32 s for the head and 60 s for the whole request, and reach the config', () => {
    const config = (argv: string[]) => {
      const parsed = parseFlags(apiServerFlags, argv);
      if (parsed.help) throw new Error('help');
      return apiServerConfig(parsed.values);
    };
    const defaults = config([]);
    expect(defaults.connectionTimeouts).toEqual({ headerMs: 32_000, bodyMs: 60_000 });
    const set = config(['--request-header-timeout=5s', '--request-body-timeout=2m']);
    expect(set.connectionTimeouts).toEqual({ headerMs: 5_000, bodyMs: 120_000 });
  });
});

function fetchJson(path: string, method = 'GET', body?: unknown): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest({
      host: '127.0.0.1',
      port: api.port,
      path,
      method,
      headers: { authorization: `Bearer ${api.adminToken}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      ca: api.caPem,
      servername: 'localhost',
      agent: false,
    });
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) }));
    });
    req.on('error', reject);
    req.end(body ? JSON.stringify(body) : undefined);
  });
}
