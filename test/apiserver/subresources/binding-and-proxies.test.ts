import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type CallResult, type TestServer } from '../harness.js';
import { waitUntil } from '../../support/wait.js';

const until = (check: () => boolean): Promise<void> => waitUntil(check, 'the condition');

function ok(res: CallResult, code = 200) {
  expect(res.status, JSON.stringify(res.body)).toBe(code);
  return res.body;
}

const PODS = '/api/v1/namespaces/default/pods';
const binding = (name: string, target: Record<string, unknown> = { kind: 'Node', name: 'node-1' }, metadata: Record<string, unknown> = {}) => ({
  apiVersion: 'v1',
  kind: 'Binding',
  metadata: { name, ...metadata },
  target,
});

describe('pod binding', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('memory');
  });
  afterAll(async () => {
    await s.close();
  });
  const pod = (name: string) => s.call('POST', PODS, { metadata: { name }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });

  it('sets spec.nodeName once, with the PodScheduled condition and the binding annotations', async () => {
    const created = ok(await pod('bind-me'), 201);
    const res = await s.call('POST', `${PODS}/bind-me/binding`, binding('bind-me', { kind: 'Node', name: 'node-1' }, { annotations: { 'scheduler.example/score': '7' } }));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ kind: 'Status', status: 'Success' });
    const bound = ok(await s.call('GET', `${PODS}/bind-me`));
    expect(bound.spec.nodeName).toBe('node-1');
    expect(bound.metadata.annotations).toEqual({ 'scheduler.example/score': '7' });
    expect(bound.status.conditions).toEqual([expect.objectContaining({ type: 'PodScheduled', status: 'True' })]);
    expect(bound.status.phase).toBe('Pending');
    // The spec changed: the generation moves by one; the pod's identity stays.
    expect(bound.metadata.generation).toBe(created.metadata.generation + 1);
    expect(bound.metadata.uid).toBe(created.metadata.uid);
    expect(bound.metadata.creationTimestamp).toBe(created.metadata.creationTimestamp);

    const again = await s.call('POST', `${PODS}/bind-me/binding`, binding('bind-me', { name: 'node-2' }));
    expect(again.body).toMatchObject({ code: 409, reason: 'Conflict', message: 'Operation cannot be fulfilled on pods/binding "bind-me": pod bind-me is already assigned to node "node-1"' });
    expect(ok(await s.call('GET', `${PODS}/bind-me`)).spec.nodeName).toBe('node-1');
  });

  it('is one storage write: one event carries spec.nodeName and PodScheduled together, and no managedFields entry', async () => {
    const created = ok(await pod('one-write'), 201);
    const events: { type: string; key: string; value?: Uint8Array; revision: number }[] = [];
    const sub = s.store.watch(s.store.prefix, Number(created.metadata.resourceVersion)).subscribe((e) => {
      if (e.key.endsWith('/one-write')) events.push(e);
    });
    try {
      ok(await s.call('POST', `${PODS}/one-write/binding`, binding('one-write', { kind: 'Node', name: 'node-7' })), 201);
      const head = await s.store.revision();
      await until(() => events.length > 0 && events[events.length - 1]!.revision >= head);
    } finally {
      sub.unsubscribe();
    }
    expect(events.map((e) => e.type)).toEqual(['put']);
    const stored = JSON.parse(Buffer.from(events[0]!.value!).toString('utf8'));
    expect(stored.spec.nodeName).toBe('node-7');
    expect(stored.status.conditions).toEqual([expect.objectContaining({ type: 'PodScheduled', status: 'True' })]);
    const bound = ok(await s.call('GET', `${PODS}/one-write`));
    expect(bound.metadata.resourceVersion).toBe(String(events[0]!.revision));
    // As in Kubernetes, the binding updates the stored pod directly: the pod's managedFields stay its creator's.
    expect(bound.metadata.managedFields).toEqual(created.metadata.managedFields);
  });

  it('accepts the legacy POST to bindings in the namespace', async () => {
    ok(await pod('legacy'), 201);
    expect((await s.call('POST', '/api/v1/namespaces/default/bindings', binding('legacy', { name: 'node-3' }))).status).toBe(201);
    expect(ok(await s.call('GET', `${PODS}/legacy`)).spec.nodeName).toBe('node-3');
    expect((await s.call('GET', '/api/v1/namespaces/default/bindings')).status).toBe(405);
    expect((await s.call('POST', '/api/v1/bindings', binding('legacy'))).status).toBe(404);
  });

  it('refuses bad bindings with a 4xx and binds nothing', async () => {
    ok(await pod('unbound'), 201);
    const cases: [string, unknown, number, string][] = [
      ['no target name', binding('unbound', { kind: 'Node' }), 422, 'Invalid'],
      ['a target that is not a Node', binding('unbound', { kind: 'Pod', name: 'x' }), 422, 'Invalid'],
      ['another name than the URL', binding('other'), 400, 'BadRequest'],
      ['another kind', { ...binding('unbound'), kind: 'Eviction' }, 400, 'BadRequest'],
      ['not JSON', '{', 400, 'BadRequest'],
      ['a stale uid', binding('unbound', { name: 'n' }, { uid: 'not-the-pod' }), 409, 'Conflict'],
    ];
    for (const [what, body, code, reason] of cases) {
      const res = await s.call('POST', `${PODS}/unbound/binding`, body);
      expect(res.status, what).toBe(code);
      expect(res.body.reason, what).toBe(reason);
    }
    expect((await s.call('POST', `${PODS}/missing/binding`, binding('missing'))).body).toMatchObject({ code: 404, reason: 'NotFound' });
    expect(ok(await s.call('GET', `${PODS}/unbound`)).spec.nodeName).toBeUndefined();
  });

  it('does not bind a pod that is being deleted', async () => {
    await s.call('POST', PODS, { metadata: { name: 'leaving', finalizers: ['example.com/hold'] }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    ok(await s.call('DELETE', `${PODS}/leaving`));
    expect((await s.call('POST', `${PODS}/leaving/binding`, binding('leaving'))).body).toMatchObject({ code: 409, reason: 'Conflict' });
  });

  it('dry run binds nothing', async () => {
    ok(await pod('dry-bind'), 201);
    expect((await s.call('POST', `${PODS}/dry-bind/binding?dryRun=All`, binding('dry-bind'))).status).toBe(201);
    expect(ok(await s.call('GET', `${PODS}/dry-bind`)).spec.nodeName).toBeUndefined();
  });
});

