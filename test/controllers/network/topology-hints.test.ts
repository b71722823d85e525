// Topology-aware hints (`service.kubernetes.io/topology-mode: Auto`): endpoints hinted for zones in
// proportion to each zone's allocatable CPU, as upstream's topology cache; the allocation as a
// pure function, then the endpointslice loop writing it, and taking it away with an Event.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EndpointSlice, Node } from '../../../src/api/index.js';
import { builtin, type Client } from '../../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import {
  allocateHints,
  ENDPOINTS_MISSING_ZONE,
  INSUFFICIENT_NODE_INFO,
  topologyModeAuto,
  zoneCpuRatios,
} from '../../../controllers/endpointslice/topology-hints.js';
import { createNamespaceWithAccount } from '../../support/namespace-with-account.js';
import { eventually } from '../support.js';
import { httpPort, runningPod, service } from './network-fixtures.js';

const node = (name: string, zone: string | undefined, cpu: string, ready = true, labels: Record<string, string> = {}): Node => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels: { ...(zone ? { 'topology.kubernetes.io/zone': zone } : {}), ...labels } },
  status: { allocatable: { cpu }, conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] },
});
/** The zones an endpoint's hints name, comma-separated, or `-` without hints. */
const zonesOf = (hints: unknown): string => {
  const zones = (hints as { forZones?: { name: string }[] } | undefined)?.forZones;
  return zones ? zones.map((z) => z.name).join(',') : '-';
};
const endpoint = (ip: string, zone?: string, ready = true) => ({ addresses: [ip], conditions: { ready, serving: ready, terminating: false }, ...(zone ? { zone } : {}) });

describe('the allocation', () => {
  it('reads the annotation (and its older name) as upstream', () => {
    const svc = (annotations: Record<string, string>) => service('s', 'ns', {}, undefined) && { ...service('s', 'ns', {}), metadata: { name: 's', namespace: 'ns', annotations } };
    expect(topologyModeAuto(svc({ 'service.kubernetes.io/topology-mode': 'Auto' }))).toBe(true);
    expect(topologyModeAuto(svc({ 'service.kubernetes.io/topology-aware-hints': 'auto' }))).toBe(true);
    expect(topologyModeAuto(svc({ 'service.kubernetes.io/topology-mode': 'Disabled' }))).toBe(false);
    expect(topologyModeAuto(svc({}))).toBe(false);
  });

  it('shares CPU by zone over ready, zoned, non-control-plane nodes; none without two zones or with an unzoned node', () => {
    const ratios = zoneCpuRatios([node('a', 'z1', '4'), node('b', 'z2', '2'), node('c', 'z2', '2'), node('d', 'z3', '8', false), node('cp', 'z3', '8', true, { 'node-role.kubernetes.io/control-plane': '' })]);
    expect(ratios).toEqual(new Map([['z1', 0.5], ['z2', 0.5]]));
    expect(zoneCpuRatios([node('a', 'z1', '4'), node('b', 'z1', '4')])).toBeUndefined();
    expect(zoneCpuRatios([node('a', 'z1', '4'), node('b', undefined, '4')])).toBeUndefined();
  });

  it('hints each endpoint for its zone when the zones hold their share', () => {
    const eps = [endpoint('10.0.0.1', 'z1'), endpoint('10.0.0.2', 'z1'), endpoint('10.0.0.3', 'z2'), endpoint('10.0.0.4', 'z2')];
    const outcome = allocateHints(eps, new Map([['z1', 0.5], ['z2', 0.5]]));
    expect('hints' in outcome && [...outcome.hints.values()]).toEqual(['z1', 'z1', 'z2', 'z2']);
  });

  it('moves endpoints from a zone above its share to one below it', () => {
    // z2 has 3/4 of the CPU but 1 of 4 endpoints: z1 gives it two.
    const eps = [endpoint('10.0.0.1', 'z1'), endpoint('10.0.0.2', 'z1'), endpoint('10.0.0.3', 'z1'), endpoint('10.0.0.4', 'z2')];
    const outcome = allocateHints(eps, new Map([['z1', 0.25], ['z2', 0.75]]));
    if (!('hints' in outcome)) throw new Error(`disabled: ${outcome.disabled}`);
    const perZone = [...outcome.hints.values()].reduce((m, z) => m.set(z, (m.get(z) ?? 0) + 1), new Map<string, number>());
    expect(perZone).toEqual(new Map([['z1', 1], ['z2', 3]]));
  });

  it('gives no hints, saying why: no node information, an unzoned endpoint, fewer endpoints than zones; not-ready endpoints get none', () => {
    const ratios = new Map([['z1', 0.5], ['z2', 0.5]]);
    expect(allocateHints([endpoint('10.0.0.1', 'z1')], undefined)).toEqual({ disabled: INSUFFICIENT_NODE_INFO });
    expect(allocateHints([endpoint('10.0.0.1', 'z1'), endpoint('10.0.0.2')], ratios)).toEqual({ disabled: ENDPOINTS_MISSING_ZONE });
    expect(allocateHints([endpoint('10.0.0.1', 'z1')], ratios)).toEqual({ disabled: 'Insufficient number of endpoints (1 endpoints, 2 zones)' });
    const withUnready = allocateHints([endpoint('10.0.0.1', 'z1'), endpoint('10.0.0.2', 'z2'), endpoint('10.0.0.3', undefined, false)], ratios);
    expect('hints' in withUnready && withUnready.hints.size).toBe(2);
  });
});

