import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unauthorized } from '../../src/api/index.js';
import { buildApp } from '../../src/apiserver/index.js';
import { SqliteStore, type Store } from '../../src/storage/index.js';
import { openEtcdStore } from '../../src/storage/etcd.js';
import { startEtcd } from '../support/etcd.js';
import { isStream, openWatch, type WatchStream } from '../support/watch-client.js';
import { TOKEN, USER } from './harness.js';

/*
 * `--event-ttl`: the API server writes every Event with a time to live and the store deletes it
 * that long after its last write. On sqlite the test owns the store's clock and runs its expiry
 * sweep (`store.expire()`) itself; on etcd the lease runs out in etcd, and the test waits for the
 * DELETED that brings.
 */

const CORE = '/api/v1/namespaces/default/events';
const NEW = '/apis/events.svc.io/v1/namespaces/default/events';
const MINUTE = 60_000;

const coreEvent = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name },
  involvedObject: { kind: 'Pod', namespace: 'default', name: 'p' },
  reason: 'Started',
  message: 'Started container c',
  type: 'Normal',
  count: 1,
  source: { component: 'test' },
});

const newEvent = (name: string) => ({
  apiVersion: 'events.svc.io/v1',
  kind: 'Event',
  metadata: { name },
  eventTime: '2026-11-28T09:00:00.000000Z',
  reportingController: 'svc.io/test',
  reportingInstance: 'test-1',
  action: 'Start',
  reason: 'Started',
  regarding: { kind: 'Pod', namespace: 'default', name: 'p' },
  type: 'Normal',
  note: 'Started container c',
});

interface Server {
  app: FastifyInstance;
  url: string;
  call(method: string, url: string, body?: unknown, contentType?: string): Promise<{ status: number; body: any }>;
  watch(path: string): Promise<WatchStream>;
}

