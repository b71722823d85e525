import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type BackendName, type CallResult, type TestServer } from '../harness.js';
import { waitEstablished, widgetCrd } from '../crd/fixtures.js';
import { REQUIRED } from './fixtures.js';

const MERGE = { headers: { 'content-type': 'application/merge-patch+json' } };
const APPLY = { headers: { 'content-type': 'application/apply-patch+yaml' } };
const PODS = '/api/v1/namespaces/default/pods';
const WIDGETS = '/apis/example.com/v1/namespaces/default/widgets';

function ok(res: CallResult, code = 200) {
  expect(res.status, JSON.stringify(res.body)).toBe(code);
  return res.body;
}

const causeFields = (res: CallResult): string[] => (res.body.details?.causes ?? []).map((c: { field: string }) => c.field);

/**
 * Rewrites a stored object behind the API server's back, as an object stored before a rule it
 * now fails would be: the status endpoint must still take its status.
 */
async function storeDirectly(s: TestServer, key: string, change: (object: Record<string, any>) => void): Promise<void> {
  const kv = await s.store.get(key);
  const object = JSON.parse(new TextDecoder().decode(kv!.value)) as Record<string, any>;
  change(object);
  await s.store.update(key, new TextEncoder().encode(JSON.stringify(object)), kv!.modRevision);
}

/** Waits until the server reads the version the store holds (its watch cache follows the store). */
async function readsStored(s: TestServer, url: string, key: string): Promise<Record<string, any>> {
  const revision = String((await s.store.get(key))!.modRevision);
  for (let i = 0; i < 200; i++) {
    const got = ok(await s.call('GET', url));
    if (got.metadata.resourceVersion === revision) return got;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`${url} never read at ${revision}`);
}

