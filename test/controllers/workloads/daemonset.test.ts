// The DaemonSet controller against a real in-process API server: Node objects made by the test,
// pods made Ready through their status (no node agent runs them; no scheduler binds them, so
// each pod is found by the node its affinity names).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DaemonSet, Pod } from '../../../src/api/index.js';
import { builtin, Client } from '../../../src/client/index.js';
import { daemonSetController, targetNodeOf } from '../../../controllers/index.js';
import { startTestServer, TOKEN, type TestServer } from '../../apiserver/harness.js';
import { eventually, loopHarness, type LoopHarness } from '../support.js';
import { createNamespace, createNode, eventsAbout, isReady, livePods, setPodReady, updateWith } from '../workload-support.js';

let server: TestServer;
let client: Client;
let loop: LoopHarness;
// The controller's clock: real time plus what a test adds (minReadySeconds without waiting).
let offsetMs = 0;
const clock = () => Date.now() + offsetMs;

beforeAll(async () => {
  server = await startTestServer('memory', { listen: true });
  client = new Client({ server: server.url!, token: TOKEN });
  loop = loopHarness(client);
  loop.run(daemonSetController(loop.ctx, { concurrency: 2, now: clock }));
});
afterAll(async () => {
  loop.stop();
  await client.destroy();
  await server.close();
});

function daemonSet(name: string, namespace: string, extra: { nodeSelector?: Record<string, string>; tolerations?: unknown[]; strategy?: unknown; image?: string; minReadySeconds?: number } = {}): DaemonSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name, namespace },
    spec: {
      selector: { matchLabels: { app: name } },
      ...(extra.strategy ? { updateStrategy: extra.strategy } : {}),
      ...(extra.minReadySeconds !== undefined ? { minReadySeconds: extra.minReadySeconds } : {}),
      template: {
        metadata: { labels: { app: name } },
        spec: {
          containers: [{ name: 'c', image: extra.image ?? 'busybox:1' }],
          ...(extra.nodeSelector ? { nodeSelector: extra.nodeSelector } : {}),
          ...(extra.tolerations ? { tolerations: extra.tolerations } : {}),
        },
      },
    },
  } as DaemonSet;
}

const podsByNode = async (namespace: string): Promise<Map<string, Pod[]>> => {
  const map = new Map<string, Pod[]>();
  for (const pod of await livePods(client, namespace)) {
    const node = targetNodeOf(pod) ?? '';
    map.set(node, [...(map.get(node) ?? []), pod]);
  }
  return map;
};
const nodesWithPods = async (namespace: string) => [...(await podsByNode(namespace)).keys()].sort();
const getDs = (name: string, namespace: string) => client.get(builtin.daemonSets, name, { namespace });