async function serve(store: Store, eventTtlSeconds?: number): Promise<Server> {
  const app = await buildApp({
    store,
    authenticate: (headers) => {
      if (headers['authorization'] === `Bearer ${TOKEN}`) return USER;
      throw unauthorized('Unauthorized');
    },
    ...(eventTtlSeconds !== undefined ? { eventTtlSeconds } : {}),
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no TCP address');
  const url = `http://127.0.0.1:${address.port}`;
  return {
    app,
    url,
    async call(method, path, body, contentType = 'application/json') {
      const res = await app.inject({
        method: method as 'GET',
        url: path,
        headers: { authorization: `Bearer ${TOKEN}`, ...(body !== undefined ? { 'content-type': contentType } : {}) },
        ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
      });
      return { status: res.statusCode, body: JSON.parse(res.body) };
    },
    async watch(path) {
      const watch = await openWatch(`${url}${path}`, { token: TOKEN });
      if (!isStream(watch)) throw new Error(`the watch was refused: ${watch.status} ${JSON.stringify(watch.body)}`);
      return watch;
    },
  };
}

describe('--event-ttl on sqlite (the test runs the expiry sweep)', () => {
  let dir: string;
  let clock: number;
  let store: SqliteStore;

  const withServer = async (ttl: number | undefined, run: (s: Server) => Promise<void>) => {
    dir = mkdtempSync(join(tmpdir(), 'svc-event-ttl-'));
    clock = Date.UTC(2026, 10, 28, 9, 0, 0);
    store = new SqliteStore({ path: join(dir, 'state.db'), now: () => clock, synchronous: 'NORMAL' });
    const s = await serve(store, ttl);
    try {
      await run(s);
    } finally {
      await s.app.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  };

  it('deletes core and events.svc.io Events the ttl after their last write: DELETED to watchers, at a new resourceVersion; other objects stay', () =>
    withServer(60, async (s) => {
      expect((await s.call('POST', CORE, coreEvent('core'))).status).toBe(201);
      expect((await s.call('POST', NEW, newEvent('new'))).status).toBe(201);
      const cm = await s.call('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'stays' }, data: { a: '1' } });
      expect(cm.status).toBe(201);
      const since = Number(cm.body.metadata.resourceVersion);
      const watch = await s.watch(`${CORE}?watch=1&resourceVersion=${since}`);
      try {
        clock += MINUTE - 1;
        expect(await store.expire()).toBe(0);
        expect((await s.call('GET', `${CORE}/core`)).status).toBe(200);

        clock += 1;
        expect(await store.expire()).toBe(2);
        const [deleted] = await watch.next(1);
        expect(deleted!.type).toBe('DELETED');
        expect(deleted!.object.metadata.name).toBe('core');
        expect(deleted!.object.reason).toBe('Started');
        expect(Number(deleted!.object.metadata.resourceVersion)).toBeGreaterThan(since);
        expect((await s.call('GET', `${CORE}/core`)).status).toBe(404);
        expect((await s.call('GET', `${NEW}/new`)).status).toBe(404);
        expect((await s.call('GET', CORE)).body.items).toEqual([]);
        expect((await s.call('GET', '/api/v1/namespaces/default/configmaps/stays')).status).toBe(200);
      } finally {
        watch.abort();
      }
    }));

  it('starts an Event\'s time again with each write of it (a repeat counted by a patch)', () =>
    withServer(60, async (s) => {
      expect((await s.call('POST', CORE, coreEvent('repeated'))).status).toBe(201);
      clock += 50_000;
      const patched = await s.call('PATCH', `${CORE}/repeated`, { count: 2 }, 'application/merge-patch+json');
      expect(patched.status).toBe(200);

      clock += 11_000; // past the create's ttl, not the patch's
      expect(await store.expire()).toBe(0);
      const kept = await s.call('GET', `${CORE}/repeated`);
      expect(kept.status).toBe(200);
      expect(kept.body.count).toBe(2);

      clock += 49_000;
      expect(await store.expire()).toBe(1);
      expect((await s.call('GET', `${CORE}/repeated`)).status).toBe(404);
    }));

  it('keeps Events for good with --event-ttl=0', () =>
    withServer(0, async (s) => {
      expect((await s.call('POST', CORE, coreEvent('kept'))).status).toBe(201);
      clock += 30 * 24 * 60 * MINUTE;
      expect(await store.expire()).toBe(0);
      expect((await s.call('GET', `${CORE}/kept`)).status).toBe(200);
    }));

  it('keeps Events an hour by default', () =>
    withServer(undefined, async (s) => {
      expect((await s.call('POST', CORE, coreEvent('hour'))).status).toBe(201);
      clock += 60 * MINUTE - 1;
      expect(await store.expire()).toBe(0);
      clock += 1;
      expect(await store.expire()).toBe(1);
      expect((await s.call('GET', `${CORE}/hour`)).status).toBe(404);
    }));
});

describe('--event-ttl on etcd (a lease on each Event)', () => {
  let etcd: Awaited<ReturnType<typeof startEtcd>>;
  beforeAll(async () => {
    etcd = await startEtcd();
  });
  afterAll(async () => {
    await etcd?.stop();
  });

  it('deletes an Event when its lease runs out: DELETED to watchers, at a new resourceVersion', async () => {
    const store = await openEtcdStore({ endpoints: [etcd.endpoint] });
    const s = await serve(store, 1);
    try {
      const cm = await s.call('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'stays' } });
      expect(cm.status).toBe(201);
      const since = Number(cm.body.metadata.resourceVersion);
      const watch = await s.watch(`${CORE}?watch=1&resourceVersion=${since}`);
      try {
        const created = await s.call('POST', CORE, coreEvent('leased'));
        expect(created.status).toBe(201);
        const [added, deleted] = await watch.next(2);
        expect([added!.type, added!.object.metadata.name]).toEqual(['ADDED', 'leased']);
        expect([deleted!.type, deleted!.object.metadata.name]).toEqual(['DELETED', 'leased']);
        expect(Number(deleted!.object.metadata.resourceVersion)).toBeGreaterThan(Number(created.body.metadata.resourceVersion));
        expect((await s.call('GET', `${CORE}/leased`)).status).toBe(404);
        expect((await s.call('GET', '/api/v1/namespaces/default/configmaps/stays')).status).toBe(200);
      } finally {
        watch.abort();
      }
    } finally {
      await s.app.close();
      await store.close();
    }
  });
});