describe.each<BackendName>(['memory', 'sqlite'])('a write through /status validates what it may change (%s store)', (backend) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(backend);
    ok(await s.call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', widgetCrd()), 201);
    await waitEstablished(s, 'widgets.example.com');
  });
  afterAll(async () => {
    await s.close();
  });

  it('refuses a pod status that is invalid, with the field path, and changes nothing', async () => {
    const created = ok(await s.call('POST', PODS, { metadata: { name: 'bad-status' }, spec: { containers: [{ name: 'c', image: 'i' }] } }), 201);
    const url = `${PODS}/bad-status`;
    const patched = await s.call('PATCH', `${url}/status`, { status: { phase: 'Running', podIP: 7 } }, MERGE);
    expect(patched.body).toMatchObject({ code: 422, reason: 'Invalid' });
    expect(causeFields(patched)).toEqual(['status.podIP']);
    const put = await s.call('PUT', `${url}/status`, { ...created, status: { phase: 'Sleeping' } });
    expect(put.body).toMatchObject({ code: 422, reason: 'Invalid' });
    expect(causeFields(put)).toEqual(['status.phase']);
    // A built-in's /status writes its labels too: they are checked.
    const labels = await s.call('PATCH', `${url}/status`, { metadata: { labels: { 'not a key!': 'x' } } }, MERGE);
    expect(labels.body).toMatchObject({ code: 422, reason: 'Invalid' });
    expect(causeFields(labels)).toEqual(['metadata.labels']);
    expect(ok(await s.call('GET', url)).metadata.resourceVersion).toBe(created.metadata.resourceVersion);
  });

  it('takes the status of a pod whose stored spec fails today’s rules; the object endpoint still refuses it', async () => {
    ok(await s.call('POST', PODS, { metadata: { name: 'old-spec' }, spec: { containers: [{ name: 'c', image: 'i' }] } }), 201);
    const key = `${s.store.prefix}core/pods/default/old-spec`;
    await storeDirectly(s, key, (pod) => {
      pod.spec.containers[0].ports = [{ containerPort: 0 }];
      pod.spec.legacyField = 'kept from an older schema';
    });
    const url = `${PODS}/old-spec`;
    const stored = await readsStored(s, url, key);

    const patched = ok(await s.call('PATCH', `${url}/status`, { status: { phase: 'Running', podIP: '10.0.0.9' } }, MERGE));
    expect(patched.status).toMatchObject({ phase: 'Running', podIP: '10.0.0.9' });
    // The stored spec, as the server reads it (with the defaults it fills in on the way).
    expect(patched.spec).toMatchObject(stored.spec);
    expect(patched.spec.containers[0].ports[0].containerPort).toBe(0);
    const put = ok(await s.call('PUT', `${url}/status`, { ...patched, status: { ...patched.status, podIP: '10.0.0.10' } }));
    expect(put.status.podIP).toBe('10.0.0.10');
    const applied = ok(await s.call('PATCH', `${url}/status?fieldManager=agent`, JSON.stringify({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'old-spec' }, status: { message: 'up' } }), APPLY));
    expect(applied.status.message).toBe('up');
    // A status patch that also touches the spec: the spec is the stored one's, not checked, not written.
    const withSpec = ok(await s.call('PATCH', `${url}/status`, { spec: { containers: 'nonsense' }, status: { reason: 'r' } }, MERGE));
    expect(withSpec.spec).toEqual(patched.spec);
    expect(withSpec.status.reason).toBe('r');

    // Unknown fields are looked for in what the write may change, not in the stored spec it never sent.
    const strict = ok(await s.call('PATCH', `${url}/status?fieldValidation=Strict`, { status: { message: 'strict' } }, MERGE));
    expect(strict.status.message).toBe('strict');
    const unknown = await s.call('PATCH', `${url}/status?fieldValidation=Strict`, { status: { bogus: 1 } }, MERGE);
    expect(unknown.body).toMatchObject({ code: 400, reason: 'BadRequest' });
    expect(unknown.body.message).toContain('status.bogus');
    expect(unknown.body.message).not.toContain('legacyField');

    // The object endpoint validates everything: the stored spec's fault is named (a 400 with it,
    // since the body also has an unknown field, as write bodies with both are answered).
    const labelled = await s.call('PATCH', url, { metadata: { labels: { a: 'b' } } }, MERGE);
    expect(labelled.body).toMatchObject({ code: 400, reason: 'BadRequest' });
    expect(labelled.body.message).toContain('spec.containers[0].ports[0].containerPort');
    expect(ok(await s.call('GET', url)).metadata.labels).toBeUndefined();
  });

  // Each kind's spec rule a stored object may fail: its template's labels no longer selected.
  const workloads = [
    { kind: 'Deployment', path: '/apis/apps/v1/namespaces/default/deployments', key: 'apps/deployments', count: 'replicas' },
    { kind: 'ReplicaSet', path: '/apis/apps/v1/namespaces/default/replicasets', key: 'apps/replicasets', count: 'replicas' },
    { kind: 'StatefulSet', path: '/apis/apps/v1/namespaces/default/statefulsets', key: 'apps/statefulsets', count: 'replicas' },
    { kind: 'DaemonSet', path: '/apis/apps/v1/namespaces/default/daemonsets', key: 'apps/daemonsets', count: 'numberReady' },
    { kind: 'Job', path: '/apis/batch/v1/namespaces/default/jobs', key: 'batch/jobs', count: 'succeeded' },
  ] as const;

  it.each(workloads)('runs the $kind status rules on a /status write, not the spec rules its stored spec fails; a spec write still runs them', async ({ kind, path, key, count }) => {
    const name = `stale-${kind.toLowerCase()}`;
    const apiVersion = path.startsWith('/apis/batch') ? 'batch/v1' : 'apps/v1';
    ok(await s.call('POST', path, { apiVersion, kind, metadata: { name }, ...REQUIRED[kind] }), 201);
    const storeKey = `${s.store.prefix}${key}/default/${name}`;
    // Stored before today's rule: its template's labels are not what its selector selects.
    await storeDirectly(s, storeKey, (object) => (object.spec.template.metadata.labels = { other: 'labels' }));
    const url = `${path}/${name}`;
    const stored = await readsStored(s, url, storeKey);

    const patched = ok(await s.call('PATCH', `${url}/status`, { status: { [count]: 1 } }, MERGE));
    expect(patched.status[count]).toBe(1);
    expect(patched.spec).toEqual(stored.spec);
    const put = ok(await s.call('PUT', `${url}/status`, { ...patched, status: { ...patched.status, [count]: 2 } }));
    expect(put.status[count]).toBe(2);

    // An invalid status is still refused, naming the field, and nothing is written.
    const bad = await s.call('PATCH', `${url}/status`, { status: { [count]: -1 } }, MERGE);
    expect(bad.body).toMatchObject({ code: 422, reason: 'Invalid' });
    expect(causeFields(bad)).toEqual([`status.${count}`]);
    // The object endpoint runs the spec rules: the stored spec's fault is named.
    const labelled = await s.call('PATCH', url, { metadata: { labels: { a: 'b' } } }, MERGE);
    expect(labelled.body).toMatchObject({ code: 422, reason: 'Invalid' });
    expect(causeFields(labelled)).toContain('spec.template.metadata.labels');
    const got = ok(await s.call('GET', url));
    expect(got.metadata.resourceVersion).toBe(put.metadata.resourceVersion);
    expect(got.status[count]).toBe(2);
  });

  it('runs a ResourceQuota’s status rule on a /status write and refuses a negative amount, writing nothing', async () => {
    const url = '/api/v1/namespaces/default/resourcequotas/quota';
    ok(await s.call('POST', '/api/v1/namespaces/default/resourcequotas', { metadata: { name: 'quota' }, ...REQUIRED['ResourceQuota'] }), 201);
    const written = ok(await s.call('PATCH', `${url}/status`, { status: { hard: { pods: '10' }, used: { pods: '1' } } }, MERGE));
    const bad = await s.call('PATCH', `${url}/status`, { status: { used: { pods: '-1' } } }, MERGE);
    expect(bad.body).toMatchObject({ code: 422, reason: 'Invalid' });
    expect(causeFields(bad)).toEqual(['status.used[pods]']);
    const got = ok(await s.call('GET', url));
    expect(got.metadata.resourceVersion).toBe(written.metadata.resourceVersion);
    expect(got.status.used).toEqual({ pods: '1' });
    // A spec the quota rules refuse stays refused through the object endpoint.
    const spec = await s.call('PATCH', url, { spec: { hard: { 'not-a-quota-name': '1' } } }, MERGE);
    expect(spec.body).toMatchObject({ code: 422, reason: 'Invalid' });
    expect(causeFields(spec)).toEqual(['spec.hard[not-a-quota-name]']);
  });

  it('checks a custom resource’s status against its schema’s status part, not its stored spec', async () => {
    ok(await s.call('POST', WIDGETS, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name: 'w' }, spec: { size: 'small' } }), 201);
    const url = `${WIDGETS}/w`;
    const bad = await s.call('PATCH', `${url}/status`, { status: { replicas: 'two' } }, MERGE);
    expect(bad.body).toMatchObject({ code: 422, reason: 'Invalid' });
    expect(causeFields(bad)).toEqual(['status.replicas']);

    const key = `${s.store.prefix}example.com/widgets/default/w`;
    await storeDirectly(s, key, (widget) => (widget.spec.size = 'medium'));
    const stored = await readsStored(s, url, key);
    const patched = ok(await s.call('PATCH', `${url}/status`, { status: { replicas: 2 } }, MERGE));
    expect(patched.status).toEqual({ replicas: 2 });
    expect(patched.spec).toEqual(stored.spec);
    const refused = await s.call('PATCH', url, { spec: { color: 'red' } }, MERGE);
    expect(refused.body).toMatchObject({ code: 422, reason: 'Invalid' });
    expect(causeFields(refused)).toEqual(['spec.size']);
  });
});
