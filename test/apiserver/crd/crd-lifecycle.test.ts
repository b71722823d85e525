import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';
import { eventually, waitEstablished, widgetCrd } from './fixtures.js';

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const WIDGETS = '/apis/example.com/v1/namespaces/default/widgets';
const widget = (name: string, spec: object = { size: 'small' }) => ({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name }, spec });

describe('a namespaced custom resource, from CRD to deletion', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer('memory');
  });
  afterEach(async () => server.close());

  it('is served after its CRD is created, and goes with its objects when the CRD is deleted', async () => {
    expect((await server.call('GET', WIDGETS)).status).toBe(404);
    const created = await server.call('POST', CRDS, widgetCrd());
    expect(created.status).toBe(201);
    expect(created.body.metadata.finalizers).toContain('customresourcecleanup.apiextensions.svc.io');
    const crd = await waitEstablished(server, 'widgets.example.com');
    expect(crd.status.conditions.find((c: any) => c.type === 'NamesAccepted').status).toBe('True');
    expect(crd.status.acceptedNames).toMatchObject({ plural: 'widgets', kind: 'Widget', listKind: 'WidgetList', singular: 'widget' });
    expect(crd.status.storedVersions).toEqual(['v1']);

    // discovery
    const groups = await server.call('GET', '/apis');
    const group = groups.body.groups.find((g: any) => g.name === 'example.com');
    expect(group.preferredVersion.version).toBe('v1');
    expect(group.versions.map((v: any) => v.version)).toEqual(['v1', 'v1beta1']);
    const resources = await server.call('GET', '/apis/example.com/v1');
    // The type, and the status and scale subresources its CRD declares.
    expect(resources.body.resources).toEqual([
      expect.objectContaining({ name: 'widgets', kind: 'Widget', namespaced: true, shortNames: ['wix'] }),
      expect.objectContaining({ name: 'widgets/scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: ['get', 'patch', 'update'] }),
      expect.objectContaining({ name: 'widgets/status', kind: 'Widget', verbs: ['get', 'patch', 'update'] }),
    ]);
    expect((await server.call('GET', '/openapi/v3')).body.paths['apis/example.com/v1']).toBeDefined();

    // CRUD with defaults
    const a = await server.call('POST', WIDGETS, widget('a'));
    expect(a.status).toBe(201);
    expect(a.body.spec).toEqual({ size: 'small', replicas: 1, color: 'blue' });
    expect((await server.call('GET', `${WIDGETS}/a`)).body.spec.replicas).toBe(1);
    const put = await server.call('PUT', `${WIDGETS}/a`, { ...a.body, spec: { ...a.body.spec, replicas: 3 } });
    expect(put.status).toBe(200);
    expect(put.body.metadata.generation).toBe(2);
    for (const name of ['b', 'c']) expect((await server.call('POST', WIDGETS, widget(name))).status).toBe(201);

    // paging
    const page = await server.call('GET', `${WIDGETS}?limit=2`);
    expect(page.body.kind).toBe('WidgetList');
    expect(page.body.items).toHaveLength(2);
    const rest = await server.call('GET', `${WIDGETS}?limit=2&continue=${encodeURIComponent(page.body.metadata.continue)}`);
    expect(rest.body.items.map((i: any) => i.metadata.name)).toEqual(['c']);

    // the other version answers in its own apiVersion, the stored one is the storage version
    const beta = await server.call('GET', '/apis/example.com/v1beta1/namespaces/default/widgets/a');
    expect(beta.body.apiVersion).toBe('example.com/v1beta1');
    const betaList = await server.call('GET', '/apis/example.com/v1beta1/namespaces/default/widgets');
    expect(betaList.body.items.every((i: any) => i.apiVersion === 'example.com/v1beta1')).toBe(true);
    const viaBeta = await server.call('POST', '/apis/example.com/v1beta1/namespaces/default/widgets', { apiVersion: 'example.com/v1beta1', kind: 'Widget', metadata: { name: 'd' }, spec: { size: 'large', anything: 1 } });
    expect(viaBeta.status).toBe(201);
    expect(viaBeta.body.apiVersion).toBe('example.com/v1beta1');
    expect((await server.call('GET', `${WIDGETS}/d`)).body.apiVersion).toBe('example.com/v1');
    const stored = await server.store.get(`${server.store.prefix}example.com/widgets/default/d`);
    expect(JSON.parse(Buffer.from(stored!.value).toString()).apiVersion).toBe('example.com/v1');

    // delete the CRD: objects go, then the CRD, then the type
    const deleted = await server.call('DELETE', `${CRDS}/widgets.example.com`);
    expect(deleted.status).toBe(200);
    await eventually(async () => (await server.call('GET', `${CRDS}/widgets.example.com`)).status === 404, 'the CRD is removed');
    expect((await server.call('GET', WIDGETS)).status).toBe(404);
    expect((await server.call('GET', '/apis/example.com/v1')).status).toBe(404);
    expect((await server.store.list(`${server.store.prefix}example.com/widgets/`)).items).toHaveLength(0);

    // and the names are free again
    expect((await server.call('POST', CRDS, widgetCrd())).status).toBe(201);
    await waitEstablished(server, 'widgets.example.com');
    expect((await server.call('GET', WIDGETS)).body.items).toEqual([]);
  });
});
