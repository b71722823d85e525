import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.js';

const NS = '/api/v1/namespaces';

describe('namespace subresources: finalize and status', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('memory');
  });
  afterAll(() => s.close());

  const make = async (name: string, finalizers?: string[]) =>
    (await s.call('POST', NS, { apiVersion: 'v1', kind: 'Namespace', metadata: { name }, ...(finalizers ? { spec: { finalizers } } : {}) })).body;

  it('finalize on a live namespace changes spec.finalizers only, and the namespace stays', async () => {
    const ns = await make('live-one');
    expect(ns.spec.finalizers).toEqual(['kubernetes']);
    const res = await s.call('PUT', `${NS}/live-one/finalize`, { ...ns, metadata: { ...ns.metadata, labels: { ignored: 'yes' } }, spec: { finalizers: [] }, status: { phase: 'Terminating' } });
    expect(res.status).toBe(200);
    expect(res.body.spec.finalizers).toEqual([]);
    const got = (await s.call('GET', `${NS}/live-one`)).body;
    expect(got.spec.finalizers).toEqual([]);
    expect(got.metadata.labels).toBeUndefined();
    expect(got.status.phase).toBe('Active');
  });

  it('finalize removes a Terminating namespace once no finalizer is left', async () => {
    await make('going');
    await s.call('DELETE', `${NS}/going`);
    const terminating = (await s.call('GET', `${NS}/going`)).body;
    expect(terminating.status.phase).toBe('Terminating');
    const res = await s.call('PUT', `${NS}/going/finalize`, { ...terminating, spec: { finalizers: [] } });
    expect(res.status).toBe(200);
    expect((await s.call('GET', `${NS}/going`)).status).toBe(404);
  });

  it('finalize keeps a Terminating namespace whose other finalizers remain', async () => {
    await make('two', ['example.com/x']);
    await s.call('DELETE', `${NS}/two`);
    const ns = (await s.call('GET', `${NS}/two`)).body;
    expect(ns.spec.finalizers).toEqual(['example.com/x', 'kubernetes']);
    await s.call('PUT', `${NS}/two/finalize`, { ...ns, spec: { finalizers: ['example.com/x'] } });
    const after = (await s.call('GET', `${NS}/two`)).body;
    expect(after.spec.finalizers).toEqual(['example.com/x']);
    expect(after.metadata.deletionTimestamp).toBeDefined();
  });

  it('status changes status only', async () => {
    const ns = await make('with-status');
    const condition = { type: 'NamespaceContentRemaining', status: 'True', reason: 'SomeResourcesRemain', message: 'm', lastTransitionTime: '2025-01-01T00:00:00Z' };
    const res = await s.call('PUT', `${NS}/with-status/status`, { ...ns, spec: { finalizers: [] }, status: { phase: 'Active', conditions: [condition] } });
    expect(res.status).toBe(200);
    const got = (await s.call('GET', `${NS}/with-status`)).body;
    expect(got.status.conditions).toEqual([condition]);
    expect(got.spec.finalizers).toEqual(['kubernetes']);
  });

  it('answers a stale resourceVersion with 409 and changes nothing', async () => {
    const ns = await make('stale');
    await s.call('PATCH', `${NS}/stale`, { metadata: { labels: { a: 'b' } } }, { headers: { 'content-type': 'application/merge-patch+json' } });
    const res = await s.call('PUT', `${NS}/stale/finalize`, { ...ns, spec: { finalizers: [] } });
    expect(res.status).toBe(409);
    expect(res.body.reason).toBe('Conflict');
    expect((await s.call('GET', `${NS}/stale`)).body.spec.finalizers).toEqual(['kubernetes']);
  });

  it('answers bad requests with a 4xx Status and changes nothing', async () => {
    const ns = await make('bad');
    const missing = await s.call('PUT', `${NS}/nowhere/finalize`, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'nowhere' }, spec: { finalizers: [] } });
    expect(missing.status).toBe(404);
    expect(missing.body.reason).toBe('NotFound');
    const renamed = await s.call('PUT', `${NS}/bad/finalize`, { ...ns, metadata: { ...ns.metadata, name: 'other' }, spec: { finalizers: [] } });
    expect(renamed.status).toBe(400);
    const invalid = await s.call('PUT', `${NS}/bad/finalize`, { ...ns, spec: { finalizers: [''] } });
    expect(invalid.status).toBe(422);
    expect(invalid.body.reason).toBe('Invalid');
    const notJson = await s.call('PUT', `${NS}/bad/finalize`, '{');
    expect(notJson.status).toBe(400);
    expect((await s.call('PATCH', `${NS}/bad/finalize`, {}, { headers: { 'content-type': 'application/merge-patch+json' } })).status).toBe(405); // finalize takes PUT only, as Kubernetes: MethodNotAllowed
    expect((await s.call('PUT', `${NS}/bad/scale`, ns)).status).toBe(404);
    expect((await s.call('GET', `${NS}/bad`)).body.spec.finalizers).toEqual(['kubernetes']);
    expect((await s.call('GET', `${NS}/bad`)).body.metadata.resourceVersion).toBe(ns.metadata.resourceVersion);
  });
});
