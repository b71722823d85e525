// The endpointslice loop: slices per Service and address family with the upstream labels, the
// three conditions, named target ports resolved per pod, splitting at --max-endpoints-per-slice
// (3 here), upstream's minimal churn (an endpoint changes in its own slice; new ones fill a slice
// with room), a placeholder for a Service without endpoints, and a deleted slice made again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EndpointSlice } from '../../../src/api/index.js';
import { builtin, type Client } from '../../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import { createNamespaceWithAccount } from '../../support/namespace-with-account.js';
import { eventually } from '../support.js';
import { httpPort, pod, runningPod, service, setPodStatus } from './network-fixtures.js';

async function slicesOf(client: Client, namespace: string, name: string): Promise<EndpointSlice[]> {
  return [...(await client.list(builtin.endpointSlices, { namespace, labelSelector: `kubernetes.io/service-name=${name}` })).items];
}

const endpointCount = (slices: readonly EndpointSlice[]): number => slices.reduce((n, s) => n + s.endpoints.length, 0);
const endpointsOf = (slices: readonly EndpointSlice[]) => slices.flatMap((s) => s.endpoints.map((e) => ({ ...e, ports: s.ports })));

describe('endpointslice loop', () => {
  let cluster: TestCluster;
  let client: Client;
  beforeAll(async () => {
    cluster = await startTestCluster({ controllers: { controllers: ['endpointslice-controller', 'garbage-collector-controller'], loopSettings: { maxEndpointsPerSlice: 3 } } });
    client = cluster.client;
    await createNamespaceWithAccount(client, 'es');
  });
  afterAll(() => cluster.stop());

  it('publishes the selected pods with labels, owner, conditions, node, hostname and ports resolved per pod', async () => {
    await client.create(builtin.services, service('web', 'es', { selector: { app: 'web' }, ports: [httpPort('http')] }, { tier: 'front' }), { namespace: 'es' });
    await runningPod(client, 'es', 'web-a', '10.1.0.1', true, { labels: { app: 'web' }, ports: { http: 8080 }, nodeName: 'n1', hostname: 'a', subdomain: 'web' });
    await runningPod(client, 'es', 'web-b', '10.1.0.2', false, { labels: { app: 'web' }, ports: { http: 9090 } });
    await runningPod(client, 'es', 'other', '10.1.0.3', true, { labels: { app: 'other' }, ports: { http: 8080 } });
    await eventually(async () => endpointCount(await slicesOf(client, 'es', 'web')) === 2, 'two endpoints for web');
    const slices = await slicesOf(client, 'es', 'web');
    const svc = await client.get(builtin.services, 'web', { namespace: 'es' });
    for (const slice of slices) {
      expect(slice.addressType).toBe('IPv4');
      expect(slice.metadata.labels).toMatchObject({
        tier: 'front',
        'kubernetes.io/service-name': 'web',
        'svc.io/service-name': 'web',
        'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
        'endpointslice.svc.io/managed-by': 'endpointslice-controller.svc.io',
      });
      expect(slice.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Service', name: 'web', uid: svc.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    }
    const byIp = new Map(endpointsOf(slices).map((e) => [e.addresses[0], e]));
    const a = byIp.get('10.1.0.1')!;
    expect(a.conditions).toEqual({ ready: true, serving: true, terminating: false });
    expect(a.nodeName).toBe('n1');
    expect(a.hostname).toBe('a');
    expect(a.targetRef).toMatchObject({ kind: 'Pod', namespace: 'es', name: 'web-a' });
    expect(a.ports).toEqual([{ name: 'http', port: 8080, protocol: 'TCP' }]);
    const b = byIp.get('10.1.0.2')!;
    expect(b.conditions).toEqual({ ready: false, serving: false, terminating: false });
    // The same named port is another number on this pod: another slice.
    expect(b.ports).toEqual([{ name: 'http', port: 9090, protocol: 'TCP' }]);
    expect(slices).toHaveLength(2);
  });

  it('leaves a pod without the named port out of that port', async () => {
    await client.create(builtin.services, service('named', 'es', { selector: { app: 'named' }, ports: [httpPort('metrics', 'metrics', 9100), httpPort(8080, 'plain', 81)] }), { namespace: 'es' });
    await runningPod(client, 'es', 'named-a', '10.2.0.1', true, { labels: { app: 'named' }, ports: { metrics: 9101 } });
    await runningPod(client, 'es', 'named-b', '10.2.0.2', true, { labels: { app: 'named' } });
    await eventually(async () => endpointCount(await slicesOf(client, 'es', 'named')) === 2, 'two endpoints for named');
    const byIp = new Map(endpointsOf(await slicesOf(client, 'es', 'named')).map((e) => [e.addresses[0], e]));
    expect(byIp.get('10.2.0.1')!.ports).toEqual([
      { name: 'metrics', port: 9101, protocol: 'TCP' },
      { name: 'plain', port: 8080, protocol: 'TCP' },
    ]);
    expect(byIp.get('10.2.0.2')!.ports).toEqual([{ name: 'plain', port: 8080, protocol: 'TCP' }]);
  });

  it('splits at the maximum, changes one endpoint in its own slice, and fills a slice with room before making one', async () => {
    await client.create(builtin.services, service('many', 'es', { selector: { app: 'many' }, ports: [httpPort(80)] }), { namespace: 'es' });
    for (let i = 0; i < 7; i++) await runningPod(client, 'es', `many-${i}`, `10.3.0.${i + 1}`, true, { labels: { app: 'many' } });
    await eventually(async () => endpointCount(await slicesOf(client, 'es', 'many')) === 7, 'seven endpoints for many');
    const before = await slicesOf(client, 'es', 'many');
    expect(before.map((s) => s.endpoints.length).sort()).toEqual([1, 3, 3]);

    // One pod turns not ready: exactly the slice holding it is rewritten, in place.
    const holder = before.find((s) => s.endpoints.some((e) => e.addresses[0] === '10.3.0.4'))!;
    await setPodStatus(client, 'es', 'many-3', '10.3.0.4', false);
    await eventually(async () => {
      const now = await slicesOf(client, 'es', 'many');
      return now.some((s) => s.endpoints.some((e) => e.addresses[0] === '10.3.0.4' && e.conditions?.ready === false));
    }, 'many-3 not ready');
    const after = await slicesOf(client, 'es', 'many');
    expect(after.map((s) => s.metadata.uid).sort()).toEqual(before.map((s) => s.metadata.uid).sort());
    for (const slice of after) {
      const old = before.find((s) => s.metadata.uid === slice.metadata.uid)!;
      if (slice.metadata.uid === holder.metadata.uid) expect(slice.metadata.resourceVersion).not.toBe(old.metadata.resourceVersion);
      else expect(slice.metadata.resourceVersion).toBe(old.metadata.resourceVersion);
    }

    // Two new pods fit in the slice with one endpoint: no new slice.
    await runningPod(client, 'es', 'many-7', '10.3.0.8', true, { labels: { app: 'many' } });
    await runningPod(client, 'es', 'many-8', '10.3.0.9', true, { labels: { app: 'many' } });
    await eventually(async () => endpointCount(await slicesOf(client, 'es', 'many')) === 9, 'nine endpoints for many');
    const filled = await slicesOf(client, 'es', 'many');
    expect(filled.map((s) => s.metadata.uid).sort()).toEqual(before.map((s) => s.metadata.uid).sort());
    expect(filled.map((s) => s.endpoints.length)).toEqual([3, 3, 3]);

    // One more: a new slice.
    await runningPod(client, 'es', 'many-9', '10.3.0.10', true, { labels: { app: 'many' } });
    await eventually(async () => (await slicesOf(client, 'es', 'many')).length === 4, 'a fourth slice');
  });

  it('marks a pod being deleted terminating (and not ready), and publishNotReadyAddresses makes every endpoint ready', async () => {
    await client.create(builtin.services, service('term', 'es', { selector: { app: 'term' }, ports: [httpPort(80)] }), { namespace: 'es' });
    await runningPod(client, 'es', 'term-a', '10.4.0.1', true, { labels: { app: 'term' }, finalizers: ['example.com/hold'] });
    await eventually(async () => endpointCount(await slicesOf(client, 'es', 'term')) === 1, 'term-a published');
    await client.delete(builtin.pods, 'term-a', { namespace: 'es' });
    await eventually(async () => endpointsOf(await slicesOf(client, 'es', 'term'))[0]?.conditions?.terminating === true, 'term-a terminating');
    expect(endpointsOf(await slicesOf(client, 'es', 'term'))[0]!.conditions).toEqual({ ready: false, serving: true, terminating: true });

    await client.create(builtin.services, service('pub', 'es', { selector: { app: 'pub' }, ports: [httpPort(80)], publishNotReadyAddresses: true }), { namespace: 'es' });
    await runningPod(client, 'es', 'pub-a', '10.5.0.1', false, { labels: { app: 'pub' } });
    await eventually(async () => endpointCount(await slicesOf(client, 'es', 'pub')) === 1, 'pub-a published');
    expect(endpointsOf(await slicesOf(client, 'es', 'pub'))[0]!.conditions).toEqual({ ready: true, serving: false, terminating: false });
    // Let the held pod go.
    const held = await client.get(builtin.pods, 'term-a', { namespace: 'es' });
    await client.update(builtin.pods, { ...held, metadata: { ...held.metadata, finalizers: [] } }, { namespace: 'es' });
    await eventually(async () => endpointCount(await slicesOf(client, 'es', 'term')) === 0, 'term-a gone from the slices');
  });

  it('keeps one empty placeholder slice for a Service without endpoints, and makes a deleted slice again', async () => {
    await client.create(builtin.services, service('empty', 'es', { selector: { app: 'nothing' }, ports: [httpPort(80)] }), { namespace: 'es' });
    await eventually(async () => (await slicesOf(client, 'es', 'empty')).length === 1, 'placeholder slice');
    const [placeholder] = await slicesOf(client, 'es', 'empty');
    expect(placeholder!.endpoints).toEqual([]);
    expect(placeholder!.ports ?? []).toEqual([]);
    await client.delete(builtin.endpointSlices, placeholder!.metadata.name!, { namespace: 'es' });
    await eventually(async () => {
      const now = await slicesOf(client, 'es', 'empty');
      return now.length === 1 && now[0]!.metadata.uid !== placeholder!.metadata.uid;
    }, 'placeholder made again');
  });

  it('publishes nothing for a Service without a selector, and deletes the slices with their Service', async () => {
    await client.create(builtin.services, service('manual', 'es', { ports: [httpPort(80)] }), { namespace: 'es' });
    await client.create(builtin.services, service('gone', 'es', { selector: { app: 'gone' }, ports: [httpPort(80)] }), { namespace: 'es' });
    await client.create(builtin.pods, pod('gone-a', 'es', { labels: { app: 'gone' } }), { namespace: 'es' });
    await setPodStatus(client, 'es', 'gone-a', '10.6.0.1', true);
    await eventually(async () => endpointCount(await slicesOf(client, 'es', 'gone')) === 1, 'gone published');
    expect(await slicesOf(client, 'es', 'manual')).toEqual([]);
    await client.delete(builtin.services, 'gone', { namespace: 'es' });
    await eventually(async () => (await slicesOf(client, 'es', 'gone')).length === 0, 'slices of gone collected');
  });
});
