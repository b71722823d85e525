// A write whose answer etcd lost — the member carried it out, then the connection dropped, as when
// the leader dies under a write it has replicated — is uncertain: the API server answers it with a
// 5xx Status, never a false 4xx. The loss is made exact by a proxy in front of a real etcd that
// cuts the connection once the write is in etcd and before its answer reaches the server.
//
// Found by test/faults/ha-etcd-member-kill.test.ts (once, when the etcd leader was killed): an
// update that started from the version this server last wrote (a guess) tried any failure again
// from the store, found its own write there and answered 409 Conflict; a patch was applied twice.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unauthorized } from '../../src/api/index.js';
import { buildApp } from '../../src/apiserver/index.js';
import { openEtcdStore, type EtcdStore } from '../../src/storage/etcd.js';
import { startAnswerLosingProxy, type AnswerLosingProxy } from '../support/answer-losing-proxy.js';
import { startEtcd, type EtcdMember } from '../support/etcd.js';
import { TOKEN, USER } from './harness.js';

const CONFIGMAPS = '/api/v1/namespaces/default/configmaps';
const KEYS = '/registry/core/configmaps/default/';

describe('an update whose answer etcd lost', () => {
  let etcd: EtcdMember;
  let proxy: AnswerLosingProxy;
  /** The API server's store, through the proxy. */
  let store: EtcdStore;
  /** A store on etcd itself: what etcd holds, whatever the proxy does. */
  let direct: EtcdStore;
  let app: FastifyInstance;

  const call = async (method: string, url: string, body: unknown, contentType = 'application/json') => {
    const res = await app.inject({
      method: method as 'GET',
      url,
      headers: { authorization: `Bearer ${TOKEN}`, ...(body !== undefined ? { 'content-type': contentType } : {}) },
      ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    });
    return { status: res.statusCode, body: JSON.parse(res.body) };
  };
  /** Whether etcd holds `name` with `marker` in its stored bytes. */
  const holds = (name: string, marker: string) => async () => Buffer.from((await direct.get(`${KEYS}${name}`))?.value ?? []).toString('latin1').includes(marker);

  beforeAll(async () => {
    etcd = await startEtcd();
    proxy = await startAnswerLosingProxy(etcd.endpoint);
    store = await openEtcdStore({ endpoints: [proxy.endpoint] });
    direct = await openEtcdStore({ endpoints: [etcd.endpoint] });
    app = await buildApp({
      store,
      authenticate: (headers) => {
        if (headers['authorization'] === `Bearer ${TOKEN}`) return USER;
        throw unauthorized('Unauthorized');
      },
    });
  });
  afterAll(async () => {
    await app?.close();
    await store?.close();
    await direct?.close();
    await proxy?.close();
    await etcd?.stop();
  });

  it('a PUT from the version the server last wrote is a 5xx, not a 409 for its own write', async () => {
    const created = await call('POST', CONFIGMAPS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'put' }, data: { k: '1' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const marker = 'put-whose-answer-is-lost';
    const [answer] = await Promise.all([
      call('PUT', `${CONFIGMAPS}/put`, { ...created.body, data: { k: marker } }),
      proxy.loseAnswerTo(marker, holds('put', marker)),
    ]);
    expect(answer.status, JSON.stringify(answer.body)).toBeGreaterThanOrEqual(500);
    expect(answer.body).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure' });
    // It was carried out: the object is the PUT's, at a later version, and writable from there.
    const now = await call('GET', `${CONFIGMAPS}/put`, undefined);
    expect(now.body.data).toEqual({ k: marker });
    expect(Number(now.body.metadata.resourceVersion)).toBeGreaterThan(Number(created.body.metadata.resourceVersion));
    const next = await call('PUT', `${CONFIGMAPS}/put`, { ...now.body, data: { k: '3' } });
    expect(next.status, JSON.stringify(next.body)).toBe(200);
  });

  it('a JSON patch from the version the server last wrote is a 5xx, and is not applied twice', async () => {
    const kept = 'example.com/kept';
    const created = await call('POST', CONFIGMAPS, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'patch', finalizers: [kept] }, data: { k: '1' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const marker = 'example.com/patch-whose-answer-is-lost';
    const [answer] = await Promise.all([
      call('PATCH', `${CONFIGMAPS}/patch`, [{ op: 'add', path: '/metadata/finalizers/-', value: marker }], 'application/json-patch+json'),
      proxy.loseAnswerTo(marker, holds('patch', marker)),
    ]);
    expect(answer.status, JSON.stringify(answer.body)).toBeGreaterThanOrEqual(500);
    expect(answer.body).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure' });
    const now = await call('GET', `${CONFIGMAPS}/patch`, undefined);
    expect(now.body.metadata.finalizers).toEqual([kept, marker]);
  });
});
