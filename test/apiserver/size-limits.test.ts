import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_OBJECT_BYTES } from '../../src/encoding/index.js';
import { MAX_JSON_PATCH_OPERATIONS } from '../../src/apiserver/writes/json-patch.js';
import { startTestServer, type CallResult, type TestServer } from './harness.js';

const CM = '/api/v1/namespaces/default/configmaps';
const MERGE = 'application/merge-patch+json';
const STRATEGIC = 'application/strategic-merge-patch+json';
const JSON_PATCH = 'application/json-patch+json';
const APPLY = 'application/apply-patch+yaml';

/** `n` labels with short keys: 150 000 of them make the campaign's 1.8 MB ConfigMap. */
const labels = (n: number, value = 'v') => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i.toString(36)}`, value]));

function expectTooLarge(res: CallResult) {
  expect(res.status).toBe(413);
  expect(res.body).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'RequestEntityTooLarge', code: 413 });
}

describe('size limits, on the sqlite store', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('sqlite');
    expect((await s.call('POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'target', labels: { a: 'b' } }, data: { x: 'y' } })).status).toBe(201);
  });
  afterAll(async () => {
    await s.close();
  });

  const target = async () => (await s.call('GET', `${CM}/target`)).body;

  it('answers 413 to a 1.8 MB ConfigMap of 150 000 labels, which it can never store, and stores nothing', async () => {
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'big', labels: labels(150_000) } };
    expect(JSON.stringify(body).length).toBeGreaterThan(MAX_OBJECT_BYTES);
    const res = await s.call('POST', CM, body);
    expectTooLarge(res);
    expect(res.body.message).toContain(String(MAX_OBJECT_BYTES));
    expect((await s.call('GET', `${CM}/big`)).status).toBe(404);
  });

  it('answers 413 to a body over --max-request-body-bytes (3 MiB)', async () => {
    expectTooLarge(await s.call('POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'huge' }, data: { x: 'x'.repeat(3.5 * 1024 * 1024) } }));
    expect((await s.call('GET', `${CM}/huge`)).status).toBe(404);
  });

  it('answers 413 to an object that outgrows the limit only once its managedFields are added', async () => {
    // 1.1 MB of labels: within the limit as sent, past it with a field-set entry per label.
    const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'grows', labels: labels(80_000) } };
    expect(JSON.stringify(body).length).toBeLessThan(MAX_OBJECT_BYTES);
    const res = await s.call('POST', CM, body);
    expectTooLarge(res);
    expect(res.body.message).toContain('etcdserver: request is too large');
    expect((await s.call('GET', `${CM}/grows`)).status).toBe(404);
  });

  it('answers 413 to updates, patches and applies that would make the object too large, changing nothing', async () => {
    const before = await target();
    const big = labels(150_000);
    expectTooLarge(await s.call('PUT', `${CM}/target`, { ...before, metadata: { ...before.metadata, labels: big } }));
    expectTooLarge(await s.call('PATCH', `${CM}/target`, { metadata: { labels: big } }, { headers: { 'content-type': MERGE } }));
    expectTooLarge(await s.call('PATCH', `${CM}/target`, { metadata: { labels: big } }, { headers: { 'content-type': STRATEGIC } }));
    expectTooLarge(await s.call('PATCH', `${CM}/target`, [{ op: 'add', path: '/metadata/labels', value: big }], { headers: { 'content-type': JSON_PATCH } }));
    expectTooLarge(await s.call('PATCH', `${CM}/target?fieldManager=m`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'target', labels: big } }, { headers: { 'content-type': APPLY } }));
    expect((await target()).metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  });

  it('answers 413 to a small JSON patch whose copy operations double the object again and again', async () => {
    const before = await target();
    // 40 copies of data into itself: 2^40 times its size, if nothing counted them.
    const ops = [{ op: 'add', path: '/data/seed', value: 'x'.repeat(1000) }];
    for (let i = 0; i < 40; i++) ops.push({ op: 'copy', from: '/data', path: `/data/c${i}` } as never);
    const res = await s.call('PATCH', `${CM}/target`, ops, { headers: { 'content-type': JSON_PATCH } });
    expectTooLarge(res);
    expect(res.body.message).toContain('copy');
    expect((await target()).metadata.resourceVersion).toBe(before.metadata.resourceVersion);
  });

  it('answers 413 to a JSON patch of more operations than Kubernetes allows', async () => {
    const ops = Array.from({ length: MAX_JSON_PATCH_OPERATIONS + 1 }, () => ({ op: 'test', path: '/kind', value: 'ConfigMap' }));
    const res = await s.call('PATCH', `${CM}/target`, ops, { headers: { 'content-type': JSON_PATCH } });
    expectTooLarge(res);
    expect(res.body.message).toContain(String(MAX_JSON_PATCH_OPERATIONS));
  });

  it('still merges long lists and big maps by key: a strategic merge of 20 000 labels and 5 000 finalizers', async () => {
    const first = labels(20_000, 'a');
    const finalizers = Array.from({ length: 5000 }, (_, i) => `example.com/f${i}`);
    expect((await s.call('POST', CM, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'wide', labels: first, finalizers } })).status).toBe(201);
    const patch = { metadata: { labels: labels(20_000, 'b'), finalizers: [...finalizers.slice(2500), 'example.com/new'] } };
    const res = await s.call('PATCH', `${CM}/wide`, patch, { headers: { 'content-type': STRATEGIC } });
    expect(res.status).toBe(200);
    expect(res.body.metadata.labels['k0']).toBe('b');
    expect(res.body.metadata.finalizers).toHaveLength(5001);
    expect(res.body.metadata.finalizers.at(-1)).toBe('example.com/new');
    const cleared = await s.call('PATCH', `${CM}/wide`, { metadata: { finalizers: null } }, { headers: { 'content-type': MERGE } });
    expect(cleared.status).toBe(200);
  });
});