describe('the endpointslice loop with topology-mode Auto', () => {
  let cluster: TestCluster;
  let client: Client;
  const slicesOf = async () => (await client.list(builtin.endpointSlices, { namespace: 'topo', labelSelector: 'kubernetes.io/service-name=web' })).items;
  const hintsOf = (slices: readonly EndpointSlice[]) =>
    Object.fromEntries(slices.flatMap((s) => s.endpoints).map((e) => [e.addresses[0]!, zonesOf(e.hints)]));

  beforeAll(async () => {
    cluster = await startTestCluster({ controllers: { controllers: ['endpointslice-controller'] } });
    client = cluster.client;
    await createNamespaceWithAccount(client, 'topo');
    for (const n of [node('n1', 'z1', '4'), node('n2', 'z2', '4')]) {
      const { status, ...rest } = n;
      const created = await client.create(builtin.nodes, rest as Node);
      await client.updateStatus(builtin.nodes, { ...created, status });
    }
  });
  afterAll(() => cluster.stop());

  it('writes the hints, and takes them away with a TopologyAwareHintsDisabled Event when they can no longer be given', async () => {
    await client.create(builtin.services, { ...service('web', 'topo', { selector: { app: 'web' }, ports: [httpPort(8080)] }), metadata: { name: 'web', namespace: 'topo', annotations: { 'service.kubernetes.io/topology-mode': 'Auto' } } }, { namespace: 'topo' });
    await runningPod(client, 'topo', 'a', '10.1.0.1', true, { nodeName: 'n1' });
    await runningPod(client, 'topo', 'b', '10.1.0.2', true, { nodeName: 'n2' });
    await eventually(async () => JSON.stringify(hintsOf(await slicesOf())) === JSON.stringify({ '10.1.0.1': 'z1', '10.1.0.2': 'z2' }), 'a hint per zone');
    // A third endpoint on a node without a zone: no hints at all.
    const n3 = await client.create(builtin.nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n3' } } as Node);
    await client.updateStatus(builtin.nodes, { ...n3, status: { allocatable: { cpu: '4' }, conditions: [{ type: 'Ready', status: 'True' }] } });
    await runningPod(client, 'topo', 'c', '10.1.0.3', true, { nodeName: 'n3' });
    await eventually(async () => {
      const hints = hintsOf(await slicesOf());
      return Object.keys(hints).length === 3 && Object.values(hints).every((h) => h === '-');
    }, 'the hints taken away');
    const eventsOf = async (reason: string) => (await client.list(builtin.coreEvents, { namespace: 'topo' })).items.filter((e) => e.reason === reason && e.involvedObject?.name === 'web').map((e) => e.message);
    const disabledEvents = () => eventsOf('TopologyAwareHintsDisabled');
    await eventually(async () => (await disabledEvents()).includes(`${INSUFFICIENT_NODE_INFO}, addressType: IPv4`), 'the TopologyAwareHintsDisabled Event');
    expect(await eventsOf('TopologyAwareHintsEnabled')).toEqual(['Topology Aware Hints has been enabled, addressType: IPv4']);
  });

  it('follows the zones\' CPU shares: a node change alone resyncs the Service', async () => {
    // n3 gets a zone: the shares are whole again (three zones, three endpoints), with no pod event.
    const n3 = await client.get(builtin.nodes, 'n3');
    await client.update(builtin.nodes, { ...n3, metadata: { ...n3.metadata, labels: { ...n3.metadata.labels, 'topology.kubernetes.io/zone': 'z3' } } });
    await eventually(async () => JSON.stringify(hintsOf(await slicesOf())) === JSON.stringify({ '10.1.0.1': 'z1', '10.1.0.2': 'z2', '10.1.0.3': 'z3' }), 'a hint per zone again');
  });
});