describe('daemonset controller', () => {
  it('runs one pod on every eligible node: selector, taints, automatic tolerations; nodes added, relabelled and removed', async () => {
    const ns = 'ds-nodes';
    await createNamespace(client, ns);
    await createNode(client, 'web-1', { role: 'web' });
    await createNode(client, 'web-tainted', { role: 'web' }, [{ key: 'dedicated', value: 'db', effect: 'NoSchedule' }]);
    await createNode(client, 'web-cordoned', { role: 'web' }, [{ key: 'node.kubernetes.io/unschedulable', effect: 'NoSchedule' }]);
    await createNode(client, 'web-pressure', { role: 'web' }, [{ key: 'node.kubernetes.io/memory-pressure', effect: 'NoSchedule' }]);
    await createNode(client, 'db-1', { role: 'db' });
    await client.create(builtin.daemonSets, daemonSet('agent', ns, { nodeSelector: { role: 'web' } }), { namespace: ns });

    await eventually(async () => (await nodesWithPods(ns)).join() === 'web-1,web-cordoned,web-pressure', 'pods on the eligible web nodes');
    const [pod] = (await podsByNode(ns)).get('web-1')!;
    // Bound through node affinity by metadata.name, for the scheduler to place it.
    expect(pod!.spec.nodeName).toBeUndefined();
    expect((pod!.spec.affinity as { nodeAffinity: unknown }).nodeAffinity).toEqual({
      requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['web-1'] }] }] },
    });
    const tolerated = (pod!.spec.tolerations ?? []).map((t) => `${t.key}:${t.effect}`).sort();
    expect(tolerated).toEqual([
      'node.kubernetes.io/disk-pressure:NoSchedule',
      'node.kubernetes.io/memory-pressure:NoSchedule',
      'node.kubernetes.io/not-ready:NoExecute',
      'node.kubernetes.io/pid-pressure:NoSchedule',
      'node.kubernetes.io/unreachable:NoExecute',
      'node.kubernetes.io/unschedulable:NoSchedule',
    ]);
    expect(pod!.metadata.labels?.['controller-revision-hash']).toMatch(/^[a-z0-9]+$/);
    expect(pod!.metadata.labels?.['pod-template-generation']).toBe('1');
    expect(pod!.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'DaemonSet', name: 'agent', controller: true });
    await eventually(async () => (await getDs('agent', ns)).status?.desiredNumberScheduled === 3 && (await getDs('agent', ns)).status?.currentNumberScheduled === 3, 'status 3/3');

    // A new eligible node gets its pod; a relabelled one gets one; a removed one loses its (unbound) pod.
    await createNode(client, 'web-2', { role: 'web' });
    await updateWith(client, builtin.nodes, 'db-1', undefined, (db) => ({ ...db, metadata: { ...db.metadata, labels: { ...db.metadata.labels, role: 'web' } } }));
    await eventually(async () => (await nodesWithPods(ns)).join() === 'db-1,web-1,web-2,web-cordoned,web-pressure', 'pods on the new and relabelled nodes');
    await client.delete(builtin.nodes, 'web-2');
    await eventually(async () => (await nodesWithPods(ns)).join() === 'db-1,web-1,web-cordoned,web-pressure', 'the removed node\'s pod gone');
    const status = (await getDs('agent', ns)).status!;
    await eventually(async () => (await getDs('agent', ns)).status?.desiredNumberScheduled === 4, 'desired 4');
    expect(status.numberMisscheduled).toBe(0);
  });

  it('keeps a pod on a node newly tainted NoSchedule (misscheduled), removes it for an untolerated NoExecute taint', async () => {
    const ns = 'ds-taints';
    await createNamespace(client, ns);
    await createNode(client, 'tn-1', { pool: 'taints' });
    await createNode(client, 'tn-2', { pool: 'taints' });
    await client.create(builtin.daemonSets, daemonSet('tainted', ns, { nodeSelector: { pool: 'taints' } }), { namespace: ns });
    await eventually(async () => (await nodesWithPods(ns)).join() === 'tn-1,tn-2', 'a pod on each node');

    const taint = (name: string, effect: 'NoSchedule' | 'NoExecute') => updateWith(client, builtin.nodes, name, undefined, (node) => ({ ...node, spec: { ...node.spec, taints: [{ key: 'maintenance', effect }] } }));
    await taint('tn-1', 'NoSchedule');
    await eventually(async () => (await getDs('tainted', ns)).status?.numberMisscheduled === 1, 'one misscheduled pod');
    expect(await nodesWithPods(ns)).toEqual(['tn-1', 'tn-2']);
    await taint('tn-2', 'NoExecute');
    await eventually(async () => (await nodesWithPods(ns)).join() === 'tn-1', 'the NoExecute node emptied');
    await eventually(async () => (await eventsAbout(client, ns, 'DaemonSet', 'tainted')).some((e) => e.startsWith('SuccessfulDelete: Deleted pod: tainted-')), 'the delete event');
    expect((await eventsAbout(client, ns, 'DaemonSet', 'tainted')).filter((e) => e.startsWith('SuccessfulCreate: Created pod: tainted-'))).toHaveLength(2);
    const status = (await getDs('tainted', ns)).status!;
    expect(status.desiredNumberScheduled).toBe(0);
  });

  it('a hostNetwork daemon tolerates network-unavailable; others do not', async () => {
    const ns = 'ds-hostnet';
    await createNamespace(client, ns);
    await createNode(client, 'hn-1', { pool: 'hostnet' }, [{ key: 'node.kubernetes.io/network-unavailable', effect: 'NoSchedule' }]);
    const hostNetwork = daemonSet('net', ns, { nodeSelector: { pool: 'hostnet' } });
    hostNetwork.spec.template.spec.hostNetwork = true;
    await client.create(builtin.daemonSets, hostNetwork, { namespace: ns });
    await client.create(builtin.daemonSets, daemonSet('plain', ns, { nodeSelector: { pool: 'hostnet' } }), { namespace: ns });
    await eventually(async () => (await getDs('net', ns)).status?.currentNumberScheduled === 1 && (await getDs('plain', ns)).status?.observedGeneration === 1, 'both synced');
    const pods = await livePods(client, ns);
    expect(pods.map((p) => p.metadata.labels?.['app'])).toEqual(['net']);
    expect(pods[0]!.spec.tolerations).toContainEqual({ key: 'node.kubernetes.io/network-unavailable', operator: 'Exists', effect: 'NoSchedule' });
    expect((await getDs('plain', ns)).status?.desiredNumberScheduled).toBe(0);
  });

  it('counts ready and available pods, honouring minReadySeconds', async () => {
    const ns = 'ds-ready';
    await createNamespace(client, ns);
    await createNode(client, 'rd-1', { pool: 'ready' });
    await createNode(client, 'rd-2', { pool: 'ready' });
    await client.create(builtin.daemonSets, daemonSet('ready', ns, { nodeSelector: { pool: 'ready' }, minReadySeconds: 3600 }), { namespace: ns });
    await eventually(async () => (await livePods(client, ns)).length === 2, 'two pods');
    const [first] = await livePods(client, ns);
    await setPodReady(client, first!);
    await eventually(async () => {
      const s = (await getDs('ready', ns)).status;
      return s?.numberReady === 1 && s.numberAvailable === 0 && s.numberUnavailable === 2 && s.updatedNumberScheduled === 2 && s.observedGeneration === 1;
    }, 'one ready, not yet available');
    // An hour later (on the controller's clock), and any change to look again: available.
    offsetMs = 3_600_000;
    await updateWith(client, builtin.daemonSets, 'ready', ns, (ds) => ({ ...ds, metadata: { ...ds.metadata, annotations: { poke: '1' } } }));
    await eventually(async () => {
      const s = (await getDs('ready', ns)).status;
      return s?.numberReady === 1 && s.numberAvailable === 1 && s.numberUnavailable === 1;
    }, 'one ready and available');
    // Left at rest whatever the clock says (the last test restarts the controller on a steady cluster).
    offsetMs = 0;
    await updateWith(client, builtin.daemonSets, 'ready', ns, (ds) => ({ ...ds, spec: { ...ds.spec, minReadySeconds: 0 } }));
    await eventually(async () => (await getDs('ready', ns)).status?.observedGeneration === 2 && (await getDs('ready', ns)).status?.numberAvailable === 1, 'at rest');
  });

  it('rolls a new template out with maxUnavailable 1: never two nodes without a ready pod; revisions kept', async () => {
    const ns = 'ds-roll';
    await createNamespace(client, ns);
    for (const n of ['ro-1', 'ro-2', 'ro-3']) await createNode(client, n, { pool: 'roll' });
    await client.create(builtin.daemonSets, daemonSet('roll', ns, { nodeSelector: { pool: 'roll' } }), { namespace: ns });
    await eventually(async () => (await livePods(client, ns)).length === 3, 'three pods');
    for (const pod of await livePods(client, ns)) await setPodReady(client, pod);
    await eventually(async () => (await getDs('roll', ns)).status?.numberAvailable === 3, 'three available');

    const original = (await getDs('roll', ns)).spec.template;
    await updateWith(client, builtin.daemonSets, 'roll', ns, (d) => ({ ...d, spec: { ...d.spec, template: { ...d.spec.template, spec: { ...d.spec.template.spec, containers: [{ name: 'c', image: 'busybox:2' }] } } } }));
    let worst = 0;
    // The test is the kubelet: each new pod becomes Ready; meanwhile nodes without a ready pod are counted.
    await eventually(async () => {
      const byNode = await podsByNode(ns);
      const unready = ['ro-1', 'ro-2', 'ro-3'].filter((n) => !(byNode.get(n) ?? []).some(isReady)).length;
      worst = Math.max(worst, unready);
      for (const pods of byNode.values()) for (const pod of pods) if (!isReady(pod)) await setPodReady(client, pod);
      const pods = [...byNode.values()].flat();
      return pods.length === 3 && pods.every((p) => p.spec.containers[0]!.image === 'busybox:2' && isReady(p));
    }, 'every node on the new template');
    expect(worst).toBeLessThanOrEqual(1);
    await eventually(async () => (await getDs('roll', ns)).status?.updatedNumberScheduled === 3, 'updated 3');

    const revisions = async () => (await client.list(builtin.controllerRevisions, { namespace: ns })).items.map((r) => r.revision).sort();
    expect(await revisions()).toEqual([1, 2]);
    // Back to the first template: its revision is renumbered the newest, none is added.
    await updateWith(client, builtin.daemonSets, 'roll', ns, (now) => ({ ...now, spec: { ...now.spec, template: original } }));
    await eventually(async () => (await revisions()).join() === '2,3', 'the old revision renumbered 3');
  });

  it('surges with maxSurge 1 and maxUnavailable 0: the new pod is ready before the old one goes', async () => {
    const ns = 'ds-surge';
    await createNamespace(client, ns);
    for (const n of ['su-1', 'su-2']) await createNode(client, n, { pool: 'surge' });
    const strategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } };
    await client.create(builtin.daemonSets, daemonSet('surge', ns, { nodeSelector: { pool: 'surge' }, strategy }), { namespace: ns });
    await eventually(async () => (await livePods(client, ns)).length === 2, 'two pods');
    for (const pod of await livePods(client, ns)) await setPodReady(client, pod);
    await eventually(async () => (await getDs('surge', ns)).status?.numberAvailable === 2, 'two available');

    await updateWith(client, builtin.daemonSets, 'surge', ns, (d) => ({ ...d, spec: { ...d.spec, template: { ...d.spec.template, spec: { ...d.spec.template.spec, containers: [{ name: 'c', image: 'busybox:2' }] } } } }));
    let most = 0;
    let unreadyNodes = 0;
    await eventually(async () => {
      const byNode = await podsByNode(ns);
      most = Math.max(most, ...[...byNode.values()].map((p) => p.length));
      unreadyNodes = Math.max(unreadyNodes, ['su-1', 'su-2'].filter((n) => !(byNode.get(n) ?? []).some(isReady)).length);
      for (const pods of byNode.values()) for (const pod of pods) if (!isReady(pod)) await setPodReady(client, pod);
      const pods = [...byNode.values()].flat();
      return pods.length === 2 && pods.every((p) => p.spec.containers[0]!.image === 'busybox:2');
    }, 'both nodes on the new template');
    expect(most).toBe(2);
    expect(unreadyNodes).toBe(0);
  });

  it('OnDelete: a new template replaces a pod only once it is deleted', async () => {
    const ns = 'ds-ondelete';
    await createNamespace(client, ns);
    await createNode(client, 'od-1', { pool: 'ondelete' });
    await client.create(builtin.daemonSets, daemonSet('od', ns, { nodeSelector: { pool: 'ondelete' }, strategy: { type: 'OnDelete' } }), { namespace: ns });
    await eventually(async () => (await livePods(client, ns)).length === 1, 'one pod');
    await updateWith(client, builtin.daemonSets, 'od', ns, (d) => ({ ...d, spec: { ...d.spec, template: { ...d.spec.template, spec: { ...d.spec.template.spec, containers: [{ name: 'c', image: 'busybox:2' }] } } } }));
    await eventually(async () => (await getDs('od', ns)).status?.observedGeneration === 2, 'generation 2 observed');
    expect((await getDs('od', ns)).status?.updatedNumberScheduled).toBe(0);
    const [old] = await livePods(client, ns);
    expect(old!.spec.containers[0]!.image).toBe('busybox:1');
    await client.delete(builtin.pods, old!.metadata.name!, { namespace: ns });
    await eventually(async () => (await livePods(client, ns)).some((p) => p.spec.containers[0]!.image === 'busybox:2'), 'the replacement on the new template');
    await eventually(async () => (await getDs('od', ns)).status?.updatedNumberScheduled === 1, 'updated 1');
  });

  it('adopts a matching orphan pod on a node instead of making another (OnDelete keeps it)', async () => {
    const ns = 'ds-adopt';
    await createNamespace(client, ns);
    await createNode(client, 'ad-1', { pool: 'adopt' });
    const orphan = await client.create(
      builtin.pods,
      { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'orphan', namespace: ns, labels: { app: 'adopter' } }, spec: { nodeName: 'ad-1', containers: [{ name: 'c', image: 'busybox:1' }] } } as Pod,
      { namespace: ns },
    );
    // OnDelete: the adopted pod lacks the template's hash, which RollingUpdate would replace.
    await client.create(builtin.daemonSets, daemonSet('adopter', ns, { nodeSelector: { pool: 'adopt' }, strategy: { type: 'OnDelete' } }), { namespace: ns });
    await eventually(async () => (await client.get(builtin.pods, 'orphan', { namespace: ns })).metadata.ownerReferences?.[0]?.name === 'adopter', 'the orphan adopted');
    await eventually(async () => (await getDs('adopter', ns)).status?.currentNumberScheduled === 1, 'counted');
    expect((await livePods(client, ns)).map((p) => p.metadata.uid)).toEqual([orphan.metadata.uid]);
  });

  it('replaces a failed daemon pod; a pod failing again on that node waits for the node\'s back-off', async () => {
    const ns = 'ds-failed';
    await createNamespace(client, ns);
    await createNode(client, 'fd-1', { pool: 'failed' });
    await client.create(builtin.daemonSets, daemonSet('crashy', ns, { nodeSelector: { pool: 'failed' } }), { namespace: ns });
    await eventually(async () => (await livePods(client, ns)).length === 1, 'a pod');
    const fail = async (pod: Pod) => client.updateStatus(builtin.pods, { ...pod, status: { ...pod.status, phase: 'Failed', conditions: [{ type: 'Ready', status: 'False' }] } } as Pod, { namespace: ns });
    const [first] = await livePods(client, ns);
    await fail(first!);
    await eventually(async () => {
      const pods = await livePods(client, ns);
      return pods.length === 1 && pods[0]!.metadata.uid !== first!.metadata.uid;
    }, 'the failed pod replaced');
    expect(await eventsAbout(client, ns, 'DaemonSet', 'crashy')).toContain(`FailedDaemonPod: Found failed daemon pod ${ns}/${first!.metadata.name} on node fd-1, will try to kill it`);

    // The controller's clock put back: the node's back-off (1 s after the first deletion) has not run out.
    offsetMs = -600_000;
    const [second] = await livePods(client, ns);
    await setPodReady(client, second!);
    await eventually(async () => (await getDs('crashy', ns)).status?.numberReady === 1, 'ready');
    await fail((await client.get(builtin.pods, second!.metadata.name!, { namespace: ns })));
    await eventually(async () => (await getDs('crashy', ns)).status?.numberReady === 0, 'the failure seen');
    expect((await livePods(client, ns)).map((p) => [p.metadata.uid, p.status?.phase])).toEqual([[second!.metadata.uid, 'Failed']]);
    // Time moves on: the pod goes and is replaced.
    offsetMs = 0;
    await updateWith(client, builtin.daemonSets, 'crashy', ns, (ds) => ({ ...ds, metadata: { ...ds.metadata, annotations: { poke: '1' } } }));
    await eventually(async () => {
      const pods = await livePods(client, ns);
      return pods.length === 1 && pods[0]!.metadata.uid !== second!.metadata.uid;
    }, 'the second failed pod replaced after the back-off');
  });

  it('a controller stopped mid-rollout and started again finishes it with no extra pod', async () => {
    const ns = 'ds-midroll';
    await createNamespace(client, ns);
    for (const n of ['mr-1', 'mr-2', 'mr-3']) await createNode(client, n, { pool: 'midroll' });
    await client.create(builtin.daemonSets, daemonSet('mid', ns, { nodeSelector: { pool: 'midroll' } }), { namespace: ns });
    await eventually(async () => (await livePods(client, ns)).length === 3, 'three pods');
    for (const pod of await livePods(client, ns)) await setPodReady(client, pod);
    await eventually(async () => (await getDs('mid', ns)).status?.numberAvailable === 3, 'three available');
    await updateWith(client, builtin.daemonSets, 'mid', ns, (d) => ({ ...d, spec: { ...d.spec, template: { ...d.spec.template, spec: { ...d.spec.template.spec, containers: [{ name: 'c', image: 'busybox:2' }] } } } }));
    // The first node replaced (its new pod not Ready: the rollout waits), then the controller goes.
    await eventually(async () => (await livePods(client, ns)).filter((p) => p.spec.containers[0]!.image === 'busybox:2').length === 1, 'one node replaced');
    loop.stop();
    let most = 0;
    const restarted = loopHarness(client);
    restarted.run(daemonSetController(restarted.ctx, { concurrency: 2, now: clock }));
    loop = restarted;
    await eventually(async () => {
      const pods = await livePods(client, ns);
      most = Math.max(most, pods.length);
      for (const pod of pods) if (!isReady(pod)) await setPodReady(client, pod);
      return pods.length === 3 && pods.every((p) => p.spec.containers[0]!.image === 'busybox:2' && isReady(p));
    }, 'the rollout finished by the new controller');
    expect(most).toBe(3);
    expect(new Set((await livePods(client, ns)).map((p) => targetNodeOf(p))).size).toBe(3);
  });

  it('a restarted controller at steady state writes nothing', async () => {
    const ns = 'ds-restart';
    await createNamespace(client, ns);
    await createNode(client, 'rs-1', { pool: 'restart' });
    await client.create(builtin.daemonSets, daemonSet('steady', ns, { nodeSelector: { pool: 'restart' } }), { namespace: ns });
    await eventually(async () => (await livePods(client, ns)).length === 1, 'one pod');
    for (const pod of await livePods(client, ns)) await setPodReady(client, pod);
    await eventually(async () => (await getDs('steady', ns)).status?.numberAvailable === 1, 'available');
    // Let every DaemonSet of the suite settle, then restart.
    await eventually(async () => (await getDs('steady', ns)).status?.desiredNumberScheduled === 1, 'settled');
    loop.stop();
    const before = await server.store.revision();
    const restarted = loopHarness(client);
    restarted.run(daemonSetController(restarted.ctx, { concurrency: 2, now: clock }));
    const keys = (await client.list(builtin.daemonSets)).items.length;
    await eventually(() => new Set(restarted.results.map((r) => r.key)).size >= keys, 'every DaemonSet reconciled');
    expect(await server.store.revision()).toBe(before);
    loop = restarted;
  });
});
