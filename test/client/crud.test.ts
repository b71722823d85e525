import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { isStatusError, StatusError, type ConfigMap, type KubeObject } from '../../src/api/index.js';
import { builtin, isSuccessStatus, resource, type Client } from '../../src/client/index.js';
import { recordOf } from '../../src/client/lazy/cached-record.js';
import { LazyRecord } from '../../src/client/lazy/json-view.js';
import { ProtoRecord } from '../../src/client/lazy/proto-view.js';
import { cm, startClientTestServer, type ClientTestServer } from './support.js';

let t: ClientTestServer;
let client: Client;
beforeAll(async () => {
  t = await startClientTestServer();
  client = t.client;
});
afterAll(() => t.close());

describe('Client CRUD', () => {
  it('creates, gets, updates and deletes a typed built-in object', async () => {
    const created = await client.create(builtin.configMaps, cm('a', { k: '1' }));
    expectTypeOf(created).toEqualTypeOf<ConfigMap>();
    expect(created.metadata).toMatchObject({ name: 'a', namespace: 'default' });
    expect(created.metadata.uid).toBeTypeOf('string');

    const got = await client.get(builtin.configMaps, 'a');
    expect(got.data).toEqual({ k: '1' });

    const updated = await client.update(builtin.configMaps, { ...got, data: { k: '2' } });
    expect(updated.data).toEqual({ k: '2' });
    expect(Number(updated.metadata.resourceVersion)).toBeGreaterThan(Number(got.metadata.resourceVersion));

    const deleted = await client.delete(builtin.configMaps, 'a');
    expect(isSuccessStatus(deleted)).toBe(true);
    await expect(client.get(builtin.configMaps, 'a')).rejects.toMatchObject({ reason: 'NotFound', code: 404 });
  });

  it('addresses any type by group, version and resource', async () => {
    const leases = resource({ group: 'coordination.svc.io', version: 'v1', resource: 'leases', namespaced: true });
    expectTypeOf(leases).toMatchTypeOf<{ group: string }>();
    const lease = await client.create(leases, { apiVersion: 'coordination.svc.io/v1', kind: 'Lease', metadata: { name: 'l1', namespace: 'svc-system' }, spec: { holderIdentity: 'me' } });
    expectTypeOf(lease).toEqualTypeOf<KubeObject>();
    expect(lease.metadata.namespace).toBe('svc-system');
    expect((await client.get(leases, 'l1', { namespace: 'svc-system' }))['spec']).toMatchObject({ holderIdentity: 'me' });
    const namespaces = await client.list(builtin.namespaces);
    expect(namespaces.items.map((n) => n.metadata.name)).toContain('default');
  });

  it('answers a patch as a view decoded on read when asked (decode), equal to the plain answer', async () => {
    for (const [decode, recordType] of [
      ['protobuf', ProtoRecord],
      ['lazy', LazyRecord],
    ] as const) {
      await client.create(builtin.configMaps, cm(`view-${decode}`, { k: '1' }));
      const patched = await client.patch(builtin.configMaps, `view-${decode}`, { data: { k: '2' } }, { decode });
      // A view (over the protobuf asked for, or the JSON): frozen, its record behind it; what it reads is what the server stored.
      expect(recordOf(patched), decode).toBeInstanceOf(recordType);
      expect(Object.isFrozen(patched)).toBe(true);
      expect(patched.data).toEqual({ k: '2' });
      expect(JSON.parse(JSON.stringify(patched))).toEqual(await client.get(builtin.configMaps, `view-${decode}`));
      // A status patch too (the node agent's pod status writes).
      await client.create(builtin.pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: `view-${decode}`, namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'registry.example/c:1' }] } });
      const pod = await client.patchStatus(builtin.pods, `view-${decode}`, { status: { message: 'from the test' } }, { namespace: 'default', decode });
      expect(recordOf(pod)).toBeInstanceOf(recordType);
      expect(pod.status?.message).toBe('from the test');
      expect(pod.spec.containers.map((c) => c.image)).toEqual(['registry.example/c:1']);
    }
    // The default is a plain object, as before.
    const plain = await client.patch(builtin.configMaps, 'view-protobuf', { data: { k: '4' } });
    expect(recordOf(plain)).toBeUndefined();
    expect(Object.isFrozen(plain)).toBe(false);
    // A refused patch is the same StatusError whatever the answer's decoding.
    for (const decode of ['protobuf', 'lazy'] as const) {
      await expect(client.patch(builtin.configMaps, 'missing', { data: {} }, { decode })).rejects.toMatchObject({ reason: 'NotFound', code: 404, details: { name: 'missing', kind: 'configmaps' } });
    }
  });

  it('round-trips every patch type', async () => {
    await client.create(builtin.configMaps, cm('p', { a: '1' }, { app: 'x' }));
    const merged = await client.patch(builtin.configMaps, 'p', { data: { b: '2' } });
    expect(merged.data).toEqual({ a: '1', b: '2' });
    const json = await client.patch(builtin.configMaps, 'p', [{ op: 'replace', path: '/data/a', value: '9' }], { type: 'json' });
    expect(json.data).toEqual({ a: '9', b: '2' });
    const strategic = await client.patch(builtin.configMaps, 'p', { metadata: { labels: { tier: 'web' } } }, { type: 'strategic' });
    expect(strategic.metadata.labels).toEqual({ app: 'x', tier: 'web' });
    const applied = await client.patch(
      builtin.configMaps,
      'applied',
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied' }, data: { z: '1' } },
      { type: 'apply', fieldManager: 'tests' },
    );
    expect(applied.data).toEqual({ z: '1' });
    expect(applied.metadata.managedFields?.[0]?.manager).toBe('tests');
    await expect(client.patch(builtin.configMaps, 'p', { data: { a: 1 } }, { type: 'apply' })).rejects.toThrow(TypeError);
  });

  it('answers dry runs without writing', async () => {
    const dry = await client.create(builtin.configMaps, cm('dry'), { dryRun: true });
    expect(dry.metadata.name).toBe('dry');
    await expect(client.get(builtin.configMaps, 'dry')).rejects.toSatisfy((e) => isStatusError(e, 'NotFound'));
  });

  it('deletes a collection by label selector', async () => {
    await client.create(builtin.configMaps, cm('dc-1', {}, { batch: 'x' }), { namespace: 'svc-public' });
    await client.create(builtin.configMaps, cm('dc-2', {}, { batch: 'x' }), { namespace: 'svc-public' });
    await client.create(builtin.configMaps, cm('dc-3', {}, { batch: 'y' }), { namespace: 'svc-public' });
    const gone = await client.deleteCollection(builtin.configMaps, { namespace: 'svc-public', labelSelector: 'batch=x' });
    expect(gone.items.map((i) => i.metadata.name).sort()).toEqual(['dc-1', 'dc-2']);
    const left = await client.list(builtin.configMaps, { namespace: 'svc-public' });
    expect(left.items.map((i) => i.metadata.name)).toEqual(['dc-3']);
  });
});

