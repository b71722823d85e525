// A node's Lease renewal as hollow nodes and kubelets send it: a protobuf PUT of the Lease as last
// answered with a new spec.renewTime, answered in protobuf. This pins what any shortcut of the
// renewal's write path must leave as it is on the wire: the version moves; managedFields keep one
// Update entry of the node's manager with the same FieldsV1, stamped with the write's time (upstream
// stamps an Update entry whenever its manager changes a field it owns: renewTime, every renewal);
// the answer is the GET's bytes; a PUT that changes nothing writes nothing and keeps the time; a
// change by another manager takes the field from the node's entry and leaves its time.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { decodeProtobuf, encodeProtobuf, type JsonObject } from '../../src/encoding/index.js';
import { startTestServer, TOKEN, type BackendName, type TestServer } from './harness.js';

const auth = { authorization: `Bearer ${TOKEN}` };
const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const LEASES = '/apis/coordination.k8s.io/v1/namespaces/default/leases';
const FIELDS = {
  'f:metadata': { 'f:ownerReferences': { 'k:{"uid":"7b4ef2a0-0000-4000-8000-000000000001"}': { '.': {}, 'f:apiVersion': {}, 'f:kind': {}, 'f:name': {}, 'f:uid': {} } } },
  'f:spec': { 'f:holderIdentity': {}, 'f:leaseDurationSeconds': {}, 'f:renewTime': {} },
};

interface Lease extends JsonObject {
  metadata: { resourceVersion: string; managedFields: { manager: string; operation: string; time: string; fieldsV1: unknown }[] };
  spec: { holderIdentity?: string; renewTime?: string };
}

/** The server's clock, set per step (only Date is faked: the store, sockets and timers run as they do). */
const setClock = (time: string) => vi.setSystemTime(new Date(time));

describe.each<BackendName>(['memory', 'sqlite'])('a Lease renewal on %s', (backend) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(backend);
  });
  afterAll(() => s.close());
  afterEach(() => vi.useRealTimers());

  const renew = async (lease: Lease, spec: Partial<Lease['spec']>, manager = 'kubelet') => {
    const body = encodeProtobuf({ ...lease, spec: { ...lease.spec, ...spec } });
    const res = await s.app.inject({
      method: 'PUT',
      url: `${LEASES}/${lease.metadata['name' as keyof Lease['metadata']] as string}?fieldManager=${manager}`,
      headers: { ...auth, 'content-type': PROTOBUF, accept: PROTOBUF },
      payload: Buffer.from(body),
    });
    expect(res.statusCode, res.body).toBe(200);
    return { lease: decodeProtobuf(res.rawPayload) as Lease, bytes: res.rawPayload };
  };

  const create = async (name: string): Promise<Lease> => {
    const res = await s.app.inject({
      method: 'POST',
      url: `${LEASES}?fieldManager=kubelet`,
      headers: { ...auth, 'content-type': 'application/json', accept: PROTOBUF },
      payload: JSON.stringify({
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name, ownerReferences: [{ apiVersion: 'v1', kind: 'Node', name, uid: '7b4ef2a0-0000-4000-8000-000000000001' }] },
        spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: '2026-11-27T10:00:00.000000Z' },
      }),
    });
    expect(res.statusCode, res.body).toBe(201);
    return decodeProtobuf(res.rawPayload) as Lease;
  };

  it('moves the version, keeps the one Update entry with its fields stamped with the write time, and answers the GET bytes', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    setClock('2026-01-01T00:00:00Z');
    let lease = await create('node-1');
    expect(lease.metadata.managedFields).toEqual([expect.objectContaining({ manager: 'kubelet', operation: 'Update', time: '2026-01-01T00:00:00Z', fieldsV1: FIELDS })]);
    for (let i = 1; i <= 3; i++) {
      setClock(`2026-01-01T00:0${i}:00Z`);
      const answer = await renew(lease, { renewTime: `2026-11-27T10:00:${String(10 * i).padStart(2, '0')}.000000Z` });
      expect(Number(answer.lease.metadata.resourceVersion)).toBeGreaterThan(Number(lease.metadata.resourceVersion));
      expect(answer.lease.spec.renewTime).toBe(`2026-11-27T10:00:${String(10 * i).padStart(2, '0')}.000000Z`);
      expect(answer.lease.metadata.managedFields).toEqual([
        { manager: 'kubelet', operation: 'Update', apiVersion: 'coordination.k8s.io/v1', time: `2026-01-01T00:0${i}:00Z`, fieldsType: 'FieldsV1', fieldsV1: FIELDS },
      ]);
      const get = await s.app.inject({ method: 'GET', url: `${LEASES}/node-1`, headers: { ...auth, accept: PROTOBUF } });
      expect(decodeProtobuf(get.rawPayload)).toEqual(answer.lease);
      expect(get.rawPayload.equals(answer.bytes)).toBe(true);
      lease = answer.lease;
    }
  });

  it('writes nothing for a PUT of the stored Lease: the same version, and managedFields with their time', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    setClock('2026-01-01T01:00:00Z');
    const lease = (await renew(await create('node-2'), { renewTime: '2026-11-27T10:01:00.000000Z' })).lease;
    setClock('2026-01-01T01:05:00Z');
    const again = await renew(lease, {});
    expect(again.lease).toEqual(lease);
    expect(again.lease.metadata.managedFields[0]!.time).toBe('2026-01-01T01:00:00Z');
  });

  it("gives another manager the fields it changed, and leaves the node's entry the rest and its time", async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    setClock('2026-01-01T02:00:00Z');
    const lease = await create('node-3');
    setClock('2026-01-01T02:01:00Z');
    const taken = await renew(lease, { holderIdentity: 'someone-else' }, 'other');
    const entries = (l: Lease) => Object.fromEntries(l.metadata.managedFields.map((e) => [e.manager, { time: e.time, fields: e.fieldsV1 }]));
    expect(entries(taken.lease)).toEqual({
      kubelet: { time: '2026-01-01T02:00:00Z', fields: { 'f:metadata': FIELDS['f:metadata'], 'f:spec': { 'f:leaseDurationSeconds': {}, 'f:renewTime': {} } } },
      other: { time: '2026-01-01T02:01:00Z', fields: { 'f:spec': { 'f:holderIdentity': {} } } },
    });
    // The node renews: renewTime is its own already, holderIdentity stays the other manager's.
    setClock('2026-01-01T02:02:00Z');
    const renewed = await renew(taken.lease, { renewTime: '2026-11-27T10:02:00.000000Z' });
    expect(entries(renewed.lease)).toEqual({
      kubelet: { time: '2026-01-01T02:02:00Z', fields: entries(taken.lease)['kubelet']!.fields },
      other: entries(taken.lease)['other'],
    });
  });
});
