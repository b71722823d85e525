/**
 * Watches for browsers: Server-Sent Events (`Accept: text/event-stream`, resume by
 * Last-Event-ID, 410 as an ERROR event, BOOKMARK events), WebSocket watches (subprotocols,
 * bearer token as a protocol), CORS (`--cors-allowed-origins`), browser session cookies, and a
 * credential in a URL refused. Over a real HTTP connection to the in-process server.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startTestServer, TOKEN, type TestServer } from './harness.js';
import { socketBufferBytes } from './read-client.js';

interface SseEvent {
  event: string;
  id: string | undefined;
  data: any;
}

/** An open event stream: its response, and its events as they are parsed. */
class EventStream {
  readonly events: SseEvent[] = [];
  ended = false;
  #buffer = '';
  #waiters: (() => void)[] = [];

  constructor(readonly res: IncomingMessage) {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      this.#buffer += chunk;
      let end: number;
      while ((end = this.#buffer.indexOf('\n\n')) >= 0) {
        const block = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 2);
        const event: SseEvent = { event: 'message', id: undefined, data: undefined };
        for (const line of block.split('\n')) {
          const colon = line.indexOf(': ');
          const [field, value] = colon < 0 ? [line, ''] : [line.slice(0, colon), line.slice(colon + 2)];
          if (field === 'event') event.event = value;
          else if (field === 'id') event.id = value;
          else if (field === 'data') event.data = JSON.parse(value);
        }
        this.events.push(event);
      }
      this.#wake();
    });
    res.on('end', () => {
      this.ended = true;
      this.#wake();
    });
    res.on('close', () => {
      this.ended = true;
      this.#wake();
    });
  }

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }

  /** Waits until `test` holds for the events so far (or the stream ended). */
  async until(test: (events: SseEvent[]) => boolean): Promise<SseEvent[]> {
    while (!test(this.events) && !this.ended) await new Promise<void>((resolve) => this.#waiters.push(resolve));
    return this.events;
  }

  close(): void {
    this.res.destroy();
  }
}

let server: TestServer;
let base: URL;

