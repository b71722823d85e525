import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtin, type Client } from '../../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import { CidrSet, clusterCidrSets, nodeIpamController, parseCidr } from '../../../controllers/index.js';
import { startControllerManagerFromArgs } from '../../../src/cli/controller-manager-command.js';
import { eventually, isGone, loopHarness, type LoopHarness } from '../support.js';

const cidrsOf = async (client: Client, name: string) => (await client.get(builtin.nodes, name)).spec?.podCIDRs;
const makeNode = (client: Client, name: string, podCIDRs?: string[]) =>
  client.create(builtin.nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name }, spec: podCIDRs ? { podCIDR: podCIDRs[0], podCIDRs } : {} });

describe('cluster CIDR options', () => {
  it('cuts a cluster CIDR into node blocks, dual stack with a mask per family', () => {
    const [v4, v6] = clusterCidrSets({ allocatorType: 'RangeAllocator', clusterCidr: '10.244.0.0/16,fd00:10::/56', maskSizeIpv4: 24, maskSizeIpv6: 64 });
    expect(v4!.allocate()).toBe('10.244.0.0/24');
    expect(v4!.allocate()).toBe('10.244.1.0/24');
    expect(v6!.allocate()).toBe('fd00:10::/64');
    expect(v6!.allocate()).toBe('fd00:10:0:1::/64');
    // Single stack: --node-cidr-mask-size; host bits of the cluster CIDR are cleared.
    const [single] = clusterCidrSets({ allocatorType: 'RangeAllocator', clusterCidr: '10.1.2.3/24', maskSize: 26 });
    expect([single!.allocate(), single!.allocate(), single!.allocate(), single!.allocate(), single!.allocate()]).toEqual(['10.1.2.0/26', '10.1.2.64/26', '10.1.2.128/26', '10.1.2.192/26', undefined]);
  });

  it.each([
    [{ clusterCidr: '' }, '--allocate-node-cidrs requires --cluster-cidr'],
    [{ clusterCidr: '10.0.0.0/33' }, '--cluster-cidr: "10.0.0.0/33" is not a CIDR'],
    [{ clusterCidr: '10.0.0.0/8,10.1.0.0/16' }, 'a dual-stack pair needs one IPv4 and one IPv6 CIDR'],
    [{ clusterCidr: '10.0.0.0/8,fd00::/48', maskSize: 24 }, '--node-cidr-mask-size cannot be used with a dual-stack --cluster-cidr'],
    [{ clusterCidr: '10.0.0.0/24', maskSize: 16 }, '--node-cidr-mask-size: the node CIDR mask size /16 is larger than the cluster CIDR 10.0.0.0/24'],
    [{ clusterCidr: '10.0.0.0/8', maskSize: 30 }, 'more than 2^16 blocks'],
    [{ clusterCidr: '10.96.0.0/12', serviceCidr: '10.96.0.0/16' }, '--cluster-cidr 10.96.0.0/12 overlaps --service-cluster-ip-range 10.96.0.0/16'],
    [{ clusterCidr: '10.0.0.0/16', allocatorType: 'CloudAllocator' }, '--cidr-allocator-type "CloudAllocator" is not supported'],
  ])('refuses %j', (settings, message) => {
    expect(() => clusterCidrSets({ allocatorType: 'RangeAllocator', ...settings })).toThrow(message);
  });

  it('refuses bad ranges when the controller manager starts, before it connects', async () => {
    const log = { info: () => {}, error: () => {} } as never;
    await expect(startControllerManagerFromArgs(['--master=https://127.0.0.1:1', '--allocate-node-cidrs', '--cluster-cidr=10.0.0.0/16', '--service-cluster-ip-range=10.0.128.0/20'], log)).rejects.toThrow(
      '--cluster-cidr 10.0.0.0/16 overlaps --service-cluster-ip-range 10.0.128.0/20',
    );
  });

  it('parses and prints IPv6 canonically', () => {
    const set = new CidrSet(parseCidr('2001:db8::/120')!, 124);
    expect(set.allocate()).toBe('2001:db8::/124');
    expect(set.allocate()).toBe('2001:db8::10/124');
  });
});

