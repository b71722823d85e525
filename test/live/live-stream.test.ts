/**
 * The library's live streams (src/live/live-stream.ts): an informer's events served from a
 * user's Fastify app as Server-Sent Events and over WebSocket, a slow client dropped with a
 * reason, and `toEventStream` as an operator.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import Fastify, { type FastifyInstance } from 'fastify';
import { lastValueFrom, of, Subject, toArray } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { builtin, InformerFactory, type Client } from '../../src/client/index.js';
import { informerFrame, liveRoute, toEventStream } from '../../src/live/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';

let cluster: TestCluster;
let client: Client;
let factory: InformerFactory;
let app: FastifyInstance;
let base: string;
/** A stream the test drives by hand, for the slow-client case. */
const firehose = new Subject<string>();

beforeAll(async () => {
  cluster = await startTestCluster({ namespaces: ['live'] });
  client = cluster.client;
  factory = new InformerFactory(client);
  const maps = factory.informer(builtin.configMaps, { namespace: 'live' });
  app = Fastify();
  liveRoute(app, '/live/configmaps', () => maps.events$, { frame: informerFrame });
  liveRoute(app, '/live/firehose', () => firehose, { limit: 3, heartbeatMs: 0 });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  base = `127.0.0.1:${address.port}`;
});
afterAll(async () => {
  factory?.stop();
  await app?.close();
  await cluster?.stop();
});

function createMap(name: string, data: Record<string, string> = {}) {
  return client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'live' }, data }, { namespace: 'live' });
}

/** Reads SSE events from a response until `done` says so (or the response ends). */
function readEvents(res: IncomingMessage, done: (events: { event: string; id?: string; data: any }[]) => boolean): Promise<{ event: string; id?: string; data: any }[]> {
  const events: { event: string; id?: string; data: any }[] = [];
  let buffer = '';
  res.setEncoding('utf8');
  return new Promise((resolve) => {
    const finish = () => {
      res.destroy();
      resolve(events);
    };
    res.on('data', (chunk: string) => {
      buffer += chunk;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (block.startsWith(':')) continue;
        const event: { event: string; id?: string; data: any } = { event: 'message', data: undefined };
        for (const line of block.split('\n')) {
          const [field, ...rest] = line.split(': ');
          const value = rest.join(': ');
          if (field === 'event') event.event = value;
          else if (field === 'id') event.id = value;
          else if (field === 'data') event.data = JSON.parse(value);
        }
        events.push(event);
      }
      if (done(events)) finish();
    });
    res.on('end', () => resolve(events));
  });
}

function get(path: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => httpRequest(`http://${base}${path}`, { headers: { accept: 'text/event-stream' } }, resolve).on('error', reject).end());
}

describe('liveRoute', () => {
  it('serves an informer as Server-Sent Events: what is cached first, then each change, named like watch events', async () => {
    const a = await createMap('a', { v: '1' });
    const res = await get('/live/configmaps');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream');
    const reading = readEvents(res, (events) => events.some((e) => e.event === 'MODIFIED'));
    // The first event (the cached `a`) says the stream is live before the change is made.
    await new Promise<void>((resolve) => res.once('data', () => resolve()));
    await client.update(builtin.configMaps, { ...a, data: { v: '2' } }, { namespace: 'live' });
    const events = await reading;
    expect(events[0]).toMatchObject({ event: 'ADDED', id: a.metadata.resourceVersion, data: { metadata: { name: 'a' }, data: { v: '1' } } });
    expect(events.at(-1)).toMatchObject({ event: 'MODIFIED', data: { metadata: { name: 'a' }, data: { v: '2' } } });
  });

  it('serves the same stream over a WebSocket, one JSON message per change', async () => {
    const ws = new WebSocket(`ws://${base}/live/configmaps`);
    const messages: any[] = [];
    let first!: () => void;
    const started = new Promise<void>((resolve) => (first = resolve));
    const got = new Promise<void>((resolve) =>
      ws.on('message', (data) => {
        messages.push(JSON.parse(String(data)));
        first();
        if (messages.some((m) => m.object.metadata.name === 'b')) resolve();
      }),
    );
    // The first message (the cached `a`) says the stream is live before `b` is made.
    await started;
    await createMap('b');
    await got;
    ws.close();
    expect(messages[0]).toMatchObject({ type: 'ADDED', id: expect.any(String), object: { kind: 'ConfigMap' } });
    expect(messages.find((m) => m.object.metadata.name === 'b')).toMatchObject({ type: 'ADDED' });
  });

  it('drops a client that stops reading with an ERROR event naming why, never buffering past the limit', async () => {
    const res = await get('/live/firehose');
    res.pause();
    // Items far larger than the socket buffers: the limit of 3 waiting frames is passed soon.
    const big = 'x'.repeat(256 * 1024);
    for (let i = 0; i < 200; i++) {
      firehose.next(big);
      // A turn of the event loop per item, so the socket reports itself full as it fills.
      await new Promise((resolve) => setImmediate(resolve));
    }
    res.resume();
    const events = await readEvents(res, () => false);
    expect(events.at(-1)).toMatchObject({ event: 'ERROR', data: { reason: 'TooSlow' } });
    expect(events.length).toBeLessThan(200);
  });
});

describe('toEventStream', () => {
  it('turns each item into one SSE event text', async () => {
    const texts = await lastValueFrom(of({ n: 1 }, { n: 2 }).pipe(toEventStream((item) => ({ event: 'tick', id: String(item.n), data: item })), toArray()));
    expect(texts).toEqual(['event: tick\nid: 1\ndata: {"n":1}\n\n', 'event: tick\nid: 2\ndata: {"n":2}\n\n']);
  });
});
