import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigMap } from '../../src/api/index.js';
import { builtin, Informer, type Client } from '../../src/client/index.js';
import { cm, FAST, startClientTestServer, type ClientTestServer } from './support.js';
import { waitUntil } from '../support/wait.js';

// `connections` bounds the sockets a client's requests hold; its watches go through a pool of their
// own, one socket each (docs/client.md#connections). Counted on the server: the sockets it has open.

let t: ClientTestServer;
let open = 0;
let peak = 0;

beforeAll(async () => {
  t = await startClientTestServer();
  t.s.app.server.on('connection', (socket: Socket) => {
    open += 1;
    peak = Math.max(peak, open);
    socket.once('close', () => (open -= 1));
  });
  await t.client.create(builtin.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'pool' } });
  await t.client.create(builtin.configMaps, cm('one'), { namespace: 'pool' });
});
afterAll(() => t.close());

const WATCHES = 6;
const REQUESTS = 40;

/** Opens `WATCHES` informers (a list, then a watch each) on `client` and waits until all have synced. */
async function watching(client: Client): Promise<Informer<ConfigMap>[]> {
  const informers = Array.from({ length: WATCHES }, () => new Informer(client, builtin.configMaps, { namespace: 'pool', ...FAST }));
  for (const informer of informers) informer.events$.subscribe();
  await Promise.all(informers.map((informer) => informer.waitForSync()));
  // Synced is the list's end; the watch request follows it.
  await waitUntil(() => t.watches.size >= WATCHES, 'every informer\'s watch to reach the server');
  return informers;
}

/** The server's most sockets open at once while `REQUESTS` GETs of `client` are in flight together, beyond those open before. */
async function peakDuringBurst(client: Client): Promise<{ extra: number; answered: number }> {
  const before = open;
  peak = open;
  const answers = await Promise.all(Array.from({ length: REQUESTS }, () => client.get(builtin.configMaps, 'one', { namespace: 'pool' })));
  return { extra: peak - before, answered: answers.filter((a) => a.metadata.name === 'one').length };
}

describe('a client with a bounded pool (connections)', () => {
  it('holds at most `connections` sockets for requests, however many are in flight, and its watches do not take them', async () => {
    const others = open; // the test's admin client's sockets
    const client = t.newClient({ connections: 2 });
    const informers = await watching(client);
    try {
      // Every watch is open on a socket of its own, and the requests still go through (with the
      // watches in the bounded pool, two of them would have taken both sockets for good).
      expect(t.watches.size).toBe(WATCHES);
      const { extra, answered } = await peakDuringBurst(client);
      expect(answered).toBe(REQUESTS);
      // At most two request sockets, before the burst of 40 and at its peak.
      expect(open - others - WATCHES).toBeLessThanOrEqual(2);
      expect(extra).toBeLessThanOrEqual(2);
    } finally {
      for (const informer of informers) informer.stop();
      await client.destroy();
    }
  });

  it('an unbounded client (the default) opens a socket per concurrent request', async () => {
    const client = t.newClient();
    try {
      const { extra, answered } = await peakDuringBurst(client);
      expect(answered).toBe(REQUESTS);
      // What the bound prevents: here the burst's requests each opened one.
      expect(extra).toBeGreaterThan(2);
    } finally {
      await client.destroy();
    }
  });

  it('closes the watches\' pool too on destroy', async () => {
    const client = t.newClient({ connections: 1 });
    const watch = await client.transport.stream({ method: 'GET', path: '/api/v1/namespaces/pool/configmaps', query: { watch: 1 } });
    // Read until destroy ends it (with undici's ClientDestroyedError).
    const ended = (async () => {
      try {
        for await (const _chunk of watch.body);
      } catch {
        // The destroy's error: expected.
      }
    })();
    await waitUntil(() => t.watches.size === 1, 'the watch to reach the server');
    await client.destroy();
    await ended;
    // The server sees the watch's socket close: destroy reached the streams' own pool.
    await waitUntil(() => t.watches.size === 0, 'the watch to close on the server');
  });
});