describe('the node agent subresources when the agent cannot be reached', () => {
  let s: TestServer;
  let closedPort = 0;
  beforeAll(async () => {
    s = await startTestServer('memory');
    // A port nothing listens on: the agent of node-a is down.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    closedPort = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    await s.call('POST', PODS, { metadata: { name: 'on-node' }, spec: { nodeName: 'node-a', containers: [{ name: 'c', image: 'nginx' }] } });
    await s.call('POST', PODS, { metadata: { name: 'nowhere' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    await s.call('POST', PODS, { metadata: { name: 'on-silent' }, spec: { nodeName: 'node-silent', containers: [{ name: 'c', image: 'nginx' }] } });
    await s.call('POST', '/api/v1/nodes', { metadata: { name: 'node-a' }, status: { addresses: [{ type: 'InternalIP', address: '127.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: closedPort } } } });
    await s.call('POST', '/api/v1/nodes', { metadata: { name: 'node-silent' } });
    await s.call('POST', '/api/v1/namespaces/default/services', { metadata: { name: 'web' }, spec: { ports: [{ port: 80 }] } });
  });
  afterAll(async () => {
    await s.close();
  });

  it.each([
    ['GET', `${PODS}/on-node/log`],
    ['GET', `${PODS}/on-node/log?container=c&follow=true`],
    ['GET', '/api/v1/nodes/node-a/proxy/metrics'],
    ['DELETE', '/api/v1/nodes/node-a/proxy/x'],
  ])('%s %s is 503 naming the node whose agent must answer', async (method, url) => {
    const res = await s.call(method, url);
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ kind: 'Status', reason: 'ServiceUnavailable', code: 503 });
    expect(res.body.message).toContain('node agent');
    expect(res.body.message).toContain('"node-a"');
  });

  it.each([
    ['POST', `${PODS}/on-node/exec?command=ls&stdout=true`],
    ['GET', `${PODS}/on-node/exec?command=ls`],
    ['POST', `${PODS}/on-node/attach`],
    ['POST', `${PODS}/on-node/portforward`],
  ])('%s %s without an upgrade is a 400', async (method, url) => {
    expect((await s.call(method, url)).body).toMatchObject({ code: 400, reason: 'BadRequest', message: 'Upgrade request required' });
  });

  it.each([
    ['GET', `${PODS}/on-node/proxy`],
    ['GET', `${PODS}/on-node:8080/proxy/some/path`],
    ['DELETE', `${PODS}/on-node/proxy/x`],
  ])('%s %s (a pod proxy) is 503: svc does not proxy to pod addresses', async (method, url) => {
    expect((await s.call(method, url)).body).toMatchObject({ code: 503, reason: 'ServiceUnavailable' });
  });

  it('answers 503 for a service proxy', async () => {
    expect((await s.call('GET', '/api/v1/namespaces/default/services/web/proxy/')).body).toMatchObject({ code: 503, reason: 'ServiceUnavailable' });
    expect((await s.call('GET', '/api/v1/namespaces/default/services/http:web:80/proxy/')).body).toMatchObject({ code: 503 });
  });

  it('answers 503 when the node has not reported its agent endpoint', async () => {
    const res = await s.call('GET', `${PODS}/on-silent/log`);
    expect(res.body).toMatchObject({ code: 503, reason: 'ServiceUnavailable' });
    expect(res.body.message).toContain('"node-silent"');
  });

  it('answers 503 when the pod is bound to a node that never registered, 400 when it is not bound, 404 when it does not exist', async () => {
    await s.call('POST', PODS, { metadata: { name: 'ghost-node' }, spec: { nodeName: 'node-z', containers: [{ name: 'c', image: 'nginx' }] } });
    const unregistered = await s.call('GET', `${PODS}/ghost-node/log`);
    expect(unregistered.body).toMatchObject({ code: 503, reason: 'ServiceUnavailable' });
    expect(unregistered.body.message).toContain('"node-z"');
    expect((await s.call('GET', `${PODS}/nowhere/log`)).body).toMatchObject({ code: 400, reason: 'BadRequest', message: 'pod nowhere does not have a host assigned' });
    expect((await s.call('GET', `${PODS}/missing/log`)).body).toMatchObject({ code: 404, reason: 'NotFound' });
    expect((await s.call('GET', '/api/v1/nodes/missing/proxy')).body).toMatchObject({ code: 404 });
    expect((await s.call('DELETE', `${PODS}/on-node/log`)).body).toMatchObject({ code: 405 });
  });
});

describe('discovery of subresources', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('memory');
  });
  afterAll(async () => {
    await s.close();
  });
  type Entry = { name: string; kind: string; verbs: string[]; group?: string; version?: string; namespaced: boolean };
  const resources = async (path: string): Promise<Entry[]> => ok(await s.call('GET', path)).resources;

  it('lists each subresource with its kind and verbs, as Kubernetes does', async () => {
    const core = await resources('/api/v1');
    const byName = new Map(core.map((r) => [r.name, r]));
    expect(byName.get('pods/status')).toMatchObject({ kind: 'Pod', verbs: ['get', 'patch', 'update'], namespaced: true });
    expect(byName.get('pods/binding')).toMatchObject({ kind: 'Binding', verbs: ['create'] });
    expect(byName.get('pods/eviction')).toMatchObject({ group: 'policy', version: 'v1', kind: 'Eviction', verbs: ['create'] });
    expect(byName.get('pods/log')).toMatchObject({ kind: 'Pod', verbs: ['get'] });
    expect(byName.get('pods/exec')).toMatchObject({ kind: 'PodExecOptions', verbs: ['create', 'get'] });
    expect(byName.get('pods/proxy')).toMatchObject({ kind: 'PodProxyOptions', verbs: ['create', 'delete', 'get', 'patch', 'update'] });
    expect(byName.get('nodes/status')).toMatchObject({ kind: 'Node', namespaced: false });
    expect(byName.get('nodes/proxy')).toMatchObject({ kind: 'NodeProxyOptions' });
    expect(byName.get('services/proxy')).toMatchObject({ kind: 'ServiceProxyOptions' });
    expect(byName.get('namespaces/finalize')).toMatchObject({ kind: 'Namespace', verbs: ['update'] });
    expect(byName.get('replicationcontrollers/scale')).toMatchObject({ group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: ['get', 'patch', 'update'] });
    expect(byName.get('bindings')).toMatchObject({ kind: 'Binding', verbs: ['create'], namespaced: true });
    expect(byName.has('configmaps/status')).toBe(false);
    // A subresource entry follows its parent.
    const names = core.map((r) => r.name);
    expect(names.indexOf('pods/status')).toBeGreaterThan(names.indexOf('pods'));

    const apps = new Map((await resources('/apis/apps/v1')).map((r) => [r.name, r]));
    expect(apps.get('deployments/scale')).toMatchObject({ group: 'autoscaling', version: 'v1', kind: 'Scale' });
    expect(apps.get('deployments/status')).toMatchObject({ kind: 'Deployment' });
    expect(apps.has('daemonsets/scale')).toBe(false);
  });
});