/** Opens an event stream with the test token; a header given as '' is not sent. */
function open(path: string, headers: Record<string, string> = {}): Promise<EventStream | { status: number; body: any; headers: IncomingMessage['headers'] }> {
  const sent = Object.fromEntries(Object.entries({ authorization: `Bearer ${TOKEN}`, accept: 'text/event-stream', ...headers }).filter(([, v]) => v !== ''));
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(path, base), { headers: sent }, (res) => {
      if (res.statusCode === 200 && res.headers['content-type'] === 'text/event-stream') return resolve(new EventStream(res));
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : undefined, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function stream(path: string, headers: Record<string, string> = {}): Promise<EventStream> {
  const opened = await open(path, headers);
  if (!(opened instanceof EventStream)) throw new Error(`expected an event stream, got ${opened.status} ${JSON.stringify(opened.body)}`);
  return opened;
}

async function namespace(name: string): Promise<string> {
  const res = await server.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  expect(res.status).toBe(201);
  return name;
}

async function createMap(ns: string, name: string, data: Record<string, string> = {}): Promise<any> {
  const res = await server.call('POST', `/api/v1/namespaces/${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data });
  expect(res.status).toBe(201);
  return res.body;
}

const ORIGIN = 'https://dash.example';

beforeAll(async () => {
  server = await startTestServer('memory', {
    listen: true,
    bookmarkIntervalMs: 50,
    watchHistoryWindowMs: 100,
    watchBufferEvents: 5,
    corsAllowedOrigins: [/^https:\/\/dash\.example$/],
  });
  base = new URL(server.url!);
});
afterAll(async () => {
  await server?.close();
});

describe('a watch as Server-Sent Events', () => {
  it('sends each event named by its type, with the resourceVersion as its id and the object as data', async () => {
    const ns = await namespace('sse-basic');
    const start = (await server.call('GET', `/api/v1/namespaces/${ns}/configmaps`)).body.metadata.resourceVersion;
    const s = await stream(`/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${start}`);
    expect(s.res.headers['cache-control']).toContain('no-cache');
    const a = await createMap(ns, 'a', { v: '1' });
    const updated = await server.call('PUT', `/api/v1/namespaces/${ns}/configmaps/a`, { ...a, data: { v: '2' } });
    const deleted = await server.call('DELETE', `/api/v1/namespaces/${ns}/configmaps/a`);
    const events = (await s.until((e) => e.filter((x) => x.event !== 'BOOKMARK').length >= 3)).filter((x) => x.event !== 'BOOKMARK');
    s.close();
    expect(events.map((e) => [e.event, e.id, e.data.metadata.name])).toEqual([
      ['ADDED', a.metadata.resourceVersion, 'a'],
      ['MODIFIED', updated.body.metadata.resourceVersion, 'a'],
      ['DELETED', expect.any(String), 'a'],
    ]);
    expect(events[0]!.data).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1', data: { v: '1' } });
    expect(events[1]!.data.data).toEqual({ v: '2' });
    expect(Number(events[2]!.id)).toBeGreaterThan(Number(events[1]!.id));
    expect(deleted.status).toBe(200);
  });

  it('sends BOOKMARK events with an id, so a quiet stream still moves its Last-Event-ID', async () => {
    const ns = await namespace('sse-bookmarks');
    const s = await stream(`/api/v1/namespaces/${ns}/configmaps?watch=true`);
    const [bookmark] = (await s.until((e) => e.some((x) => x.event === 'BOOKMARK'))).filter((x) => x.event === 'BOOKMARK');
    s.close();
    expect(bookmark!.id).toMatch(/^\d+$/);
    expect(bookmark!.data).toMatchObject({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: bookmark!.id } });
  });

  it('resumes exactly after Last-Event-ID, whatever start the URL asks for', async () => {
    const ns = await namespace('sse-resume');
    const a = await createMap(ns, 'a');
    const b = await createMap(ns, 'b');
    const c = await createMap(ns, 'c');
    // The URL a browser reconnects to is the one it first opened: initial state from the newest.
    const s = await stream(`/api/v1/namespaces/${ns}/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true`, {
      'last-event-id': a.metadata.resourceVersion,
    });
    const events = (await s.until((e) => e.filter((x) => x.event === 'ADDED').length >= 2)).filter((x) => x.event === 'ADDED');
    s.close();
    expect(events.map((e) => [e.data.metadata.name, e.id])).toEqual([
      ['b', b.metadata.resourceVersion],
      ['c', c.metadata.resourceVersion],
    ]);
  });

  it('ends a resume from a compacted version with one ERROR event holding the 410 Status', async () => {
    const ns = await namespace('sse-expired');
    const a = await createMap(ns, 'a');
    await createMap(ns, 'b');
    await createMap(ns, 'c');
    // Compacted at c: b, the first event after a, is gone from the store.
    await server.store.compact(await server.store.revision());
    // Let the cache's history window (100 ms) pass the compacted events.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const s = await stream(`/api/v1/namespaces/${ns}/configmaps?watch=true`, { 'last-event-id': a.metadata.resourceVersion });
    const events = await s.until(() => false);
    expect(events.map((e) => e.event)).toEqual(['ERROR']);
    expect(events[0]!.id).toBeUndefined();
    expect(events[0]!.data).toMatchObject({ kind: 'Status', status: 'Failure', code: 410, reason: 'Expired' });
  });

  it('answers a Last-Event-ID that is no resourceVersion with a 400 Status', async () => {
    const ns = await namespace('sse-bad-id');
    const res = await open(`/api/v1/namespaces/${ns}/configmaps?watch=true`, { 'last-event-id': 'yesterday' });
    expect(res).not.toBeInstanceOf(EventStream);
    const answer = res as { status: number; body: any };
    expect(answer.status).toBe(400);
    expect(answer.body).toMatchObject({ kind: 'Status', reason: 'BadRequest' });
  });

  it('ends a watcher that stops reading rather than buffer for it', async () => {
    const ns = await namespace('sse-slow');
    const SIZE = 1024 * 1024;
    const big = 'x'.repeat(SIZE);
    let o = await createMap(ns, 'big', { v: '0', big });
    const s = await stream(`/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${o.metadata.resourceVersion}`);
    s.res.pause();
    const updates = Math.ceil(socketBufferBytes() / SIZE) + 12;
    for (let i = 1; i <= updates; i++) o = (await server.call('PUT', `/api/v1/namespaces/${ns}/configmaps/big`, { ...o, data: { v: String(i), big } })).body;
    s.res.resume();
    const events = await s.until(() => false);
    const modified = events.filter((e) => e.event === 'MODIFIED');
    expect(s.ended).toBe(true);
    expect(modified.length).toBeLessThan(updates);
    expect(modified.map((e) => e.data.data.v)).toEqual(Array.from({ length: modified.length }, (_, i) => String(i + 1)));
  });
});

describe('a watch over WebSocket', () => {
  const wsUrl = (path: string) => `ws://${base.host}${path}`;

  function collect(ws: WebSocket): { messages: { data: Buffer; binary: boolean }[]; closed: Promise<{ code: number; reason: string }> } {
    const messages: { data: Buffer; binary: boolean }[] = [];
    ws.on('message', (data, binary) => messages.push({ data: data as Buffer, binary }));
    const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    return { messages, closed };
  }

  async function opened(ws: WebSocket): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
  }

  async function until<T>(items: T[], count: number, ws: WebSocket): Promise<T[]> {
    while (items.length < count && ws.readyState === ws.OPEN) await new Promise((resolve) => ws.once('message', resolve));
    return items;
  }

  it('sends one text message per event with no subprotocol, as kube-apiserver frames JSON', async () => {
    const ns = await namespace('ws-plain');
    const start = (await server.call('GET', `/api/v1/namespaces/${ns}/configmaps`)).body.metadata.resourceVersion;
    const ws = new WebSocket(wsUrl(`/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${start}`), { headers: { authorization: `Bearer ${TOKEN}` } });
    const { messages, closed } = collect(ws);
    await opened(ws);
    expect(ws.protocol).toBe('');
    const a = await createMap(ns, 'a');
    await createMap(ns, 'b');
    await until(messages, 2, ws);
    ws.close();
    await closed;
    expect(messages.every((m) => !m.binary)).toBe(true);
    const events = messages.map((m) => JSON.parse(m.data.toString()));
    expect(events.map((e) => [e.type, e.object.metadata.name])).toEqual([
      ['ADDED', 'a'],
      ['ADDED', 'b'],
    ]);
    expect(events[0].object.metadata.resourceVersion).toBe(a.metadata.resourceVersion);
  });

  it('speaks base64.binary.k8s.io and binary.svc.io, and takes the bearer token as a protocol a browser can send', async () => {
    const ns = await namespace('ws-protocols');
    const start = (await server.call('GET', `/api/v1/namespaces/${ns}/configmaps`)).body.metadata.resourceVersion;
    const bearer = `base64url.bearer.authorization.k8s.io.${Buffer.from(TOKEN).toString('base64url')}`;
    const b64 = new WebSocket(wsUrl(`/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${start}`), [bearer, 'base64.binary.k8s.io']);
    const bin = new WebSocket(wsUrl(`/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${start}`), ['binary.svc.io'], { headers: { authorization: `Bearer ${TOKEN}` } });
    const got64 = collect(b64);
    const gotBin = collect(bin);
    await Promise.all([opened(b64), opened(bin)]);
    expect(b64.protocol).toBe('base64.binary.k8s.io');
    expect(bin.protocol).toBe('binary.svc.io');
    await createMap(ns, 'a');
    await Promise.all([until(got64.messages, 1, b64), until(gotBin.messages, 1, bin)]);
    b64.close();
    bin.close();
    expect(got64.messages[0]!.binary).toBe(false);
    expect(JSON.parse(Buffer.from(got64.messages[0]!.data.toString(), 'base64').toString())).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'a' } } });
    expect(gotBin.messages[0]!.binary).toBe(true);
    expect(JSON.parse(gotBin.messages[0]!.data.toString())).toMatchObject({ type: 'ADDED', object: { metadata: { name: 'a' } } });
  });

  it('refuses an upgrade without credentials (401) and with a wrong bearer protocol (401)', async () => {
    const ns = await namespace('ws-unauth');
    for (const protocols of [['base64.binary.k8s.io'], [`base64url.bearer.authorization.k8s.io.${Buffer.from('wrong').toString('base64url')}`, 'base64.binary.k8s.io']]) {
      const ws = new WebSocket(wsUrl(`/api/v1/namespaces/${ns}/configmaps?watch=true`), protocols);
      const status = await new Promise<number>((resolve) => ws.on('unexpected-response', (_req, res) => resolve(res.statusCode!)));
      expect(status).toBe(401);
    }
  });

  it('closes a watcher that stops reading with 1008 and the reason', async () => {
    const ns = await namespace('ws-slow');
    const SIZE = 1024 * 1024;
    const big = 'x'.repeat(SIZE);
    let o = await createMap(ns, 'big', { v: '0', big });
    const ws = new WebSocket(wsUrl(`/api/v1/namespaces/${ns}/configmaps?watch=true&resourceVersion=${o.metadata.resourceVersion}`), { headers: { authorization: `Bearer ${TOKEN}` } });
    const { messages, closed } = collect(ws);
    await opened(ws);
    // The client's socket stops reading: what the server sends piles up on its side.
    (ws as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause();
    const updates = Math.ceil(socketBufferBytes() / SIZE) + 12;
    for (let i = 1; i <= updates; i++) o = (await server.call('PUT', `/api/v1/namespaces/${ns}/configmaps/big`, { ...o, data: { v: String(i), big } })).body;
    (ws as unknown as { _socket: { resume(): void } })._socket.resume();
    const { code, reason } = await closed;
    expect(code).toBe(1008);
    expect(reason).toMatch(/fell more than 5 events behind/);
    expect(messages.length).toBeLessThan(updates);
  });
});

