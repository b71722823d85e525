// An unconditional write (no resourceVersion, no precondition) that loses the store's
// compare-and-swap tries again on the newer object until it wins, as Kubernetes' GuaranteedUpdate
// does (src/apiserver/writes/conflict-retry.ts); a conditional one is a 409 at once. The store
// here is a real memory store in which another writer writes the object just before each of the
// server's next N writes of it: N lost races, more than any fixed small count of tries.
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { unauthorized } from '../../src/api/index.js';
import { buildApp } from '../../src/apiserver/index.js';
import { MemoryStore, type KeyValue } from '../../src/storage/index.js';
import { TOKEN, USER } from './harness.js';

/** A memory store where `races` writes of keys ending in `suffix` each lose to another writer's write first. */
class RacedStore extends MemoryStore {
  races = 0;
  lost = 0;
  suffix = '';
  override async update(key: string, value: Uint8Array, expectedModRevision: number): Promise<KeyValue<Uint8Array>> {
    if (this.races > 0 && this.suffix !== '' && key.endsWith(this.suffix)) {
      this.races--;
      const current = await this.get(key);
      // The other writer: the stored bytes again, which moves the key's modRevision past the server's read.
      if (current) await super.update(key, current.value, current.modRevision);
      this.lost++;
    }
    return super.update(key, value, expectedModRevision);
  }
}

const NODES = '/api/v1/nodes';
const LOST_RACES = 12;

describe('an unconditional write that loses races', () => {
  let app: FastifyInstance | undefined;
  let store: RacedStore;
  afterEach(async () => {
    await app?.close();
    await store.close();
  });

  const start = async () => {
    store = new RacedStore();
    app = await buildApp({
      store,
      authenticate: (headers) => {
        if (headers['authorization'] === `Bearer ${TOKEN}`) return USER;
        throw unauthorized('Unauthorized');
      },
    });
    const call = async (method: 'POST' | 'PATCH' | 'PUT' | 'GET', url: string, body?: unknown, contentType = 'application/json') => {
      const res = await app!.inject({
        method,
        url,
        headers: { authorization: `Bearer ${TOKEN}`, ...(body !== undefined ? { 'content-type': contentType } : {}) },
        ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
      });
      return { status: res.statusCode, body: JSON.parse(res.body) as Record<string, unknown> };
    };
    const created = await call('POST', NODES, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    return call;
  };

  it(`a merge patch of nodes/status without a resourceVersion wins after ${LOST_RACES} lost races`, async () => {
    const call = await start();
    store.suffix = '/nodes/n1';
    store.races = LOST_RACES;
    const patched = await call('PATCH', `${NODES}/n1/status`, { status: { conditions: [{ type: 'Ready', status: 'True' }] } }, 'application/merge-patch+json');
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(store.lost).toBe(LOST_RACES);
    const read = await call('GET', `${NODES}/n1`);
    expect((read.body['status'] as { conditions: unknown[] }).conditions).toMatchObject([{ type: 'Ready', status: 'True' }]);
  });

  it('a PUT of nodes/status without a resourceVersion wins too, and a patch of the object', async () => {
    const call = await start();
    store.suffix = '/nodes/n1';
    store.races = LOST_RACES;
    const put = await call('PUT', `${NODES}/n1/status`, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' }, status: { capacity: { cpu: '2' } } });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    store.races = LOST_RACES;
    const labelled = await call('PATCH', `${NODES}/n1`, { metadata: { labels: { zone: 'a' } } }, 'application/merge-patch+json');
    expect(labelled.status, JSON.stringify(labelled.body)).toBe(200);
    expect(store.lost).toBe(2 * LOST_RACES);
    const read = await call('GET', `${NODES}/n1`);
    expect(read.body).toMatchObject({ metadata: { labels: { zone: 'a' } }, status: { capacity: { cpu: '2' } } });
  });

  it('a patch that names its resourceVersion loses at once with a 409 and writes nothing', async () => {
    const call = await start();
    const before = await call('GET', `${NODES}/n1`);
    const version = (before.body['metadata'] as { resourceVersion: string }).resourceVersion;
    store.suffix = '/nodes/n1';
    store.races = 1;
    const patched = await call('PATCH', `${NODES}/n1`, { metadata: { resourceVersion: version, labels: { zone: 'b' } } }, 'application/merge-patch+json');
    expect(patched.status).toBe(409);
    expect(patched.body).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Conflict', code: 409 });
    const read = await call('GET', `${NODES}/n1`);
    expect((read.body['metadata'] as { labels?: Record<string, string> }).labels?.['zone']).toBeUndefined();
  });
});
