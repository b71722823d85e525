import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { builtinRegistry, builtinTypes, defineResourceType, kindSchema, ResourceRegistry, type ResourceType } from '../../../src/api/index.js';
import { startTestServer, type CallResult, type TestServer } from '../harness.js';
import { collectionOf, objectOf } from './fixtures.js';

const MERGE = { headers: { 'content-type': 'application/merge-patch+json' } };
const JSON_PATCH = { headers: { 'content-type': 'application/json-patch+json' } };
const STRATEGIC = { headers: { 'content-type': 'application/strategic-merge-patch+json' } };
const APPLY = { headers: { 'content-type': 'application/apply-patch+yaml' } };

function ok(res: CallResult, code = 200) {
  expect(res.status, JSON.stringify(res.body)).toBe(code);
  return res.body;
}

const scalable = builtinRegistry()
  .all()
  .filter((t) => t.subresources.includes('scale'));

/** A custom type that declares its scale paths, as a CustomResourceDefinition does. */
const widgets = defineResourceType({
  group: 'example.com',
  version: 'v1',
  kind: 'Widget',
  resource: 'widgets',
  namespaced: true,
  schema: kindSchema({ spec: z.looseObject({}).optional(), status: z.looseObject({}).optional() }),
  subresources: ['scale', 'status'],
  scale: { specReplicasPath: '.spec.size', statusReplicasPath: '.status.size', labelSelectorPath: '.status.selector' },
});