describe('CORS', () => {
  it('answers an allowed origin\'s preflight 204 with the Access-Control headers, and its requests with them', async () => {
    const res = await fetch(new URL('/api/v1/namespaces', base), {
      method: 'OPTIONS',
      headers: { origin: ORIGIN, 'access-control-request-method': 'GET', 'access-control-request-headers': 'authorization' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(res.headers.get('access-control-allow-credentials')).toBe('true');
    expect(res.headers.get('access-control-allow-methods')).toContain('PATCH');
    expect(res.headers.get('access-control-allow-headers')).toContain('Authorization');
    const get = await fetch(new URL('/api/v1/namespaces', base), { headers: { origin: ORIGIN, authorization: `Bearer ${TOKEN}` } });
    expect(get.status).toBe(200);
    expect(get.headers.get('access-control-allow-origin')).toBe(ORIGIN);
  });

  it('answers another origin\'s preflight 403 and gives its requests no CORS headers', async () => {
    const res = await fetch(new URL('/api/v1/namespaces', base), { method: 'OPTIONS', headers: { origin: 'https://dash.example.evil.net', 'access-control-request-method': 'GET' } });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ kind: 'Status', reason: 'Forbidden' });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const get = await fetch(new URL('/api/v1/namespaces', base), { headers: { origin: 'https://other.example', authorization: `Bearer ${TOKEN}` } });
    expect(get.status).toBe(200);
    expect(get.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('puts the CORS headers on an event stream for an allowed origin', async () => {
    const ns = await namespace('cors-sse');
    const s = await stream(`/api/v1/namespaces/${ns}/configmaps?watch=true`, { origin: ORIGIN });
    s.close();
    expect(s.res.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(s.res.headers['access-control-allow-credentials']).toBe('true');
  });
});

describe('browser credentials', () => {
  const cookieOf = (setCookie: string | null): string => setCookie!.split(';')[0]!;

  it('exchanges a bearer token for an HttpOnly, Secure, SameSite=Strict session cookie that reads and watches, and nothing more', async () => {
    const ns = await namespace('session');
    const exchange = await fetch(new URL('/browser-session', base), { method: 'POST', headers: { authorization: `Bearer ${TOKEN}` } });
    expect(exchange.status).toBe(201);
    const setCookie = exchange.headers.get('set-cookie')!;
    expect(setCookie).toMatch(/^svc-session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=\d+; HttpOnly; Secure; SameSite=Strict$/);
    expect(await exchange.json()).toMatchObject({ kind: 'BrowserSession', user: { username: 'tester' } });
    const cookie = cookieOf(setCookie);

    const list = await fetch(new URL(`/api/v1/namespaces/${ns}/configmaps`, base), { headers: { cookie } });
    expect(list.status).toBe(200);
    const s = await stream(`/api/v1/namespaces/${ns}/configmaps?watch=true`, { authorization: '', cookie });
    s.close();

    const write = await fetch(new URL(`/api/v1/namespaces/${ns}/configmaps`, base), {
      method: 'POST',
      headers: { cookie, 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'forged' } }),
    });
    expect(write.status).toBe(401);
    expect(await write.json()).toMatchObject({ kind: 'Status', reason: 'Unauthorized' });
    expect((await server.call('GET', `/api/v1/namespaces/${ns}/configmaps/forged`)).status).toBe(404);

    const end = await fetch(new URL('/browser-session', base), { method: 'DELETE', headers: { cookie } });
    expect(end.status).toBe(204);
    expect(end.headers.get('set-cookie')).toMatch(/^svc-session=; Path=\/; Max-Age=0/);
    expect((await fetch(new URL(`/api/v1/namespaces/${ns}/configmaps`, base), { headers: { cookie } })).status).toBe(401);
  });

  it('refuses the exchange without a credential, and a made-up cookie', async () => {
    expect((await fetch(new URL('/browser-session', base), { method: 'POST' })).status).toBe(401);
    expect((await fetch(new URL('/api/v1/namespaces', base), { headers: { cookie: 'svc-session=made-up' } })).status).toBe(401);
  });

  it('refuses a token in the URL with a 401 Status, even a good one, and creates nothing', async () => {
    const ns = await namespace('url-token');
    for (const query of [`access_token=${TOKEN}`, `watch=true&token=${TOKEN}`]) {
      const res = await fetch(new URL(`/api/v1/namespaces/${ns}/configmaps?${query}`, base), { headers: { accept: 'text/event-stream' } });
      expect(res.status).toBe(401);
      const status = (await res.json()) as any;
      expect(status).toMatchObject({ kind: 'Status', code: 401, reason: 'Unauthorized' });
      expect(status.message).toContain('credential in the URL is refused');
    }
    const post = await fetch(new URL(`/api/v1/namespaces/${ns}/configmaps?access_token=${TOKEN}`, base), {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }),
    });
    expect(post.status).toBe(401);
    expect((await server.call('GET', `/api/v1/namespaces/${ns}/configmaps`)).body.items).toEqual([]);
  });
});
