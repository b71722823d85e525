import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isStatusError, type Lease, type Node } from '../../../src/api/index.js';
import { builtin } from '../../../src/client/index.js';
import { nodeStatusDefaults, startNodeStatus, type NodeStatusHandle, type NodeStatusOptions, type StatusCheck } from '../../../src/nodeagent/index.js';
import { startClientTestServer, until, type ClientTestServer } from '../../client/support.js';
import { fixedHost, settableRuntime } from './support.js';

let t: ClientTestServer;
const handles: NodeStatusHandle[] = [];

beforeEach(async () => {
  t = await startClientTestServer();
});
afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.stop()));
  await t.close();
});

const options = (extra: Partial<NodeStatusOptions> = {}): NodeStatusOptions => ({ ...nodeStatusDefaults, nodeIp: '127.0.0.1', ...extra });

function start(extra: Partial<NodeStatusOptions> = {}, more: { runtime?: ReturnType<typeof settableRuntime>; host?: ReturnType<typeof fixedHost>['host']; checkMs?: number; leaseMs?: number; reportMs?: number } = {}) {
  const handle = startNodeStatus({
    client: t.client,
    options: options(extra),
    runtime: more.runtime ?? settableRuntime(),
    host: more.host ?? fixedHost().host,
    version: '0.9.0',
    statusCheckIntervalMs: more.checkMs ?? 20,
    leaseRenewIntervalMs: more.leaseMs ?? 100,
    ...(more.reportMs !== undefined ? { statusReportFrequencyMs: more.reportMs } : {}),
  });
  handles.push(handle);
  return handle;
}

