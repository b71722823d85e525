import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Subscription } from 'rxjs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigMap } from '../../src/api/index.js';
import { builtin, Client, WatchStalledError, type WatcherEvent } from '../../src/client/index.js';
import { cm, FAST, startClientTestServer, until, type ClientTestServer } from './support.js';

let t: ClientTestServer;
let client: Client;
const subscriptions: Subscription[] = [];
let nsCount = 0;

beforeAll(async () => {
  // A tiny history window: a watch that asks for a compacted version gets 410 at once.
  t = await startClientTestServer({ watchHistoryWindowMs: 1, bookmarkIntervalMs: 50, tooLargeResourceVersionWaitMs: 20 });
  client = t.client;
});
afterEach(() => {
  for (const s of subscriptions.splice(0)) s.unsubscribe();
});
afterAll(() => t.close());

async function freshNamespace(): Promise<string> {
  const name = `w-${++nsCount}`;
  await client.create(builtin.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  return name;
}

/**
 * A change in `ns`, then (a little later) one elsewhere: the second pushes the first out of the
 * server's 1 ms watch history, so a watch that missed it must be replayed from the store — which
 * the armed lever compacts (410).
 */
async function missWhileAway(ns: string, i: number): Promise<void> {
  await client.create(builtin.configMaps, cm(`missed-${i}`), { namespace: ns });
  await new Promise((r) => setTimeout(r, 3));
  await client.create(builtin.configMaps, cm(`elsewhere-${ns}-${i}`), { namespace: 'default' });
}

function record(ns: string, options: Parameters<Client['watch$']>[1] = {}) {
  const events: WatcherEvent<ConfigMap>[] = [];
  const errors: unknown[] = [];
  subscriptions.push(
    client.watch$(builtin.configMaps, { namespace: ns, ...FAST, onError: (e) => errors.push(e), ...options }).subscribe((e) => events.push(e)),
  );
  return { events, errors };
}

const changes = (events: WatcherEvent<ConfigMap>[]) =>
  events.flatMap((e) => (e.type === 'ADDED' || e.type === 'MODIFIED' || e.type === 'DELETED' ? [`${e.type} ${e.object.metadata.name} ${e.object.metadata.resourceVersion}`] : []));
const count = (events: WatcherEvent<ConfigMap>[], type: WatcherEvent<ConfigMap>['type']) => events.filter((e) => e.type === type).length;

describe('watch$', () => {
  it('lists (INIT … INIT_DONE), then streams changes', async () => {
    const ns = await freshNamespace();
    await client.create(builtin.configMaps, cm('a'), { namespace: ns });
    await client.create(builtin.configMaps, cm('b'), { namespace: ns });
    const { events } = record(ns, { pageSize: 1 });
    await until(() => count(events, 'INIT_DONE') === 1, 'the list');
    expect(events.slice(0, 4).map((e) => e.type)).toEqual(['INIT', 'INIT_APPLY', 'INIT_APPLY', 'INIT_DONE']);
    expect(events[0]).toEqual({ type: 'INIT', reason: 'start' });
    const c = await client.create(builtin.configMaps, cm('c'), { namespace: ns });
    await client.delete(builtin.configMaps, 'a', { namespace: ns });
    await until(() => count(events, 'DELETED') === 1, 'the delete');
    expect(changes(events)[0]).toBe(`ADDED c ${c.metadata.resourceVersion}`);
    expect(changes(events)[1]).toMatch(/^DELETED a /);
  });

  it('streams the initial list with sendInitialEvents and ends it at the bookmark', async () => {
    const ns = await freshNamespace();
    await client.create(builtin.configMaps, cm('a'), { namespace: ns });
    const { events } = record(ns, { initialList: 'stream' });
    await until(() => count(events, 'INIT_DONE') === 1, 'the streamed list');
    expect(events.slice(0, 3).map((e) => e.type)).toEqual(['INIT', 'INIT_APPLY', 'INIT_DONE']);
    expect(t.requests.some((u) => u.includes(`/namespaces/${ns}/configmaps?`) && u.includes('sendInitialEvents=true'))).toBe(true);
    expect(t.requests.some((u) => u.includes(`/namespaces/${ns}/configmaps?`) && u.includes('limit='))).toBe(false);
    await client.create(builtin.configMaps, cm('b'), { namespace: ns });
    await until(() => count(events, 'ADDED') === 1, 'a live event');
  });

  it('resumes after forced disconnects from the last version, without duplicates or gaps', async () => {
    const ns = await freshNamespace();
    const { events } = record(ns);
    await until(() => count(events, 'INIT_DONE') === 1, 'the list');
    const expected: string[] = [];
    for (let i = 0; i < 30; i += 1) {
      const made = await client.create(builtin.configMaps, cm(`o-${i}`), { namespace: ns });
      expected.push(`ADDED o-${i} ${made.metadata.resourceVersion}`);
      if (i % 7 === 3) t.dropWatches();
    }
    await until(() => changes(events).length >= expected.length, 'every change');
    expect(changes(events)).toEqual(expected);
    expect(count(events, 'INIT')).toBe(1);
    const resumed = t.requests.filter((u) => u.includes(`/namespaces/${ns}/configmaps?`) && u.includes('watch=1') && /resourceVersion=\d+/.test(u));
    expect(resumed.length).toBeGreaterThan(1);
  });

  it('moves its version on with bookmarks', async () => {
    const ns = await freshNamespace();
    const { events } = record(ns);
    await until(() => count(events, 'INIT_DONE') === 1, 'the list');
    await client.create(builtin.configMaps, cm('elsewhere'), { namespace: 'default' });
    await until(() => count(events, 'BOOKMARK') > 0, 'a bookmark');
  });

  it('relists with INIT(expired) when its version was compacted (410), replacing what it had', async () => {
    const ns = await freshNamespace();
    const a = await client.create(builtin.configMaps, cm('a'), { namespace: ns });
    await client.delete(builtin.configMaps, 'a', { namespace: ns });
    const b = await client.create(builtin.configMaps, cm('b'), { namespace: ns });
    await t.s.store.compact(Number(b.metadata.resourceVersion));
    const { events, errors } = record(ns, { resourceVersion: a.metadata.resourceVersion! });
    await until(() => count(events, 'INIT_DONE') === 1, 'the relist');
    expect(events[0]).toEqual({ type: 'INIT', reason: 'expired' });
    expect(events.filter((e) => e.type === 'INIT_APPLY').map((e) => (e.type === 'INIT_APPLY' ? e.object.metadata.name : ''))).toEqual(['b']);
    expect(errors[0]).toMatchObject({ code: 410, reason: 'Expired' });
  });

  it('relists when a live watch is resumed too late (410 after a disconnect), then goes on', async () => {
    const ns = await freshNamespace();
    // A slower back-off, so that the changes below usually land while the watch is away.
    const { events } = record(ns, { backoff: { initialMs: 200, maxMs: 400 } });
    await until(() => count(events, 'INIT_DONE') === 1, 'the list');
    for (let i = 0; count(events, 'INIT') < 2; i += 1) {
      t.expireNextWatch();
      t.dropWatches();
      await missWhileAway(ns, i);
      await until(() => count(events, 'INIT') >= 2 || t.watches.size > 0, 'a new watch');
      if (i > 50) throw new Error('the watch never expired');
    }
    expect(events.filter((e) => e.type === 'INIT')[1]).toEqual({ type: 'INIT', reason: 'expired' });
    await until(() => count(events, 'INIT_DONE') === 2, 'the relist');
    await client.create(builtin.configMaps, cm('after'), { namespace: ns });
    await until(() => changes(events).some((c) => c.startsWith('ADDED after ')), 'a change after the relist');
  });

  it('relists with INIT(tooLarge) when the server has not reached the version it resumes from (504 ResourceVersionTooLarge)', async () => {
    // As after a memory-store server restarts under the watcher: its version is ahead of everything the server has.
    const ns = await freshNamespace();
    await client.create(builtin.configMaps, cm('a'), { namespace: ns });
    const ahead = String((await t.s.store.revision()) + 1_000);
    const { events, errors } = record(ns, { resourceVersion: ahead });
    await until(() => count(events, 'INIT_DONE') === 1, 'the relist');
    expect(events[0]).toEqual({ type: 'INIT', reason: 'tooLarge' });
    expect(events.filter((e) => e.type === 'INIT_APPLY').map((e) => (e.type === 'INIT_APPLY' ? e.object.metadata.name : ''))).toEqual(['a']);
    expect(errors[0]).toMatchObject({ code: 504, reason: 'Timeout', details: { retryAfterSeconds: 1, causes: [{ reason: 'ResourceVersionTooLarge' }] } });
    // And it watches on from the list's version.
    await client.create(builtin.configMaps, cm('b'), { namespace: ns });
    await until(() => changes(events).some((c) => c.startsWith('ADDED b ')), 'a change after the relist');
  });

  it('waits for a server that has not reached the version it lists at (504, Retry-After), then lists', async () => {
    const ns = await freshNamespace();
    const now = Number((await client.create(builtin.configMaps, cm('now'), { namespace: ns })).metadata.resourceVersion);
    const ahead = now + 2;
    const { events, errors } = record(ns, { firstList: { resourceVersion: String(ahead), resourceVersionMatch: 'NotOlderThan' } });
    await until(() => errors.length > 0, 'the refusal');
    expect(errors[0]).toMatchObject({ code: 504, reason: 'Timeout', details: { retryAfterSeconds: 1 } });
    await client.create(builtin.configMaps, cm('one'), { namespace: ns });
    await client.create(builtin.configMaps, cm('two'), { namespace: ns });
    await until(() => count(events, 'INIT_DONE') === 1, 'the list');
    const done = events.find((e) => e.type === 'INIT_DONE');
    expect(done?.type === 'INIT_DONE' && Number(done.resourceVersion)).toBeGreaterThanOrEqual(ahead);
    expect(events.filter((e) => e.type === 'INIT').map((e) => e.type === 'INIT' && e.reason)).toEqual(['start', 'retry']);
  });

  it('closes its HTTP stream on unsubscribe', async () => {
    const ns = await freshNamespace();
    const before = t.watches.size;
    const sub = client.watch$(builtin.configMaps, { namespace: ns, ...FAST }).subscribe();
    await until(() => t.watches.size === before + 1, 'the watch to open');
    sub.unsubscribe();
    await until(() => t.watches.size === before, 'the server to see the watch closed');
  });

  it('restarts a watch that stalls (no byte for its timeout + grace)', async () => {
    // A server that answers the list, then opens every watch and never writes to it.
    const watchesOpened: string[] = [];
    const silent: Server = createServer((req, res) => {
      if (req.url?.includes('watch=1')) {
        watchesOpened.push(req.url);
        res.writeHead(200, { 'content-type': 'application/json' });
        res.flushHeaders();
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '7' }, items: [] }));
    });
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const quiet = new Client({ server: `http://127.0.0.1:${(silent.address() as AddressInfo).port}` });
    const errors: unknown[] = [];
    const sub = quiet.watch$(builtin.configMaps, { timeoutSeconds: 0, stallGraceMs: 50, ...FAST, onError: (e) => errors.push(e) }).subscribe();
    try {
      await until(() => watchesOpened.length >= 2, 'a second watch');
      expect(errors[0]).toBeInstanceOf(WatchStalledError);
      expect(watchesOpened[1]).toContain('resourceVersion=7');
    } finally {
      sub.unsubscribe();
      await quiet.destroy();
      silent.closeAllConnections();
      await new Promise((r) => silent.close(r));
    }
  });
});