describe('Client errors are StatusErrors', () => {
  it('404 NotFound with details', async () => {
    const error = await client.get(builtin.configMaps, 'missing').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StatusError);
    expect(error).toMatchObject({ reason: 'NotFound', code: 404, details: { name: 'missing', kind: 'configmaps' } });
  });

  it('409 AlreadyExists and 409 Conflict', async () => {
    const first = await client.create(builtin.configMaps, cm('dup'));
    await expect(client.create(builtin.configMaps, cm('dup'))).rejects.toMatchObject({ reason: 'AlreadyExists', code: 409 });
    await client.update(builtin.configMaps, { ...first, data: { v: '2' } });
    await expect(client.update(builtin.configMaps, { ...first, data: { v: '3' } })).rejects.toMatchObject({ reason: 'Conflict', code: 409 });
  });

  it('422 Invalid with field causes', async () => {
    const error = await client.create(builtin.configMaps, cm('Not_A_Name')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StatusError);
    expect(error).toMatchObject({ reason: 'Invalid', code: 422 });
    expect((error as StatusError).details?.causes?.[0]?.field).toBe('metadata.name');
  });

  it('401 for a client without the token', async () => {
    const anonymous = t.newClient({ token: 'wrong' });
    await expect(anonymous.get(builtin.configMaps, 'x')).rejects.toMatchObject({ reason: 'Unauthorized', code: 401 });
  });
});
