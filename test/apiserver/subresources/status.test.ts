import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinRegistry, withDefaults, type ResourceType } from '../../../src/api/index.js';
import { startTestServer, type CallResult, type TestServer } from '../harness.js';
import { apiVersionOf, collectionOf, NAMES, objectOf, STATUSES } from './fixtures.js';

const MERGE = { headers: { 'content-type': 'application/merge-patch+json' } };
const JSON_PATCH = { headers: { 'content-type': 'application/json-patch+json' } };
const STRATEGIC = { headers: { 'content-type': 'application/strategic-merge-patch+json' } };
const APPLY = { headers: { 'content-type': 'application/apply-patch+yaml' } };

// Each kind in its preferred version: a converted one (autoscaling/v1 HPAs) stores the same
// objects, and test/apiserver/autoscaling-v1.test.ts writes its status through v1.
const withStatus = builtinRegistry()
  .all()
  .filter((t) => t.subresources.includes('status') && !t.conversion);

function ok(res: CallResult, code = 200) {
  expect(res.status, JSON.stringify(res.body)).toBe(code);
  return res.body;
}

/** What a create keeps of the status it was sent, per Kubernetes' strategies. */
function statusAfterCreate(type: ResourceType, sent: Record<string, unknown>): unknown {
  // What the create keeps of it (a Node's own; a Namespace's and a Pod's first), then the status
  // fields the kind always answers (its defaults: test/apiserver/defaults-served.test.ts pins them).
  const kept = type.kind === 'Node' ? sent : type.kind === 'Namespace' ? { phase: 'Active' } : type.kind === 'Pod' ? { phase: 'Pending', qosClass: 'BestEffort' } : undefined;
  return (withDefaults(type, { metadata: {}, ...(kept ? { status: kept } : {}) }) as { status?: unknown }).status;
}

/** A status as stored: with the fields its kind always answers. */
const withStatusDefaults = (type: ResourceType, status: Record<string, unknown>): unknown =>
  (withDefaults(type, { metadata: {}, status }) as { status?: unknown }).status;

type Entry = { manager: string; operation: string; subresource?: string; fieldsV1?: Record<string, unknown> };
const entries = (object: { metadata: { managedFields?: Entry[] } }) => object.metadata.managedFields ?? [];

