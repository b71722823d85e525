import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtin } from '../../../src/client/index.js';
import { startTestCluster, VirtualTime, type TestCluster } from '../../../src/testing/index.js';
import { nodeLifecycleController, taintEvictionController, zoneRate, zoneState, type ZoneState } from '../../../controllers/index.js';
import { eventually, loopHarness, type LoopHarness } from '../support.js';
import { agentBack, cachesHold, createBoundPod, createSimNode, GRACE, lifecycleOptions, PERIOD, readyOf, renewLeases, taintsOf } from './node-sim.js';

// The node lifecycle and taint-eviction loops on a test cluster, on virtual time: nodes are
// simulated (the test writes their status and Leases, as agents would), the monitor passes every
// 5 s of virtual time, the grace period is 40 s.
const UNREACHABLE = ['node.kubernetes.io/unreachable:NoExecute', 'node.kubernetes.io/unreachable:NoSchedule'];

describe('node lifecycle and taint eviction', () => {
  let cluster: TestCluster;
  let lifecycle: LoopHarness;
  let eviction: LoopHarness;
  const time = new VirtualTime(Date.now());
  const client = () => cluster.client;

  beforeAll(async () => {
    cluster = await startTestCluster();
    lifecycle = loopHarness(cluster.client);
    eviction = loopHarness(cluster.client);
    lifecycle.run(
      nodeLifecycleController(lifecycle.ctx, lifecycleOptions(time)),
    );
    eviction.run(taintEvictionController(eviction.ctx, { scheduler: time }));
  });
  afterAll(async () => {
    lifecycle.stop();
    eviction.stop();
    await cluster.stop();
  });

  /** One monitor period: the live nodes renew first, the loop's cache holds the renewals, then the pass runs and is waited for. */
  async function period(live: readonly string[]): Promise<void> {
    await cachesHold(lifecycle.ctx, await renewLeases(client(), live, time.now() + PERIOD));
    const before = lifecycle.results.length;
    await time.advanceBy(PERIOD);
    await eventually(() => lifecycle.results.length > before, 'a monitor pass');
  }
  const pod = (name: string) => client().get(builtin.pods, name, { namespace: 'default' });
  const evicted = async (name: string) => {
    try {
      return (await pod(name)).metadata.deletionTimestamp !== undefined;
    } catch (error) {
      if ((error as { code?: number }).code === 404) return true;
      throw error;
    }
  };

  it("marks a node whose Lease stops Unknown and taints it, evicts its pods after their tolerationSeconds, and lifts the taints when it renews again", async () => {
    // The first pass (at start) has run before the nodes exist: the loop hears of them at the next one.
    await time.advanceBy(0);
    await eventually(() => lifecycle.results.length > 0, 'the first pass');
    const quietWrites = await createSimNode(client(), 'quiet', time.now());
    const liveWrites = await createSimNode(client(), 'live', time.now());
    // The API server's DefaultTolerationSeconds gives each pod 300 s for not-ready and unreachable, unless it says otherwise.
    await createBoundPod(client(), 'defaulted', 'quiet');
    await createBoundPod(client(), 'short', 'quiet', [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 }]);
    await createBoundPod(client(), 'forever', 'quiet', [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute' }]);
    await createBoundPod(client(), 'elsewhere', 'live');
    expect((await pod('defaulted')).spec.tolerations).toEqual(
      expect.arrayContaining([
        { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
        { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      ]),
    );

    // The loop first hears of the nodes at its next pass: the grace period counts from there. Its
    // cache holds them whole first (Ready heartbeat, Lease), else a later pass hears of them again.
    await cachesHold(lifecycle.ctx, quietWrites, liveWrites);
    await period(['live']);
    // Within the grace period nothing happens to the silent node.
    for (let t = 0; t < GRACE; t += PERIOD) await period(['live']);
    expect(await readyOf(client(), 'quiet')).toBe('True');
    expect(await taintsOf(client(), 'quiet')).toEqual([]);
    // One period more and its conditions are Unknown, it is tainted, its pods are not ready.
    await period(['live']);
    await eventually(async () => (await readyOf(client(), 'quiet')) === 'Unknown', 'quiet Unknown');
    const quiet = await client().get(builtin.nodes, 'quiet');
    expect(quiet.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ reason: 'NodeStatusUnknown', message: 'Node agent stopped posting node status.' });
    expect(quiet.status?.conditions?.find((c) => c.type === 'MemoryPressure')?.status).toBe('Unknown');
    expect(await taintsOf(client(), 'quiet')).toEqual(UNREACHABLE);
    expect(await readyOf(client(), 'live')).toBe('True');
    expect(await taintsOf(client(), 'live')).toEqual([]);
    await period(['live']);
    await eventually(async () => (await pod('defaulted')).status?.conditions?.find((c) => c.type === 'Ready')?.status === 'False', 'pods on the node not ready');
    expect((await pod('elsewhere')).status?.conditions?.find((c) => c.type === 'Ready')?.status).toBe('True');

    // 'short' tolerates the taint for 60 s (from the taint's timeAdded, kept in whole seconds).
    for (let t = PERIOD; t < 55_000; t += PERIOD) await period(['live']);
    expect(await evicted('short')).toBe(false);
    for (let t = 0; t < 10_000; t += PERIOD) await period(['live']);
    await eventually(() => evicted('short'), "'short' evicted");
    expect(await evicted('defaulted')).toBe(false);
    expect(await evicted('forever')).toBe(false);
    // 'defaulted' goes after its 300 s, 'forever' stays, 'elsewhere' was never touched.
    for (let t = 65_000; t < 305_000; t += PERIOD) await period(['live']);
    await eventually(() => evicted('defaulted'), "'defaulted' evicted");
    const gone = await pod('defaulted');
    expect(gone.status?.conditions?.find((c) => c.type === 'DisruptionTarget')).toMatchObject({ status: 'True', reason: 'DeletionByTaintManager' });
    expect(await evicted('forever')).toBe(false);
    expect(await evicted('elsewhere')).toBe(false);

    // The agent comes back: the next pass lifts both taints.
    await cachesHold(lifecycle.ctx, await agentBack(client(), 'quiet', time.now()));
    await period(['live', 'quiet']);
    await eventually(async () => (await taintsOf(client(), 'quiet')).length === 0, 'taints lifted');
    expect(await readyOf(client(), 'quiet')).toBe('True');
  });

  it('taints a node whose Ready is False not-ready, and evicts pods that do not tolerate a NoExecute taint at once', async () => {
    const sickWrites = await createSimNode(client(), 'sick', time.now());
    await createBoundPod(client(), 'intolerant', 'sick');
    await createBoundPod(client(), 'tolerant', 'sick', [{ key: 'example.com/maintenance', operator: 'Exists', effect: 'NoExecute' }]);
    const node = await client().get(builtin.nodes, 'sick');
    const notReady = await client().updateStatus(builtin.nodes, { ...node, status: { ...node.status, conditions: node.status!.conditions!.map((c) => (c.type === 'Ready' ? { ...c, status: 'False' } : c)) } });
    // The pass is to judge the Ready=False version (one pass, then the taints are awaited).
    await cachesHold(lifecycle.ctx, sickWrites, { nodes: [notReady] });
    await period(['live', 'quiet', 'sick']);
    await eventually(async () => (await taintsOf(client(), 'sick')).join() === 'node.kubernetes.io/not-ready:NoExecute,node.kubernetes.io/not-ready:NoSchedule', 'not-ready taints');
    // A NoExecute taint no pod here tolerates except 'tolerant' (it has the 300 s default for not-ready).
    await client().patch(builtin.nodes, 'sick', { spec: { taints: [...(await client().get(builtin.nodes, 'sick')).spec!.taints!, { key: 'example.com/maintenance', effect: 'NoExecute' }] } });
    await eventually(() => evicted('intolerant'), "'intolerant' evicted");
    expect(await evicted('tolerant')).toBe(false);
  });

  it('judges a healthy node again when it changes: a managed taint put on a Ready node is lifted at the next pass', async () => {
    await cachesHold(lifecycle.ctx, await createSimNode(client(), 'steady', time.now()));
    const live = ['live', 'quiet', 'sick', 'steady'];
    // Passes that find it Ready and untainted: nothing to write, and it stays so.
    for (let i = 0; i < 3; i++) await period(live);
    expect(await taintsOf(client(), 'steady')).toEqual([]);
    // A taint of this loop's put on the Ready node (a new version of it) is the loop's to lift.
    const tainted = await client().patch(builtin.nodes, 'steady', { spec: { taints: [{ key: 'node.kubernetes.io/not-ready', effect: 'NoSchedule' }] } });
    await cachesHold(lifecycle.ctx, { nodes: [tainted] });
    await period(live);
    await eventually(async () => (await taintsOf(client(), 'steady')).length === 0, 'the taint lifted');
    expect(await readyOf(client(), 'steady')).toBe('True');
  });
});

describe('zone states and eviction rates', () => {
  let cluster: TestCluster;
  let lifecycle: LoopHarness;
  const time = new VirtualTime(Date.now());
  const states: Array<ReadonlyMap<string, ZoneState>> = [];
  const zoneA = ['a1', 'a2', 'a3', 'a4'];
  const zoneB = ['b1', 'b2'];

  beforeAll(async () => {
    cluster = await startTestCluster();
    lifecycle = loopHarness(cluster.client);
    for (const name of zoneA) await createSimNode(cluster.client, name, time.now(), { zone: 'a' });
    for (const name of zoneB) await createSimNode(cluster.client, name, time.now(), { zone: 'b' });
    lifecycle.run(
      nodeLifecycleController(lifecycle.ctx, lifecycleOptions(time, { evictionRate: 0.1, onZoneStates: (s) => states.push(new Map(s)) })),
    );
  });
  afterAll(async () => {
    lifecycle.stop();
    await cluster.stop();
  });

  async function period(live: readonly string[]): Promise<void> {
    await cachesHold(lifecycle.ctx, await renewLeases(cluster.client, live, time.now() + PERIOD));
    const before = lifecycle.results.length;
    await time.advanceBy(PERIOD);
    await eventually(() => lifecycle.results.length > before, 'a monitor pass');
  }
  const last = () => states.at(-1)!;
  const zone = (z: string) => `:\x00:${z}`;
  const noExecute = async (name: string) => (await taintsOf(cluster.client, name)).some((t) => t.endsWith(':NoExecute'));

  it('goes Normal → PartialDisruption (no NoExecute taints in a small zone) → FullDisruption (primary rate) → all zones down (taints lifted)', async () => {
    await period([...zoneA, ...zoneB]);
    expect(last().get(zone('a'))).toBe('Normal');
    expect(last().get(zone('b'))).toBe('Normal');

    // Three of four in zone a go silent: 75 % not ready is a partial disruption; a zone of 4
    // nodes is not large, so its rate is 0: NoSchedule taints only.
    const aliveA = ['a4'];
    for (let t = 0; t <= GRACE; t += PERIOD) await period([...aliveA, ...zoneB]);
    await period([...aliveA, ...zoneB]);
    expect(last().get(zone('a'))).toBe('PartialDisruption');
    expect(last().get(zone('b'))).toBe('Normal');
    for (const name of ['a1', 'a2', 'a3']) {
      expect(await taintsOf(cluster.client, name)).toEqual(['node.kubernetes.io/unreachable:NoSchedule']);
    }

    // Zone b goes down entirely: FullDisruption, at the primary rate (0.1/s: one node per 10 s).
    for (let t = 0; t <= GRACE; t += PERIOD) await period(aliveA);
    await period(aliveA);
    expect(last().get(zone('b'))).toBe('FullDisruption');
    expect(last().get(zone('a'))).toBe('PartialDisruption');
    const taintedB = async () => (await Promise.all(zoneB.map(noExecute))).filter(Boolean).length;
    expect(await taintedB()).toBe(1);
    await period(aliveA);
    await period(aliveA);
    expect(await taintedB()).toBe(2);
    for (const name of ['a1', 'a2', 'a3']) expect(await noExecute(name)).toBe(false);

    // The last node of zone a goes too: every zone is down, which looks like this side's
    // trouble rather than every node's: no node keeps a NoExecute taint.
    for (let t = 0; t <= GRACE; t += PERIOD) await period([]);
    await period([]);
    expect(last().get(zone('a'))).toBe('FullDisruption');
    expect(last().get(zone('b'))).toBe('FullDisruption');
    for (const name of [...zoneA, ...zoneB]) {
      expect(await noExecute(name)).toBe(false);
      expect(await taintsOf(cluster.client, name)).toEqual(['node.kubernetes.io/unreachable:NoSchedule']);
    }

    // Zone b comes back: zone a (fully down) is tainted again at the primary rate.
    for (const name of zoneB) await cachesHold(lifecycle.ctx, await agentBack(cluster.client, name, time.now()));
    await period(zoneB);
    expect(last().get(zone('b'))).toBe('Normal');
    expect(last().get(zone('a'))).toBe('FullDisruption');
    await period(zoneB);
    await period(zoneB);
    expect((await Promise.all(zoneA.map(noExecute))).filter(Boolean).length).toBeGreaterThanOrEqual(1);
    expect(await taintsOf(cluster.client, 'b1')).toEqual([]);
  });
});

describe('a restarted node lifecycle controller', () => {
  let cluster: TestCluster;
  const time = new VirtualTime(Date.now());
  const options = lifecycleOptions(time);
  let loops: LoopHarness[] = [];
  const start = () => {
    const lifecycle = loopHarness(cluster.client);
    const eviction = loopHarness(cluster.client);
    lifecycle.run(nodeLifecycleController(lifecycle.ctx, options));
    eviction.run(taintEvictionController(eviction.ctx, { scheduler: time }));
    loops = [lifecycle, eviction];
  };
  async function period(live: readonly string[]): Promise<void> {
    await cachesHold(loops[0]!.ctx, await renewLeases(cluster.client, live, time.now() + PERIOD));
    const before = loops[0]!.results.length;
    await time.advanceBy(PERIOD);
    await eventually(() => loops[0]!.results.length > before, 'a monitor pass');
  }

  beforeAll(async () => {
    cluster = await startTestCluster();
    await createSimNode(cluster.client, 'steady', time.now());
    await createSimNode(cluster.client, 'lagging', time.now());
    await createBoundPod(cluster.client, 'on-steady', 'steady');
    await createBoundPod(cluster.client, 'on-lagging', 'lagging', [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 0 }]);
  });
  afterAll(async () => {
    for (const loop of loops) loop.stop();
    await cluster.stop();
  });

  it('writes nothing and evicts nothing for healthy nodes, and gives a silent node a fresh grace period', async () => {
    start();
    // 'lagging' goes silent; 30 s later (within the 40 s grace) the controllers restart.
    for (let t = 0; t < 30_000; t += PERIOD) await period(['steady']);
    const before = (await cluster.client.list(builtin.nodes)).items.map((n) => [n.metadata.name, n.metadata.resourceVersion]);
    const pods = (await cluster.client.list(builtin.pods, { namespace: 'default' })).items.map((p) => [p.metadata.name, p.metadata.resourceVersion]);
    for (const loop of loops) loop.stop();
    start();
    // The old controller would have judged 'lagging' at 45 s; the new one first heard of it at the restart.
    for (let t = 0; t < GRACE; t += PERIOD) await period(['steady']);
    expect((await cluster.client.list(builtin.nodes)).items.map((n) => [n.metadata.name, n.metadata.resourceVersion])).toEqual(before);
    expect((await cluster.client.list(builtin.pods, { namespace: 'default' })).items.map((p) => [p.metadata.name, p.metadata.resourceVersion])).toEqual(pods);
    // Its grace since the restart over, it is judged (and its pod, tolerating 0 s, evicted).
    await period(['steady']);
    await period(['steady']);
    await eventually(async () => (await readyOf(cluster.client, 'lagging')) === 'Unknown', 'lagging Unknown');
    await eventually(async () => (await cluster.client.get(builtin.pods, 'on-lagging', { namespace: 'default' })).metadata.deletionTimestamp !== undefined, "'on-lagging' evicted");
    expect((await cluster.client.get(builtin.pods, 'on-steady', { namespace: 'default' })).metadata.deletionTimestamp).toBeUndefined();
    expect(await taintsOf(cluster.client, 'steady')).toEqual([]);
  });
});

describe('zone states and rates (the rules alone)', () => {
  it('counts a zone unhealthy from three not-ready nodes making the threshold, fully disrupted with none ready', () => {
    expect(zoneState(10, 0, 0.55)).toBe('Normal');
    expect(zoneState(0, 2, 0.55)).toBe('FullDisruption');
    expect(zoneState(1, 2, 0.55)).toBe('Normal'); // two not ready are never a partial disruption
    expect(zoneState(2, 3, 0.55)).toBe('PartialDisruption'); // 3/5 = 0.6
    expect(zoneState(9, 11, 0.55)).toBe('PartialDisruption'); // exactly 0.55
    expect(zoneState(10, 10, 0.55)).toBe('Normal'); // 0.5
    expect(zoneState(0, 0, 0.55)).toBe('Normal');
  });

  it('uses the primary rate when Normal or fully disrupted, the secondary one only in a large partially disrupted zone', () => {
    const rates = { primary: 0.1, secondary: 0.01, largeClusterThreshold: 50 };
    expect(zoneRate('Normal', 10, rates)).toBe(0.1);
    expect(zoneRate('FullDisruption', 10, rates)).toBe(0.1);
    expect(zoneRate('PartialDisruption', 51, rates)).toBe(0.01);
    expect(zoneRate('PartialDisruption', 50, rates)).toBe(0);
  });
});
