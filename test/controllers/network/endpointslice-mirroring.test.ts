// The endpointslice-mirroring loop: custom Endpoints of a selector-less Service become slices
// (per subset's ports and address family, ready and not-ready, labels and owner), cut at
// --mirroring-max-endpoints-per-subset (3 here) with a Warning, updated in place, and removed
// when the Endpoints opt out (skip-mirror), the Service gains a selector or goes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EndpointSlice, Endpoints } from '../../../src/api/index.js';
import { builtin, type Client } from '../../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import { createNamespaceWithAccount } from '../../support/namespace-with-account.js';
import { eventually } from '../support.js';
import { eventsAbout, updateWith } from '../workload-support.js';
import { httpPort, service } from './network-fixtures.js';

async function slicesOf(client: Client, namespace: string, name: string): Promise<EndpointSlice[]> {
  return [...(await client.list(builtin.endpointSlices, { namespace, labelSelector: `kubernetes.io/service-name=${name}` })).items];
}

const endpoints = (name: string, subsets: Endpoints['subsets'], labels?: Record<string, string>): Endpoints => ({
  apiVersion: 'v1',
  kind: 'Endpoints',
  metadata: { name, namespace: 'mir', ...(labels ? { labels } : {}) },
  subsets,
});

describe('endpointslice-mirroring loop', () => {
  let cluster: TestCluster;
  let client: Client;
  beforeAll(async () => {
    cluster = await startTestCluster({
      controllers: { controllers: ['endpointslice-mirroring-controller', 'endpointslice-controller', 'garbage-collector-controller'], loopSettings: { mirroringMaxEndpointsPerSubset: 3 } },
    });
    client = cluster.client;
    await createNamespaceWithAccount(client, 'mir');
  });
  afterAll(() => cluster.stop());

  it('mirrors custom Endpoints per family and port set, with conditions, labels and owner', async () => {
    await client.create(builtin.services, service('db', 'mir', { ports: [httpPort(5432, 'pg', 5432)] }), { namespace: 'mir' });
    const created = await client.create(
      builtin.endpoints,
      endpoints('db', [
        { addresses: [{ ip: '192.0.2.1', hostname: 'one', nodeName: 'n1' }, { ip: '2001:db8::1' }], notReadyAddresses: [{ ip: '192.0.2.2' }], ports: [{ name: 'pg', port: 5432 }] },
        { addresses: [{ ip: '192.0.2.9' }], ports: [{ name: 'pg', port: 6432 }] },
      ], { team: 'data' }),
      { namespace: 'mir' },
    );
    await eventually(async () => (await slicesOf(client, 'mir', 'db')).length === 3, 'three mirrored slices');
    const slices = await slicesOf(client, 'mir', 'db');
    for (const slice of slices) {
      expect(slice.metadata.labels).toMatchObject({ team: 'data', 'kubernetes.io/service-name': 'db', 'endpointslice.kubernetes.io/managed-by': 'endpointslicemirroring-controller.k8s.io' });
      expect(slice.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Endpoints', name: 'db', uid: created.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    }
    const v4 = slices.find((s) => s.addressType === 'IPv4' && s.ports?.[0]?.port === 5432)!;
    expect(v4.endpoints).toEqual([
      { addresses: ['192.0.2.1'], conditions: { ready: true }, hostname: 'one', nodeName: 'n1' },
      { addresses: ['192.0.2.2'], conditions: { ready: false } },
    ]);
    expect(slices.find((s) => s.addressType === 'IPv6')!.endpoints.map((e) => e.addresses[0])).toEqual(['2001:db8::1']);
    expect(slices.find((s) => s.ports?.[0]?.port === 6432)!.endpoints.map((e) => e.addresses[0])).toEqual(['192.0.2.9']);

    // A changed address is rewritten in its slice, in place.
    await updateWith(client, builtin.endpoints, 'db', 'mir', (e) => ({ ...e, subsets: [{ ...e.subsets![0]!, notReadyAddresses: [], addresses: [...e.subsets![0]!.addresses!, { ip: '192.0.2.2' }] }, e.subsets![1]!] }));
    await eventually(async () => {
      const now = await slicesOf(client, 'mir', 'db');
      const slice = now.find((s) => s.metadata.uid === v4.metadata.uid);
      return slice?.endpoints.find((e) => e.addresses[0] === '192.0.2.2')?.conditions?.ready === true;
    }, '192.0.2.2 ready in the same slice');
  });

  it('mirrors at most the maximum per subset and says so', async () => {
    await client.create(builtin.services, service('wide', 'mir', { ports: [httpPort(80)] }), { namespace: 'mir' });
    await client.create(builtin.endpoints, endpoints('wide', [{ addresses: [1, 2, 3, 4, 5].map((i) => ({ ip: `198.51.100.${i}` })), ports: [{ port: 80 }] }]), { namespace: 'mir' });
    await eventually(async () => (await slicesOf(client, 'mir', 'wide')).reduce((n, s) => n + s.endpoints.length, 0) === 3, 'three mirrored addresses');
    await eventually(async () => (await eventsAbout(client, 'mir', 'Endpoints', 'wide')).some((e) => e.startsWith('MirroringEndpointsTruncated')), 'the truncation Warning');
  });

  it('removes the mirror for skip-mirror, for a Service with a selector, and for a Service gone; leaves selector Services to the endpointslice loop', async () => {
    await client.create(builtin.services, service('opt', 'mir', { ports: [httpPort(80)] }), { namespace: 'mir' });
    await client.create(builtin.endpoints, endpoints('opt', [{ addresses: [{ ip: '203.0.113.1' }], ports: [{ port: 80 }] }]), { namespace: 'mir' });
    await eventually(async () => (await slicesOf(client, 'mir', 'opt')).length === 1, 'opt mirrored');
    await updateWith(client, builtin.endpoints, 'opt', 'mir', (e) => ({ ...e, metadata: { ...e.metadata, labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } } }));
    await eventually(async () => (await slicesOf(client, 'mir', 'opt')).length === 0, 'opt unmirrored');

    await client.create(builtin.services, service('sel', 'mir', { ports: [httpPort(80)] }), { namespace: 'mir' });
    await client.create(builtin.endpoints, endpoints('sel', [{ addresses: [{ ip: '203.0.113.2' }], ports: [{ port: 80 }] }]), { namespace: 'mir' });
    await eventually(async () => (await slicesOf(client, 'mir', 'sel')).length === 1, 'sel mirrored');
    await updateWith(client, builtin.services, 'sel', 'mir', (s) => ({ ...s, spec: { ...s.spec, selector: { app: 'none' } } }));
    // The mirror goes; the endpointslice loop's placeholder comes.
    await eventually(async () => {
      const now = await slicesOf(client, 'mir', 'sel');
      return now.length === 1 && now[0]!.metadata.labels?.['endpointslice.kubernetes.io/managed-by'] === 'endpointslice-controller.k8s.io';
    }, 'sel handed to the endpointslice loop');

    await client.delete(builtin.services, 'db', { namespace: 'mir' });
    await eventually(async () => (await slicesOf(client, 'mir', 'db')).length === 0, 'db unmirrored');
  });
});
