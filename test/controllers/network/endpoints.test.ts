// The endpoints loop: an Endpoints object per selector Service with ready and not-ready addresses
// (targetRef, nodeName, hostname), ports by name with named target ports resolved per pod,
// publishNotReadyAddresses, terminating pods left out, the over-capacity annotation past 1,000
// addresses, and the Endpoints of a deleted Service removed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Endpoints } from '../../../src/api/index.js';
import { builtin, type Client } from '../../../src/client/index.js';
import { truncateSubsets } from '../../../controllers/endpoints/index.js';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import { createNamespaceWithAccount } from '../../support/namespace-with-account.js';
import { eventually, isGone } from '../support.js';
import { httpPort, runningPod, service, setPodStatus } from './network-fixtures.js';

async function endpointsOf(client: Client, namespace: string, name: string): Promise<Endpoints | undefined> {
  try {
    return await client.get(builtin.endpoints, name, { namespace });
  } catch (error) {
    if ((error as { code?: number }).code === 404) return undefined;
    throw error;
  }
}

const addressCount = (e: Endpoints | undefined, kind: 'addresses' | 'notReadyAddresses' = 'addresses'): number => (e?.subsets ?? []).reduce((n, s) => n + (s[kind]?.length ?? 0), 0);

describe('endpoints loop', () => {
  let cluster: TestCluster;
  let client: Client;
  beforeAll(async () => {
    cluster = await startTestCluster({ controllers: { controllers: ['endpoints-controller'] } });
    client = cluster.client;
    await createNamespaceWithAccount(client, 'ep');
  });
  afterAll(() => cluster.stop());

  it('lists ready and not-ready addresses with their pods, nodes and hostnames, ports resolved per pod', async () => {
    await client.create(builtin.services, service('web', 'ep', { selector: { app: 'web' }, ports: [httpPort('http'), httpPort(9000, 'admin', 90)] }, { tier: 'front' }), { namespace: 'ep' });
    await runningPod(client, 'ep', 'web-a', '10.1.0.1', true, { labels: { app: 'web' }, ports: { http: 8080 }, nodeName: 'n1', hostname: 'a', subdomain: 'web' });
    await runningPod(client, 'ep', 'web-b', '10.1.0.2', false, { labels: { app: 'web' }, ports: { http: 8080 } });
    await runningPod(client, 'ep', 'web-c', '10.1.0.3', true, { labels: { app: 'web' }, ports: { http: 7070 } });
    await eventually(async () => {
      const e = await endpointsOf(client, 'ep', 'web');
      return addressCount(e) === 2 && addressCount(e, 'notReadyAddresses') === 1;
    }, 'web endpoints');
    const e = (await endpointsOf(client, 'ep', 'web'))!;
    expect(e.metadata.labels).toEqual({ tier: 'front' });
    // Two port sets: http→8080 (a, b) and http→7070 (c); admin→9000 on all.
    expect(e.subsets).toHaveLength(2);
    const by8080 = e.subsets!.find((s) => s.ports!.some((p) => p.port === 8080))!;
    expect(by8080.ports).toEqual([
      { name: 'admin', port: 9000, protocol: 'TCP' },
      { name: 'http', port: 8080, protocol: 'TCP' },
    ]);
    expect(by8080.addresses).toHaveLength(1);
    expect(by8080.addresses![0]).toMatchObject({ ip: '10.1.0.1', hostname: 'a', nodeName: 'n1', targetRef: { kind: 'Pod', namespace: 'ep', name: 'web-a' } });
    expect(by8080.notReadyAddresses!.map((a) => a.ip)).toEqual(['10.1.0.2']);
    const by7070 = e.subsets!.find((s) => s.ports!.some((p) => p.port === 7070))!;
    expect(by7070.addresses!.map((a) => a.ip)).toEqual(['10.1.0.3']);

    // Readiness moves an address between the lists.
    await setPodStatus(client, 'ep', 'web-b', '10.1.0.2', true);
    await eventually(async () => addressCount(await endpointsOf(client, 'ep', 'web')) === 3, 'web-b ready');
  });

  it('puts not-ready pods among the ready addresses for publishNotReadyAddresses, and leaves terminating pods out otherwise', async () => {
    await client.create(builtin.services, service('pub', 'ep', { selector: { app: 'pub' }, ports: [httpPort(80)], publishNotReadyAddresses: true }), { namespace: 'ep' });
    await client.create(builtin.services, service('strict', 'ep', { selector: { app: 'pub' }, ports: [httpPort(80)] }), { namespace: 'ep' });
    await runningPod(client, 'ep', 'pub-a', '10.2.0.1', false, { labels: { app: 'pub' }, finalizers: ['example.com/hold'] });
    await eventually(async () => addressCount(await endpointsOf(client, 'ep', 'pub')) === 1, 'pub lists pub-a as ready');
    await eventually(async () => addressCount(await endpointsOf(client, 'ep', 'strict'), 'notReadyAddresses') === 1, 'strict lists pub-a as not ready');
    await client.delete(builtin.pods, 'pub-a', { namespace: 'ep' });
    await eventually(async () => addressCount(await endpointsOf(client, 'ep', 'strict'), 'notReadyAddresses') === 0, 'strict drops the terminating pod');
    expect(addressCount(await endpointsOf(client, 'ep', 'pub'))).toBe(1);
    const held = await client.get(builtin.pods, 'pub-a', { namespace: 'ep' });
    await client.update(builtin.pods, { ...held, metadata: { ...held.metadata, finalizers: [] } }, { namespace: 'ep' });
  });

  it('writes no Endpoints for a Service without a selector, and deletes those of a deleted Service', async () => {
    await client.create(builtin.services, service('manual', 'ep', { ports: [httpPort(80)] }), { namespace: 'ep' });
    await client.create(builtin.endpoints, { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'manual', namespace: 'ep' }, subsets: [{ addresses: [{ ip: '192.0.2.1' }], ports: [{ port: 80 }] }] }, { namespace: 'ep' });
    await client.create(builtin.services, service('gone', 'ep', { selector: { app: 'gone' }, ports: [httpPort(80)] }), { namespace: 'ep' });
    await eventually(async () => (await endpointsOf(client, 'ep', 'gone')) !== undefined, 'gone has Endpoints (empty)');
    await client.delete(builtin.services, 'gone', { namespace: 'ep' });
    await eventually(async () => isGone(client.get(builtin.endpoints, 'gone', { namespace: 'ep' })), 'gone Endpoints deleted');
    expect(addressCount(await endpointsOf(client, 'ep', 'manual'))).toBe(1);
  });

  it('cuts to 1,000 addresses past that and says so; the annotation goes when they fit again', async () => {
    // The pods first, then the Service: the loop writes the big Endpoints a few times, not once per
    // batch of pod changes (dozens of 1,000-address writes were most of this test's cost).
    const names = Array.from({ length: 1001 }, (_, i) => `big-${i}`);
    for (let i = 0; i < names.length; i += 50) {
      await Promise.all(names.slice(i, i + 50).map((name, j) => runningPod(client, 'ep', name, `10.9.${Math.floor((i + j) / 250)}.${((i + j) % 250) + 1}`, (i + j) % 2 === 0, { labels: { app: 'big' } })));
    }
    await client.create(builtin.services, service('big', 'ep', { selector: { app: 'big' }, ports: [httpPort(80)] }), { namespace: 'ep' });
    await eventually(async () => (await endpointsOf(client, 'ep', 'big'))?.metadata.annotations?.['endpoints.kubernetes.io/over-capacity'] === 'truncated', 'over-capacity annotation', 60_000);
    const e = (await endpointsOf(client, 'ep', 'big'))!;
    // 501 ready fit whole; the not-ready ones are cut to the room left.
    expect(addressCount(e)).toBe(501);
    expect(addressCount(e, 'notReadyAddresses')).toBe(499);
    await client.delete(builtin.pods, 'big-1', { namespace: 'ep' });
    await eventually(async () => (await endpointsOf(client, 'ep', 'big'))?.metadata.annotations?.['endpoints.kubernetes.io/over-capacity'] === undefined, 'annotation removed', 60_000);
    expect(addressCount(await endpointsOf(client, 'ep', 'big'), 'notReadyAddresses')).toBe(499);
  });
});