describe('node-ipam controller', () => {
  let cluster: TestCluster;
  let loop: LoopHarness;
  const settings = { allocatorType: 'RangeAllocator', clusterCidr: '10.200.0.0/22,fd00:200::/62', maskSizeIpv4: 24, maskSizeIpv6: 64 };

  beforeAll(async () => {
    cluster = await startTestCluster();
    // A node that has its block already (from a manager that ran before): kept, and not handed out again.
    await makeNode(cluster.client, 'old', ['10.200.0.0/24', 'fd00:200::/64']);
    loop = loopHarness(cluster.client);
    loop.run(nodeIpamController(loop.ctx, { sets: clusterCidrSets(settings), fullRetryMs: 1_000 }));
  });
  afterAll(async () => {
    loop.stop();
    await cluster.stop();
  });

  it('gives each new node one block per family, keeps existing ones, frees a deleted node\'s, and survives a restart unchanged', async () => {
    await makeNode(cluster.client, 'n1');
    await makeNode(cluster.client, 'n2');
    await eventually(async () => (await cidrsOf(cluster.client, 'n1')) !== undefined && (await cidrsOf(cluster.client, 'n2')) !== undefined, 'blocks for n1 and n2');
    const n1 = await cluster.client.get(builtin.nodes, 'n1');
    expect(n1.spec?.podCIDR).toBe(n1.spec?.podCIDRs?.[0]);
    const given = [...(await cidrsOf(cluster.client, 'n1'))!, ...(await cidrsOf(cluster.client, 'n2'))!];
    expect(new Set(given).size).toBe(4);
    expect(given).not.toContain('10.200.0.0/24');
    expect(given.filter((c) => c.includes('.')).sort()).toEqual(['10.200.1.0/24', '10.200.2.0/24']);
    expect(await cidrsOf(cluster.client, 'old')).toEqual(['10.200.0.0/24', 'fd00:200::/64']);

    // One block of each family is left: n3 takes it, n4 waits (an Event says why) until n1 goes.
    await makeNode(cluster.client, 'n3');
    await eventually(async () => (await cidrsOf(cluster.client, 'n3')) !== undefined, 'a block for n3');
    expect(await cidrsOf(cluster.client, 'n3')).toEqual(['10.200.3.0/24', 'fd00:200:0:3::/64']);
    await makeNode(cluster.client, 'n4');
    await eventually(async () => (await cluster.client.list(builtin.coreEvents, { namespace: 'default' })).items.some((e) => e.reason === 'CIDRNotAvailable' && e.involvedObject.name === 'n4'), 'CIDRNotAvailable for n4');
    expect(await cidrsOf(cluster.client, 'n4')).toBeUndefined();
    const freed = (await cidrsOf(cluster.client, 'n1'))!;
    await cluster.client.delete(builtin.nodes, 'n1');
    await eventually(() => isGone(cluster.client.get(builtin.nodes, 'n1')), 'n1 gone');
    await eventually(async () => (await cidrsOf(cluster.client, 'n4')) !== undefined, "n4 gets n1's blocks");
    expect(await cidrsOf(cluster.client, 'n4')).toEqual(freed);

    // A new controller (a restart) rebuilds what is taken from the Nodes: nothing changes, and
    // with the range full a new node gets nothing rather than someone's block.
    const before = (await cluster.client.list(builtin.nodes)).items.map((n) => [n.metadata.name, n.spec?.podCIDRs, n.metadata.resourceVersion]);
    loop.stop();
    loop = loopHarness(cluster.client);
    loop.run(nodeIpamController(loop.ctx, { sets: clusterCidrSets(settings), fullRetryMs: 1_000 }));
    await makeNode(cluster.client, 'n5');
    await eventually(async () => (await cluster.client.list(builtin.coreEvents, { namespace: 'default' })).items.some((e) => e.reason === 'CIDRNotAvailable' && e.involvedObject.name === 'n5'), 'CIDRNotAvailable for n5');
    const after = (await cluster.client.list(builtin.nodes)).items.filter((n) => n.metadata.name !== 'n5').map((n) => [n.metadata.name, n.spec?.podCIDRs, n.metadata.resourceVersion]);
    expect(after).toEqual(before);
    expect(await cidrsOf(cluster.client, 'n5')).toBeUndefined();
  });
});