describe('the status subresource of every built-in kind that has one', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('memory');
  });
  afterAll(async () => {
    await s.close();
  });

  it('lists every kind Kubernetes gives a status subresource', () => {
    expect(withStatus.map((t) => t.resource).sort()).toEqual(
      [
        'apiservices', 'certificatesigningrequests', 'cronjobs', 'daemonsets', 'deployments', 'horizontalpodautoscalers', 'jobs', 'namespaces', 'nodes',
        'persistentvolumeclaims', 'persistentvolumes', 'poddisruptionbudgets', 'pods', 'replicasets', 'replicationcontrollers',
        'resourcequotas', 'services', 'statefulsets', 'validatingadmissionpolicies',
      ].sort(),
    );
  });

  it.each(withStatus.map((t) => [`${t.kind}${t.group ? `.${t.group}` : ''}`, t] as const))('%s', async (_name, type) => {
    const name = NAMES[type.kind] ?? `st-${type.resource}`;
    const url = `${collectionOf(type)}/${name}`;
    const [first, second] = STATUSES[type.kind]!;

    // create: status is the controllers' to write
    const created = ok(await s.call('POST', collectionOf(type), objectOf(type, name, { status: first })), 201);
    expect(created.status).toEqual(statusAfterCreate(type, first));
    const generation = created.metadata.generation;

    // PUT /status writes the status (and labels), never the spec. A ResourceQuota's usage is
    // filled in by admission's quota sync as it appears, so its first write may meet a newer version.
    const putStatus = async () => {
      const current = ok(await s.call('GET', url));
      return s.call('PUT', `${url}/status`, { ...current, metadata: { ...current.metadata, labels: { via: 'status' } }, spec: {}, status: first });
    };
    let attempt = await putStatus();
    for (let tries = 0; attempt.status === 409 && tries < 5; tries++) attempt = await putStatus();
    const put = ok(attempt);
    expect(put.status).toMatchObject(first);
    expect(put.spec).toEqual(created.spec);
    expect(put.metadata.labels).toEqual({ via: 'status' });
    expect(put.metadata.generation).toBe(generation);
    expect(entries(put).some((e) => e.subresource === 'status' && e.operation === 'Update')).toBe(true);
    expect(ok(await s.call('GET', `${url}/status`))).toEqual(ok(await s.call('GET', url)));

    // writes to the object keep the stored status, whatever they say of it
    const stored = put.status;
    const read = ok(await s.call('GET', url));
    const mainPut = ok(await s.call('PUT', url, { ...read, metadata: { ...read.metadata, labels: { via: 'main' } }, status: second }));
    expect(mainPut.status).toEqual(stored);
    expect(mainPut.metadata.labels).toEqual({ via: 'main' });
    expect(ok(await s.call('PATCH', url, { status: second, metadata: { labels: { merge: '1' } } }, MERGE)).status).toEqual(stored);
    expect(ok(await s.call('PATCH', url, [{ op: 'add', path: '/status', value: second }], JSON_PATCH)).status).toEqual(stored);
    expect(ok(await s.call('PATCH', url, { status: second }, STRATEGIC)).status).toEqual(stored);
    const config = JSON.stringify({ apiVersion: apiVersionOf(type), kind: type.kind, metadata: { name, labels: { applied: 'yes' } }, status: second });
    const applied = ok(await s.call('PATCH', `${url}?fieldManager=main-applier`, config, APPLY));
    expect(applied.status).toEqual(stored);
    expect(applied.metadata.labels).toMatchObject({ applied: 'yes' });
    const mainApplier = entries(applied).find((e) => e.manager === 'main-applier')!;
    expect(mainApplier.subresource).toBeUndefined();
    expect(mainApplier.fieldsV1).not.toHaveProperty('f:status');

    // every patch type through /status changes the status only
    const merged = ok(await s.call('PATCH', `${url}/status`, { status: second, spec: { bogus: true } }, MERGE));
    expect(merged.status).toMatchObject(second);
    expect(merged.spec).toEqual(created.spec);
    expect(ok(await s.call('PATCH', `${url}/status`, [{ op: 'replace', path: '/status', value: first }], JSON_PATCH)).status).toEqual(withStatusDefaults(type, first));
    expect(ok(await s.call('PATCH', `${url}/status`, { status: second }, STRATEGIC)).status).toMatchObject(second);
    const statusConfig = JSON.stringify({ apiVersion: apiVersionOf(type), kind: type.kind, metadata: { name }, status: first });
    const statusApplied = ok(await s.call('PATCH', `${url}/status?fieldManager=status-applier&force=true`, statusConfig, APPLY));
    expect(statusApplied.status).toMatchObject(first);
    expect(statusApplied.spec).toEqual(created.spec);
    const statusApplier = entries(statusApplied).find((e) => e.manager === 'status-applier')!;
    expect(statusApplier).toMatchObject({ operation: 'Apply', subresource: 'status' });
    expect(Object.keys(statusApplier.fieldsV1 ?? {})).toEqual(['f:status']);
    expect(statusApplied.metadata.generation).toBe(generation);
  });
});

