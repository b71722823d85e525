// The service loop without a cloud provider: a LoadBalancer Service keeps an empty status (its
// NodePorts and cluster IP are the API server's and work) and gets one Warning saying why; a
// Service with a loadBalancerClass is another implementation's and gets nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtin, type Client } from '../../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import { createNamespaceWithAccount } from '../../support/namespace-with-account.js';
import { eventually } from '../support.js';
import { eventsAbout } from '../workload-support.js';
import { httpPort, service } from './network-fixtures.js';

describe('service-lb loop without a cloud provider', () => {
  let cluster: TestCluster;
  let client: Client;
  beforeAll(async () => {
    cluster = await startTestCluster({ controllers: { controllers: ['service-lb-controller'] } });
    client = cluster.client;
    await createNamespaceWithAccount(client, 'lb');
  });
  afterAll(() => cluster.stop());

  it('leaves the status empty and says why in one Warning', async () => {
    const created = await client.create(builtin.services, service('front', 'lb', { type: 'LoadBalancer', selector: { app: 'front' }, ports: [httpPort(8080)] }), { namespace: 'lb' });
    expect(created.spec?.ports?.[0]?.nodePort).toBeGreaterThanOrEqual(30000);
    await eventually(async () => (await eventsAbout(client, 'lb', 'Service', 'front')).length > 0, 'an Event about front');
    const events = await eventsAbout(client, 'lb', 'Service', 'front');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatch(/^SyncLoadBalancerFailed: Error syncing load balancer: no cloud provider is configured/);
    const list = await client.list(builtin.coreEvents, { namespace: 'lb' });
    expect(list.items.find((e) => e.involvedObject?.name === 'front')?.type).toBe('Warning');
    // Another update of the Service repeats nothing.
    const current = await client.get(builtin.services, 'front', { namespace: 'lb' });
    await client.update(builtin.services, { ...current, metadata: { ...current.metadata, labels: { touched: 'yes' } } }, { namespace: 'lb' });
    await client.create(builtin.services, service('marker', 'lb', { type: 'LoadBalancer', selector: { app: 'm' }, ports: [httpPort(80)] }), { namespace: 'lb' });
    await eventually(async () => (await eventsAbout(client, 'lb', 'Service', 'marker')).length > 0, 'an Event about marker');
    const again = await client.list(builtin.coreEvents, { namespace: 'lb' });
    expect(again.items.find((e) => e.involvedObject?.name === 'front')?.count ?? 1).toBe(1);
    expect((await client.get(builtin.services, 'front', { namespace: 'lb' })).status?.loadBalancer ?? {}).toEqual({});
  });

  it('leaves a Service with a loadBalancerClass alone', async () => {
    await client.create(builtin.services, service('classy', 'lb', { type: 'LoadBalancer', loadBalancerClass: 'example.com/lb', selector: { app: 'c' }, ports: [httpPort(80)] }), { namespace: 'lb' });
    await client.create(builtin.services, service('after', 'lb', { type: 'LoadBalancer', selector: { app: 'a' }, ports: [httpPort(80)] }), { namespace: 'lb' });
    await eventually(async () => (await eventsAbout(client, 'lb', 'Service', 'after')).length > 0, 'an Event about after');
    expect(await eventsAbout(client, 'lb', 'Service', 'classy')).toEqual([]);
  });
});