async function nodeWhen(name: string, predicate: (node: Node) => boolean, what: string): Promise<Node> {
  let found: Node | undefined;
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    try {
      const node = await t.client.get(builtin.nodes, name);
      if (predicate(node)) return node;
      found = node;
    } catch (error) {
      if (!isStatusError(error, 'NotFound')) throw error;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}; last seen ${JSON.stringify(found?.status)}`);
}

async function leaseWhen(predicate: (lease: Lease) => boolean, what: string): Promise<Lease> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const lease = await t.client.get(builtin.leases, 'test-host', { namespace: 'svc-node-lease' }).catch(() => undefined);
    if (lease && predicate(lease)) return lease;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const ready = (node: Node) => node.status?.conditions?.find((c) => c.type === 'Ready');
const statusPatches = () => t.requests.filter((url) => url.startsWith('/api/v1/nodes/test-host/status')).length;

describe('node registration', () => {
  it('registers the Node with its labels, taints, addresses, resources, nodeInfo and endpoint', async () => {
    start({
      nodeLabels: { 'node.svc.io/pool': 'blue', 'example.com/team': 'a' },
      registerWithTaints: ['dedicated=infra:NoSchedule', 'gpu:NoExecute'],
      maxPods: 110,
      podsPerCore: 10,
      svcReserved: { cpu: '500m', memory: '1Gi' },
      systemReserved: { cpu: '250m', memory: '512Mi', 'ephemeral-storage': '10Gi' },
      evictionHard: { 'memory.available': '256Mi', 'nodefs.available': '10%' },
      port: 12250,
    });
    // The name is the hostname, lower-cased.
    const node = await nodeWhen('test-host', (n) => ready(n) !== undefined, 'the first status');
    expect(node.metadata.labels).toEqual({
      'svc.io/hostname': 'test-host',
      'svc.io/os': 'linux',
      'svc.io/arch': 'amd64',
      'node.svc.io/pool': 'blue',
      'example.com/team': 'a',
    });
    expect(node.spec?.taints).toEqual([
      { key: 'dedicated', value: 'infra', effect: 'NoSchedule' },
      { key: 'gpu', effect: 'NoExecute' },
    ]);
    expect(node.status?.addresses).toEqual([
      { type: 'InternalIP', address: '127.0.0.1' },
      { type: 'Hostname', address: 'Test-Host' },
    ]);
    // 4 cores × 10 pods per core caps --max-pods 110 at 40.
    expect(node.status?.capacity).toEqual({ cpu: '4', memory: '8388608Ki', pods: '40', 'ephemeral-storage': '104857600Ki' });
    expect(node.status?.allocatable).toEqual({
      cpu: '3250m', // 4 − 0.5 − 0.25
      memory: `${(8 * 1024 - 1024 - 512 - 256) * 1024}Ki`, // 8Gi − 1Gi − 512Mi − memory.available 256Mi
      pods: '40',
      'ephemeral-storage': `${(100 - 10 - 10) * 1024 * 1024}Ki`, // 100Gi − 10Gi − nodefs.available 10 %
    });
    expect(node.status?.nodeInfo).toEqual({
      systemUUID: 'u-1',
      machineID: 'm-1',
      bootID: 'b-1',
      kernelVersion: '6.1.0-test',
      osImage: 'Test Linux 1',
      containerRuntimeVersion: 'testruntime://1.2.3',
      kubeletVersion: 'v0.9.0',
      kubeProxyVersion: 'v0.9.0',
      operatingSystem: 'linux',
      architecture: 'amd64',
    });
    expect(node.status?.daemonEndpoints).toEqual({ kubeletEndpoint: { Port: 12250 } });
    expect(node.status?.conditions?.map((c) => [c.type, c.status])).toEqual([
      ['Ready', 'True'],
      ['MemoryPressure', 'False'],
      ['DiskPressure', 'False'],
      ['PIDPressure', 'False'],
    ]);
  });

  it('names the node by --hostname-override, lower-cased, and caps pods at --max-pods without --pods-per-core', async () => {
    const h = start({ hostnameOverride: 'Worker-7', maxPods: 17 });
    expect(h.nodeName).toBe('worker-7');
    const node = await nodeWhen('worker-7', (n) => n.status?.capacity !== undefined, 'status');
    expect(node.metadata.labels?.['svc.io/hostname']).toBe('worker-7');
    expect(node.status?.capacity?.['pods']).toBe('17');
  });

  it('uses the default eviction thresholds when --eviction-hard is empty, and none with --experimental-allocatable-ignore-eviction', async () => {
    start();
    const node = await nodeWhen('test-host', (n) => n.status?.allocatable !== undefined, 'status');
    // memory.available 100Mi and nodefs.available 10 % by default.
    expect(node.status?.allocatable).toMatchObject({ cpu: '4', memory: `${(8 * 1024 - 100) * 1024}Ki`, 'ephemeral-storage': `${90 * 1024 * 1024}Ki` });
    await handles.pop()!.stop();
    start({ experimentalAllocatableIgnoreEviction: true, reservedCpus: '0-1' });
    await nodeWhen('test-host', (n) => n.status?.allocatable?.['memory'] === '8388608Ki', 'allocatable without thresholds');
    const again = await t.client.get(builtin.nodes, 'test-host');
    expect(again.status?.allocatable?.['cpu']).toBe('2'); // --reserved-cpus 0-1 takes two cores
  });

  it('reconciles an existing Node instead of creating another', async () => {
    const before = await t.client.create(builtin.nodes, {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'test-host', labels: { 'svc.io/os': 'windows', keep: 'me' } },
      spec: { taints: [{ key: 'admin', effect: 'NoSchedule' }] },
    });
    start({ registerWithTaints: ['dedicated=infra:NoSchedule', 'admin:NoSchedule'] });
    const node = await nodeWhen('test-host', (n) => ready(n) !== undefined, 'status');
    expect(node.metadata.uid).toBe(before.metadata.uid);
    expect(node.metadata.labels).toEqual({ 'svc.io/os': 'linux', keep: 'me', 'svc.io/hostname': 'test-host', 'svc.io/arch': 'amd64' });
    expect(node.spec?.taints).toEqual([
      { key: 'admin', effect: 'NoSchedule' },
      { key: 'dedicated', value: 'infra', effect: 'NoSchedule' },
    ]);
    expect((await t.client.list(builtin.nodes)).items).toHaveLength(1);
    // No RegisteredNode event for a Node that was already there.
    await until(() => handles[0]!.eventStats().written >= 1, 'the NodeReady event');
    const reasons = (await t.client.list(builtin.coreEvents, { namespace: 'default' })).items.map((e) => e.reason);
    expect(reasons).toEqual(['NodeReady']);
  });

  it('with --register-node=false creates nothing and posts status once someone else creates the Node', async () => {
    const h = start({ registerNode: false });
    const checks: StatusCheck[] = [];
    h.checks$.subscribe((c) => checks.push(c));
    await until(() => t.requests.filter((u) => u.startsWith('/api/v1/nodes/test-host')).length >= 3, 'registration polling');
    expect(t.requests.some((u) => u === '/api/v1/nodes' || u.startsWith('/api/v1/nodes?'))).toBe(false);
    await expect(t.client.get(builtin.nodes, 'test-host')).rejects.toMatchObject({ reason: 'NotFound' });
    await t.client.create(builtin.nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'test-host', labels: { mine: 'yes' } } });
    const node = await nodeWhen('test-host', (n) => ready(n)?.status === 'True', 'status on the foreign Node');
    expect(node.metadata.labels).toEqual({ mine: 'yes' }); // not reconciled: the agent does not register
    expect(checks.some((c) => c.posted)).toBe(true);
  });

  it('rejects bad options with a 400 Status before writing anything', () => {
    const bad: Partial<NodeStatusOptions>[] = [
      { registerWithTaints: ['novalue:Sometimes'] },
      { registerWithTaints: ['=v:NoSchedule'] },
      { evictionHard: { 'memory.available': 'lots' } },
      { evictionHard: { 'nodefs.available': '120%' } },
      { svcReserved: { gpu: '1' } },
      { systemReserved: { memory: '-1Gi' } },
      { reservedCpus: '3-1' },
      { nodeIp: '203.0.113.99' },
      { hostnameOverride: 'not_a_dns_name' },
    ];
    for (const extra of bad) {
      let error: unknown;
      try {
        start(extra);
      } catch (e) {
        error = e;
      }
      expect(isStatusError(error, 'BadRequest'), JSON.stringify(extra)).toBe(true);
    }
    expect(t.requests).toEqual([]);
  });
});

describe('node status updates', () => {
  it('writes the status only when it changes or the frequency has passed', async () => {
    const runtime = settableRuntime();
    const fixed = fixedHost();
    const h = start({}, { runtime, host: fixed.host, reportMs: 3_600_000 });
    const checks: StatusCheck[] = [];
    h.checks$.subscribe((c) => checks.push(c));
    await nodeWhen('test-host', (n) => ready(n)?.status === 'True', 'the first status');
    const after = checks.length;
    await until(() => checks.length >= after + 10, 'ten more checks');
    // Ten checks of an unchanged node: no write beyond the first.
    expect(statusPatches()).toBe(1);
    expect(checks.filter((c) => c.posted)).toHaveLength(1);

    // Ready follows the runtime at the next check, in one write.
    runtime.set({ ready: false, message: 'container runtime not ready: RuntimeReady=false reason:Down message:gone' });
    const notReady = await nodeWhen('test-host', (n) => ready(n)?.status === 'False', 'Ready=False');
    expect(ready(notReady)).toMatchObject({ reason: 'NodeAgentNotReady', message: expect.stringContaining('RuntimeReady=false') });
    expect(statusPatches()).toBe(2);

    // Memory below memory.available (default 100Mi): MemoryPressure, in one more write.
    fixed.figures.memAvailable = 50 * 2 ** 20;
    const pressured = await nodeWhen('test-host', (n) => n.status?.conditions?.find((c) => c.type === 'MemoryPressure')?.status === 'True', 'MemoryPressure');
    expect(pressured.status?.conditions?.find((c) => c.type === 'MemoryPressure')?.reason).toBe('NodeAgentHasInsufficientMemory');
    expect(statusPatches()).toBe(3);

    runtime.set({ ready: true, message: '' });
    await nodeWhen('test-host', (n) => ready(n)?.status === 'True', 'Ready again');
    // Four writes: three Events created, and the second NodeReady counted on the first (count 2).
    await until(() => h.eventStats().written >= 4, 'four event writes');
    const events = (await t.client.list(builtin.coreEvents, { namespace: 'default' })).items;
    expect(events.map((e) => [e.reason, e.count]).sort()).toEqual([
      ['NodeNotReady', 1],
      ['NodeReady', 2],
      ['RegisteredNode', 1],
    ]);
    expect(events.every((e) => e.involvedObject.kind === 'Node' && e.involvedObject.name === 'test-host' && e.source?.component === 'nodeagent')).toBe(true);
  });

  it('writes an unchanged status again once the report frequency has passed, with a new heartbeat', async () => {
    const h = start({}, { reportMs: 150 });
    const posts: StatusCheck[] = [];
    h.checks$.subscribe((c) => c.posted && posts.push(c));
    await until(() => posts.some((c) => c.posted && c.reason === 'due'), 'a write because the frequency passed');
    const first = await nodeWhen('test-host', (n) => ready(n) !== undefined, 'status');
    const transition = ready(first)!['lastTransitionTime'];
    const later = await nodeWhen('test-host', (n) => ready(n)!['lastHeartbeatTime'] !== ready(first)!['lastHeartbeatTime'], 'a new heartbeat');
    expect(ready(later)!['lastTransitionTime']).toBe(transition);
  });

  it('keeps a pressure condition for the transition period after its cause is gone', async () => {
    const fixed = fixedHost({ fsAvailable: 1 * 2 ** 30 }); // 1Gi of 100Gi: below nodefs.available 10 %
    const h = start({ evictionPressureTransitionPeriod: 3_600_000 }, { host: fixed.host });
    const checks: StatusCheck[] = [];
    h.checks$.subscribe((c) => checks.push(c));
    await nodeWhen('test-host', (n) => n.status?.conditions?.find((c) => c.type === 'DiskPressure')?.status === 'True', 'DiskPressure');
    fixed.figures.fsAvailable = 60 * 2 ** 30;
    const seen = checks.length;
    await until(() => checks.length >= seen + 10, 'ten checks without the cause');
    expect(statusPatches()).toBe(1);
    const node = await t.client.get(builtin.nodes, 'test-host');
    expect(node.status?.conditions?.find((c) => c.type === 'DiskPressure')?.status).toBe('True');
    // The condition's NoSchedule taint is on the Node with it.
    expect(node.spec?.taints).toEqual([{ key: 'node.kubernetes.io/disk-pressure', effect: 'NoSchedule' }]);
  });

  it('puts the pressure taint on the Node while the condition is True and takes it off after, keeping other taints', async () => {
    const fixed = fixedHost({ fsAvailable: 1 * 2 ** 30 });
    start({ evictionPressureTransitionPeriod: 0, registerWithTaints: ['dedicated=db:NoSchedule'] }, { host: fixed.host });
    const taintKeys = (n: { spec?: { taints?: { key: string }[] } }) => (n.spec?.taints ?? []).map((x) => x.key);
    await nodeWhen('test-host', (n) => taintKeys(n).includes('node.kubernetes.io/disk-pressure'), 'the disk-pressure taint');
    fixed.figures.fsAvailable = 60 * 2 ** 30;
    const node = await nodeWhen('test-host', (n) => !taintKeys(n).includes('node.kubernetes.io/disk-pressure'), 'the disk-pressure taint gone');
    expect(node.spec?.taints).toEqual([{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }]);
  });

  it('registers the Node again when it is deleted (found at the next write)', async () => {
    start({}, { reportMs: 200 });
    const first = await nodeWhen('test-host', (n) => ready(n) !== undefined, 'status');
    await t.client.delete(builtin.nodes, 'test-host');
    const second = await nodeWhen('test-host', (n) => n.metadata.uid !== first.metadata.uid && ready(n) !== undefined, 'a new Node');
    expect(second.metadata.labels?.['svc.io/hostname']).toBe('test-host');
  });
});

describe('node lease', () => {
  it('creates the Lease owned by the Node and renews it', async () => {
    start();
    const node = await nodeWhen('test-host', (n) => ready(n) !== undefined, 'status');
    let lease: Lease | undefined;
    await until(() => t.requests.some((u) => u.startsWith('/apis/coordination.svc.io/v1/namespaces/svc-node-lease/leases')), 'a lease request');
    const deadline = Date.now() + 20_000;
    while (!lease && Date.now() < deadline) {
      lease = await t.client.get(builtin.leases, 'test-host', { namespace: 'svc-node-lease' }).catch(() => undefined);
      if (!lease) await new Promise((r) => setTimeout(r, 20));
    }
    expect(lease?.spec).toMatchObject({ holderIdentity: 'test-host', leaseDurationSeconds: 40 });
    expect(lease?.spec?.renewTime).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    expect(lease?.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Node', name: 'test-host', uid: node.metadata.uid }]);
    const firstRenew = lease!.spec!.renewTime!;
    let renewed: Lease | undefined;
    while (Date.now() < deadline) {
      renewed = await t.client.get(builtin.leases, 'test-host', { namespace: 'svc-node-lease' });
      if (renewed.spec!.renewTime! > firstRenew) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(renewed!.spec!.renewTime! > firstRenew).toBe(true);
    expect(Number(renewed!.metadata.resourceVersion)).toBeGreaterThan(Number(lease!.metadata.resourceVersion));
    expect((await t.client.list(builtin.leases, { namespace: 'svc-node-lease' })).items).toHaveLength(1);
  });

  it('takes over a Lease that exists, and renews after someone else wrote it', async () => {
    await t.client.create(builtin.nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'test-host' } });
    await t.client.create(builtin.leases, { apiVersion: 'coordination.svc.io/v1', kind: 'Lease', metadata: { name: 'test-host', namespace: 'svc-node-lease' }, spec: { holderIdentity: 'old' } });
    start();
    const lease = await leaseWhen((l) => l.spec?.holderIdentity === 'test-host', 'the agent to take the Lease');
    // Someone else writes it: the agent's next renewal conflicts, reads again and still renews.
    await t.client.update(builtin.leases, { ...lease, spec: { ...lease.spec, holderIdentity: 'intruder' } });
    const renewed = await leaseWhen((l) => l.spec?.holderIdentity === 'test-host' && l.spec.renewTime! > lease.spec!.renewTime!, 'a renewal after the conflict');
    expect(renewed.metadata.ownerReferences?.[0]?.kind).toBe('Node');
  });
  it('registers the Node again when its Lease is found gone with it, without waiting for a status write', async () => {
    // An unchanged status is written again only after an hour here: the Lease renewal finds the deletion.
    const h = start({}, { reportMs: 3_600_000 });
    const first = await nodeWhen('test-host', (n) => ready(n) !== undefined, 'status');
    await leaseWhen((l) => l.spec?.holderIdentity === 'test-host', 'the Lease');
    const posted: StatusCheck[] = [];
    h.checks$.subscribe((c) => c.posted && posted.push(c));
    // What the garbage collector does when a Node is deleted: its Lease (owned by it) goes too.
    await t.client.delete(builtin.nodes, 'test-host');
    await t.client.delete(builtin.leases, 'test-host', { namespace: 'svc-node-lease' });
    const second = await nodeWhen('test-host', (n) => n.metadata.uid !== first.metadata.uid && ready(n) !== undefined, 'a new Node');
    const lease = await leaseWhen((l) => l.metadata.ownerReferences?.[0]?.uid === second.metadata.uid, 'a Lease owned by the new Node');
    expect(lease.spec?.holderIdentity).toBe('test-host');
    // The new Node's first status is the only status write: no write found the deletion.
    expect(posted.map((c) => c.posted && c.node.metadata.uid)).toEqual([second.metadata.uid]);
    // The handle's Node is the one registered last (its annotations carry the object cache TTL).
    expect(h.node()?.metadata.uid).toBe(second.metadata.uid);
  });
});