describe('status writes', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('memory');
  });
  afterAll(async () => {
    await s.close();
  });
  const DEPLOY = '/apis/apps/v1/namespaces/default/deployments';
  const deployments = builtinRegistry().lookup('apps', 'v1', 'deployments')!;

  it('move the generation only when the spec changes', async () => {
    const created = ok(await s.call('POST', DEPLOY, objectOf(deployments, 'gen')), 201);
    expect(created.metadata.generation).toBe(1);
    const status = ok(await s.call('PATCH', `${DEPLOY}/gen/status`, { status: { replicas: 1, observedGeneration: 1 } }, MERGE));
    expect(status.metadata.generation).toBe(1);
    const labelled = ok(await s.call('PATCH', `${DEPLOY}/gen`, { metadata: { labels: { a: 'b' } } }, MERGE));
    expect(labelled.metadata.generation).toBe(1);
    const scaled = ok(await s.call('PATCH', `${DEPLOY}/gen`, { spec: { replicas: 4 } }, MERGE));
    expect(scaled.metadata.generation).toBe(2);
    expect(scaled.status).toEqual({ replicas: 1, observedGeneration: 1 });
  });

  it('are conditional on a resourceVersion that is sent, and unconditional without one', async () => {
    const created = ok(await s.call('POST', DEPLOY, objectOf(deployments, 'cond')), 201);
    const stale = await s.call('PUT', `${DEPLOY}/cond/status`, { ...created, metadata: { ...created.metadata, resourceVersion: '1' }, status: { replicas: 5 } });
    expect(stale.status).toBe(409);
    expect(stale.body.reason).toBe('Conflict');
    const { resourceVersion: _rv, ...meta } = created.metadata;
    expect(ok(await s.call('PUT', `${DEPLOY}/cond/status`, { ...created, metadata: meta, status: { replicas: 5 } })).status).toEqual({ replicas: 5 });
  });

  it('never create an object, answer 404 for a missing one', async () => {
    const body = objectOf(deployments, 'ghost', { status: { replicas: 1 } });
    expect((await s.call('PUT', `${DEPLOY}/ghost/status`, body)).body).toMatchObject({ code: 404, reason: 'NotFound' });
    expect((await s.call('PATCH', `${DEPLOY}/ghost/status`, { status: { replicas: 1 } }, MERGE)).status).toBe(404);
    expect((await s.call('PATCH', `${DEPLOY}/ghost/status?fieldManager=x`, JSON.stringify(body), APPLY)).status).toBe(404);
    expect((await s.call('GET', `${DEPLOY}/ghost`)).status).toBe(404);
  });

  it('reject bad bodies and change nothing', async () => {
    const created = ok(await s.call('POST', DEPLOY, objectOf(deployments, 'bad')), 201);
    const invalid = await s.call('PUT', `${DEPLOY}/bad/status`, { ...created, status: { replicas: -1 } });
    expect(invalid.body).toMatchObject({ code: 422, reason: 'Invalid' });
    expect((await s.call('PUT', `${DEPLOY}/bad/status`, '{"status":')).body).toMatchObject({ code: 400, reason: 'BadRequest' });
    expect((await s.call('PUT', `${DEPLOY}/bad/status`, { ...created, kind: 'Pod' })).body).toMatchObject({ code: 400 });
    expect((await s.call('PUT', `${DEPLOY}/bad/status`, { ...created, metadata: { ...created.metadata, name: 'other' } })).body).toMatchObject({ code: 400 });
    expect((await s.call('DELETE', `${DEPLOY}/bad/status`)).body).toMatchObject({ code: 405, reason: 'MethodNotAllowed' });
    expect((await s.call('POST', `${DEPLOY}/bad/status`, created)).body).toMatchObject({ code: 405 });
    expect(ok(await s.call('GET', `${DEPLOY}/bad`)).metadata.resourceVersion).toBe(created.metadata.resourceVersion);
  });

  it('404 a subresource the type does not have', async () => {
    await s.call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'c' }, data: {} });
    expect((await s.call('GET', '/api/v1/namespaces/default/configmaps/c/status')).status).toBe(404);
    expect((await s.call('GET', `${DEPLOY}/bad/nonsense`)).status).toBe(404);
  });

  it('keep the object endpoint from changing a namespace finalizers, which /finalize writes', async () => {
    ok(await s.call('POST', '/api/v1/namespaces', { metadata: { name: 'fin' } }), 201);
    const read = ok(await s.call('GET', '/api/v1/namespaces/fin'));
    expect(read.spec.finalizers).toEqual(['kubernetes']);
    expect(ok(await s.call('PUT', '/api/v1/namespaces/fin', { ...read, spec: { finalizers: [] } })).spec.finalizers).toEqual(['kubernetes']);
    const { resourceVersion: _rv, ...meta } = read.metadata;
    const finalized = ok(await s.call('PUT', '/api/v1/namespaces/fin/finalize', { ...read, metadata: meta, spec: { finalizers: [] }, status: { phase: 'Terminating' } }));
    expect(finalized.spec.finalizers).toEqual([]);
    expect(finalized.status).toEqual({ phase: 'Active' });
  });

  it('records a pod QoS class on create', async () => {
    const pods = '/api/v1/namespaces/default/pods';
    const pod = (name: string, resources: unknown) => ({ metadata: { name }, spec: { containers: [{ name: 'c', image: 'i', resources }] } });
    expect(ok(await s.call('POST', pods, pod('qos-g', { limits: { cpu: '1', memory: '1Gi' } })), 201).status).toEqual({ phase: 'Pending', qosClass: 'Guaranteed' });
    expect(ok(await s.call('POST', pods, pod('qos-b', { requests: { cpu: '500m' } })), 201).status.qosClass).toBe('Burstable');
    const equal = { requests: { cpu: '1000m', memory: '1024Mi' }, limits: { cpu: '1', memory: '1Gi' } };
    expect(ok(await s.call('POST', pods, pod('qos-eq', equal)), 201).status.qosClass).toBe('Guaranteed');
  });
});