describe('the scale subresource', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('memory');
  });
  afterAll(async () => {
    await s.close();
  });

  it('is served on Deployment, ReplicaSet, StatefulSet and ReplicationController', () => {
    expect(scalable.map((t) => t.kind).sort()).toEqual(['Deployment', 'ReplicaSet', 'ReplicationController', 'StatefulSet']);
  });

  it.each(scalable.map((t) => [t.kind, t] as const))('%s: get, update and every patch type change spec.replicas only', async (_kind, type: ResourceType) => {
    const name = `sc-${type.resource}`;
    const url = `${collectionOf(type)}/${name}`;
    const created = ok(await s.call('POST', collectionOf(type), objectOf(type, name)), 201);
    ok(await s.call('PATCH', `${url}/status`, { status: { replicas: 1 } }, MERGE));

    const scale = ok(await s.call('GET', `${url}/scale`));
    expect(scale).toMatchObject({
      kind: 'Scale',
      apiVersion: 'autoscaling/v1',
      metadata: { name, namespace: 'default', uid: created.metadata.uid },
      spec: { replicas: 1 },
      status: { replicas: 1, selector: 'app=x' },
    });

    const updated = ok(await s.call('PUT', `${url}/scale`, { ...scale, spec: { replicas: 3 } }));
    expect(updated.spec.replicas).toBe(3);
    expect(updated.metadata.resourceVersion).not.toBe(scale.metadata.resourceVersion);
    const object = ok(await s.call('GET', url));
    expect(object.spec.replicas).toBe(3);
    expect(object.metadata.generation).toBe(2);
    // The written status, with the counters its kind always answers (a StatefulSet's availableReplicas).
    expect(object.status).toEqual(type.kind === 'StatefulSet' ? { replicas: 1, availableReplicas: 0 } : { replicas: 1 });
    expect(object.metadata.managedFields.some((e: { subresource?: string }) => e.subresource === 'scale')).toBe(true);

    expect(ok(await s.call('PATCH', `${url}/scale`, { spec: { replicas: 4 } }, MERGE)).spec.replicas).toBe(4);
    expect(ok(await s.call('PATCH', `${url}/scale`, [{ op: 'replace', path: '/spec/replicas', value: 5 }], JSON_PATCH)).spec.replicas).toBe(5);
    expect(ok(await s.call('PATCH', `${url}/scale`, { spec: { replicas: 6 } }, STRATEGIC)).spec.replicas).toBe(6);
    const config = JSON.stringify({ apiVersion: 'autoscaling/v1', kind: 'Scale', metadata: { name }, spec: { replicas: 7 } });
    expect(ok(await s.call('PATCH', `${url}/scale?fieldManager=scaler`, config, APPLY)).spec.replicas).toBe(7);
    expect(ok(await s.call('GET', url)).spec.replicas).toBe(7);
  });

  it('is conditional on the resourceVersion a write names', async () => {
    const deployments = builtinRegistry().lookup('apps', 'v1', 'deployments')!;
    const url = `${collectionOf(deployments)}/cond`;
    ok(await s.call('POST', collectionOf(deployments), objectOf(deployments, 'cond')), 201);
    const scale = ok(await s.call('GET', `${url}/scale`));
    ok(await s.call('PATCH', url, { metadata: { labels: { moved: 'on' } } }, MERGE));
    expect((await s.call('PUT', `${url}/scale`, { ...scale, spec: { replicas: 2 } })).body).toMatchObject({ code: 409, reason: 'Conflict' });
    const stalePatch = await s.call('PATCH', `${url}/scale`, { metadata: { resourceVersion: scale.metadata.resourceVersion }, spec: { replicas: 2 } }, MERGE);
    expect(stalePatch.body).toMatchObject({ code: 409, reason: 'Conflict' });
    expect(ok(await s.call('GET', url)).spec.replicas).toBe(1);
  });

  it('answers 404, 422, 400 and 405 for what it cannot do, changing nothing', async () => {
    const deployments = builtinRegistry().lookup('apps', 'v1', 'deployments')!;
    const url = `${collectionOf(deployments)}/bad-scale`;
    expect((await s.call('GET', `${collectionOf(deployments)}/none/scale`)).body).toMatchObject({ code: 404, reason: 'NotFound', message: 'deployments.apps "none" not found' });
    ok(await s.call('POST', collectionOf(deployments), objectOf(deployments, 'bad-scale')), 201);
    const before = ok(await s.call('GET', url)).metadata.resourceVersion;
    expect((await s.call('PUT', `${url}/scale`, { spec: { replicas: -1 } })).body).toMatchObject({ code: 422, reason: 'Invalid', details: { causes: [{ field: 'spec.replicas' }] } });
    expect((await s.call('PUT', `${url}/scale`, { spec: { replicas: 'three' } })).body).toMatchObject({ code: 422 });
    expect((await s.call('PUT', `${url}/scale`, { spec: {} })).body).toMatchObject({ code: 422, details: { causes: [{ reason: 'FieldValueRequired' }] } });
    expect((await s.call('PUT', `${url}/scale`, { kind: 'Deployment', spec: { replicas: 1 } })).body).toMatchObject({ code: 400 });
    expect((await s.call('PUT', `${url}/scale`, { metadata: { name: 'other' }, spec: { replicas: 1 } })).body).toMatchObject({ code: 400 });
    expect((await s.call('PUT', `${url}/scale`, '[1,')).body).toMatchObject({ code: 400 });
    expect((await s.call('PATCH', `${url}/scale`, { spec: { replicas: -2 } }, MERGE)).body).toMatchObject({ code: 422 });
    expect((await s.call('PATCH', `${url}/scale`, [{ op: 'replace', path: '/spec/nothing/here', value: 1 }], JSON_PATCH)).body).toMatchObject({ code: 422 });
    expect((await s.call('DELETE', `${url}/scale`)).body).toMatchObject({ code: 405 });
    expect((await s.call('GET', '/apis/apps/v1/namespaces/default/daemonsets/x/scale')).status).toBe(404);
    expect(ok(await s.call('GET', url)).metadata.resourceVersion).toBe(before);
  });

  it('dry run answers the Scale and changes nothing', async () => {
    const deployments = builtinRegistry().lookup('apps', 'v1', 'deployments')!;
    const url = `${collectionOf(deployments)}/dry-scale`;
    ok(await s.call('POST', collectionOf(deployments), objectOf(deployments, 'dry-scale')), 201);
    expect(ok(await s.call('PATCH', `${url}/scale?dryRun=All`, { spec: { replicas: 9 } }, MERGE)).spec.replicas).toBe(9);
    expect(ok(await s.call('GET', url)).spec.replicas).toBe(1);
  });
});

describe('scale and status on a custom type that declares them', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('memory', { registry: new ResourceRegistry([...builtinTypes, widgets]) });
  });
  afterAll(async () => {
    await s.close();
  });
  const URL = '/apis/example.com/v1/namespaces/default/widgets';

  it('reads and writes the declared paths', async () => {
    const created = ok(await s.call('POST', URL, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 2 }, status: { size: 9 } }), 201);
    expect(created.status).toBeUndefined();
    ok(await s.call('PUT', `${URL}/w/status`, { ...created, metadata: { ...created.metadata, labels: { ignored: 'yes' } }, status: { size: 2, selector: 'app=w' } }));
    const got = ok(await s.call('GET', `${URL}/w`));
    expect(got.metadata.labels).toBeUndefined();
    expect(ok(await s.call('GET', `${URL}/w/scale`))).toMatchObject({ spec: { replicas: 2 }, status: { replicas: 2, selector: 'app=w' } });
    ok(await s.call('PATCH', `${URL}/w/scale`, { spec: { replicas: 5 } }, MERGE));
    expect(ok(await s.call('GET', `${URL}/w`)).spec).toEqual({ size: 5 });
  });
});