describe('truncateSubsets', () => {
  const addresses = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => ({ ip: `${prefix}.${i}` }));
  it('keeps every ready address and cuts not-ready ones in proportion when the ready ones fit', () => {
    const { subsets, truncated } = truncateSubsets([
      { addresses: addresses('10.0.0', 4), notReadyAddresses: addresses('10.0.1', 6), ports: [{ port: 1 }] },
      { addresses: addresses('10.0.2', 2), notReadyAddresses: addresses('10.0.3', 2), ports: [{ port: 2 }] },
    ], 10);
    expect(truncated).toBe(true);
    expect(subsets.map((s) => [s.addresses?.length ?? 0, s.notReadyAddresses?.length ?? 0])).toEqual([[4, 3], [2, 1]]);
  });
  it('cuts ready addresses in proportion and drops every not-ready one when the ready ones alone are too many', () => {
    const { subsets, truncated } = truncateSubsets([
      { addresses: addresses('10.0.0', 9), notReadyAddresses: addresses('10.0.1', 3), ports: [{ port: 1 }] },
      { addresses: addresses('10.0.2', 3), ports: [{ port: 2 }] },
    ], 8);
    expect(truncated).toBe(true);
    expect(subsets.map((s) => [s.addresses?.length ?? 0, s.notReadyAddresses?.length ?? 0])).toEqual([[6, 0], [2, 0]]);
  });
  it('leaves subsets that fit as they are', () => {
    const input = [{ addresses: addresses('10.0.0', 3), ports: [{ port: 1 }] }];
    expect(truncateSubsets(input, 3)).toEqual({ subsets: input, truncated: false });
  });
});
