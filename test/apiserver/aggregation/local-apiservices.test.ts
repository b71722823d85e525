import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { builtinTypes, ResourceRegistry } from '../../../src/api/index.js';
import { startTestServer, type TestServer } from '../harness.js';
import { eventually, waitEstablished, widgetCrd } from '../crd/fixtures.js';

const APISERVICES = '/apis/apiregistration.k8s.io/v1/apiservices';
const available = (apiService: any) => apiService.status?.conditions?.find((c: any) => c.type === 'Available');

describe('local APIServices', () => {
  let server: TestServer;
  beforeEach(async () => {
    server = await startTestServer('memory');
  });
  afterEach(async () => server.close());

  it('lists one per served group-version, under both group names, Local and Available', async () => {
    const list = await server.call('GET', APISERVICES);
    expect(list.status).toBe(200);
    expect(list.body.kind).toBe('APIServiceList');
    expect(list.body.apiVersion).toBe('apiregistration.k8s.io/v1');
    const byName = new Map<string, any>(list.body.items.map((item: any) => [item.metadata.name, item]));
    for (const name of ['v1.', 'v1.apps', 'v2.autoscaling', 'v1.rbac.authorization.svc.io', 'v1.rbac.authorization.k8s.io', 'v1.apiregistration.k8s.io', 'v1.apiextensions.k8s.io']) {
      const item = byName.get(name);
      expect(item, name).toBeDefined();
      expect(item.spec.service).toBeUndefined();
      expect(available(item)).toMatchObject({ status: 'True', reason: 'Local' });
    }
    expect(byName.get('v1.')!.spec).toMatchObject({ group: '', version: 'v1', groupPriorityMinimum: 18000 });
    expect(byName.get('v1.apps')!.spec).toMatchObject({ group: 'apps', version: 'v1', groupPriorityMinimum: 17800, versionPriority: 15 });
  });

  it('follows CustomResourceDefinitions: their group-versions come and go', async () => {
    expect((await server.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', widgetCrd())).status).toBe(201);
    await waitEstablished(server, 'widgets.example.com');
    await eventually(async () => (await server.call('GET', `${APISERVICES}/v1.example.com`)).status === 200, 'v1.example.com is registered');
    const crdService = (await server.call('GET', `${APISERVICES}/v1beta1.example.com`)).body;
    expect(crdService.spec).toMatchObject({ group: 'example.com', version: 'v1beta1', groupPriorityMinimum: 1000, versionPriority: 100 });
    expect(crdService.metadata.labels).toEqual({ 'kube-aggregator.kubernetes.io/automanaged': 'true' });
    expect(available(crdService)).toMatchObject({ status: 'True', reason: 'Local' });

    expect((await server.call('DELETE', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.example.com')).status).toBe(200);
    await eventually(async () => (await server.call('GET', `${APISERVICES}/v1.example.com`)).status === 404, 'v1.example.com is removed');
    expect((await server.call('GET', `${APISERVICES}/v1.apps`)).status).toBe(200);
  });

  it('refuses an APIService whose name, priorities or TLS settings are wrong, storing nothing', async () => {
    const bad = await server.call('POST', APISERVICES, {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1.wrong.example.com' },
      spec: {
        group: 'widgets.example.com',
        version: 'v1',
        service: { namespace: 'default', name: 'widgets' },
        caBundle: Buffer.from('pem').toString('base64'),
        insecureSkipTLSVerify: true,
        groupPriorityMinimum: 0,
      },
    });
    expect(bad.status).toBe(422);
    expect(bad.body).toMatchObject({ kind: 'Status', reason: 'Invalid', code: 422 });
    expect(bad.body.details.causes.map((c: any) => c.field).sort()).toEqual([
      'metadata.name',
      'spec.groupPriorityMinimum',
      'spec.insecureSkipTLSVerify',
      'spec.versionPriority',
    ]);
    expect((await server.call('GET', `${APISERVICES}/v1.wrong.example.com`)).status).toBe(404);
  });

  it('marks an APIService a client creates without a Service Local and Available', async () => {
    const created = await server.call('POST', APISERVICES, {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1.local.example.com' },
      spec: { group: 'local.example.com', version: 'v1', groupPriorityMinimum: 100, versionPriority: 10 },
    });
    expect(created.status).toBe(201);
    await eventually(async () => available((await server.call('GET', `${APISERVICES}/v1.local.example.com`)).body)?.reason === 'Local', 'the condition is written');
    expect(available((await server.call('GET', `${APISERVICES}/v1.local.example.com`)).body)).toMatchObject({ status: 'True', reason: 'Local' });
  });

  it('keeps a remote APIService for a group-version the server serves itself from taking it over', async () => {
    const created = await server.call('POST', APISERVICES, {
      apiVersion: 'apiregistration.k8s.io/v1',
      kind: 'APIService',
      metadata: { name: 'v1.batch' },
      spec: { group: 'batch', version: 'v1', service: { namespace: 'default', name: 'x' }, insecureSkipTLSVerify: true, groupPriorityMinimum: 100, versionPriority: 10 },
    });
    // The name is taken by the local one.
    expect(created.status).toBe(409);
    expect((await server.call('GET', '/apis/batch/v1/jobs')).status).toBe(200);
  });
});

describe('a server built with a registry of its own', () => {
  it('serves APIServices all the same, one per group-version it serves', async () => {
    const server = await startTestServer('memory', { registry: new ResourceRegistry(builtinTypes.filter((t) => t.group === '' || t.group === 'apps')) });
    try {
      const list = await server.call('GET', APISERVICES);
      expect(list.status).toBe(200);
      expect(list.body.items.map((item: any) => item.metadata.name).sort()).toEqual([
        'v1.',
        'v1.apiextensions.k8s.io',
        'v1.apiextensions.svc.io',
        'v1.apiregistration.k8s.io',
        'v1.apiregistration.svc.io',
        'v1.apps',
      ]);
    } finally {
      await server.close();
    }
  });
});
