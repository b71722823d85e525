// The ReplicaSet and ReplicationController loops against a real svc-apiserver: replicas kept,
// orphans adopted, non-matching pods released, scale-down in upstream's rank order, the status
// counts, ReplicaFailure on a refused create, minReadySeconds on an injected clock, and a restart
// at steady state that writes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReplicaSet } from '../../../src/api/index.js';
import { builtin, Client } from '../../../src/client/index.js';
import { replicaSetController, replicationControllerController, type ControllerResult } from '../../../controllers/index.js';
import { startTestServer, TOKEN, type TestServer } from '../../apiserver/harness.js';
import { eventually, loopHarness, type LoopHarness } from '../support.js';
import { createNamespace, livePods, makeReady } from './replica-fixtures.js';
import { OffsetClock } from './offset-clock.js';

const NS = 'rs';
let server: TestServer;
let client: Client;
let loop: LoopHarness;
const clock = new OffsetClock();

const container = { name: 'c', image: 'busybox' };
function replicaSet(name: string, replicas: number, extra: Partial<ReplicaSet['spec']> = {}): ReplicaSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name, namespace: NS },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name, tier: 'web' } }, spec: { containers: [container] } }, ...extra },
  };
}
const getRs = (name: string) => client.get(builtin.replicaSets, name, { namespace: NS });
const podsOf = (name: string) => livePods(client, NS, `app=${name}`);

beforeAll(async () => {
  server = await startTestServer('memory', { listen: true });
  client = new Client({ server: server.url!, token: TOKEN });
  await createNamespace(client, NS);
  loop = loopHarness(client);
  loop.run(replicaSetController(loop.ctx, { now: clock.now, scheduler: clock }));
  loop.run(replicationControllerController(loop.ctx, { now: clock.now, scheduler: clock }));
});
afterAll(async () => {
  loop.stop();
  await client.destroy();
  await server.close();
});

describe('replicaset-controller', () => {
  it('creates the replicas from the template, owned, and counts them ready and available', async () => {
    await client.create(builtin.replicaSets, replicaSet('web', 3), { namespace: NS });
    await eventually(async () => (await podsOf('web')).length === 3, 'three pods');
    const rs = await getRs('web');
    const pods = await podsOf('web');
    for (const pod of pods) {
      expect(pod.metadata.generateName).toBe('web-');
      expect(pod.metadata.labels).toEqual({ app: 'web', tier: 'web' });
      expect(pod.metadata.ownerReferences).toEqual([{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: rs.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    }
    await eventually(async () => (await getRs('web')).status?.fullyLabeledReplicas === 3, 'fullyLabeledReplicas 3');
    expect((await getRs('web')).status).toMatchObject({ replicas: 3, readyReplicas: 0, availableReplicas: 0, observedGeneration: rs.metadata.generation });
    for (const pod of pods) await makeReady(client, pod, clock.now());
    await eventually(async () => (await getRs('web')).status?.availableReplicas === 3, 'three available');
    expect((await getRs('web')).status).toMatchObject({ replicas: 3, readyReplicas: 3, fullyLabeledReplicas: 3 });
    const created = async () => (await client.list(builtin.coreEvents, { namespace: NS })).items.filter((e) => e.reason === 'SuccessfulCreate' && e.involvedObject.name === 'web' && e.involvedObject.kind === 'ReplicaSet');
    await eventually(async () => (await created()).length === 3, 'a SuccessfulCreate Event per pod');
    expect((await created()).map((e) => e.message).sort()).toEqual(pods.map((p) => `Created pod: ${p.metadata.name}`).sort());
  });

  it('replaces a deleted pod and keeps the count after its own creates', async () => {
    const [victim] = await podsOf('web');
    await client.delete(builtin.pods, victim!.metadata.name!, { namespace: NS, gracePeriodSeconds: 0 });
    await eventually(async () => (await podsOf('web')).filter((p) => p.metadata.uid !== victim!.metadata.uid).length === 3, 'a replacement');
    expect(await podsOf('web')).toHaveLength(3);
  });

  it('scales down the pods upstream ranks lowest: unscheduled, then not ready, then ready most recently', async () => {
    await client.create(builtin.replicaSets, replicaSet('rank', 4), { namespace: NS });
    await eventually(async () => (await podsOf('rank')).length === 4, 'four pods');
    const [oldest, newer, unready, unscheduled] = await podsOf('rank');
    const t = clock.now();
    await makeReady(client, oldest!, t - 3_600_000, 'node-a');
    await makeReady(client, newer!, t - 10_000, 'node-b');
    await client.bind(unready!.metadata.name!, 'node-c', { namespace: NS });
    await eventually(async () => (await getRs('rank')).status?.readyReplicas === 2, 'two ready');
    await client.patchScale(builtin.replicaSets, 'rank', { spec: { replicas: 3 } }, { namespace: NS });
    await eventually(async () => (await podsOf('rank')).length === 3, 'three left');
    expect((await podsOf('rank')).map((p) => p.metadata.name)).not.toContain(unscheduled!.metadata.name);
    await client.patchScale(builtin.replicaSets, 'rank', { spec: { replicas: 2 } }, { namespace: NS });
    await eventually(async () => (await podsOf('rank')).length === 2, 'two left');
    expect((await podsOf('rank')).map((p) => p.metadata.name).sort()).toEqual([oldest!.metadata.name, newer!.metadata.name].sort());
    await client.patchScale(builtin.replicaSets, 'rank', { spec: { replicas: 1 } }, { namespace: NS });
    await eventually(async () => (await podsOf('rank')).length === 1, 'one left');
    expect((await podsOf('rank'))[0]!.metadata.name).toBe(oldest!.metadata.name);
    await eventually(async () => (await getRs('rank')).status?.replicas === 1, 'status replicas 1');
  });

  it('adopts a matching orphan instead of creating, and releases a pod whose labels stop matching', async () => {
    await client.create(builtin.pods, { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'orphan', namespace: NS, labels: { app: 'adopt' } }, spec: { containers: [container] } }, { namespace: NS });
    await client.create(builtin.replicaSets, replicaSet('adopt', 2), { namespace: NS });
    await eventually(async () => (await podsOf('adopt')).length === 2 && (await getRs('adopt')).status?.replicas === 2, 'two pods');
    const rs = await getRs('adopt');
    const orphan = await client.get(builtin.pods, 'orphan', { namespace: NS });
    expect(orphan.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'ReplicaSet', name: 'adopt', uid: rs.metadata.uid, controller: true });
    // Not fully labeled: it lacks the template's tier label.
    expect(rs.status?.fullyLabeledReplicas).toBe(1);

    await client.patch(builtin.pods, 'orphan', { metadata: { labels: { app: 'elsewhere' } } }, { namespace: NS });
    await eventually(async () => (await client.get(builtin.pods, 'orphan', { namespace: NS })).metadata.ownerReferences === undefined, 'the pod released');
    await eventually(async () => (await podsOf('adopt')).length === 2, 'a replacement for the released pod');
  });

  it('sets ReplicaFailure when creates are refused, and removes it once they succeed', async () => {
    const failing = replicaSet('failing', 5);
    failing.spec.template.spec.serviceAccountName = 'missing';
    await client.create(builtin.replicaSets, failing, { namespace: NS });
    await eventually(async () => (await getRs('failing')).status?.conditions?.some((c) => c.type === 'ReplicaFailure') === true, 'ReplicaFailure');
    const condition = (await getRs('failing')).status!.conditions!.find((c) => c.type === 'ReplicaFailure')!;
    expect(condition).toMatchObject({ status: 'True', reason: 'FailedCreate' });
    expect(condition.message).toContain('serviceaccount "missing" not found');
    expect(await podsOf('failing')).toHaveLength(0);
    await client.create(builtin.serviceAccounts, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'missing', namespace: NS } }, { namespace: NS });
    await eventually(async () => (await podsOf('failing')).length === 5, 'five pods once the account exists', 60_000);
    await eventually(async () => (await getRs('failing')).status?.conditions === undefined, 'the condition removed', 60_000);
  });

  it('counts a ready pod available only after minReadySeconds, requeued on the clock', async () => {
    await client.create(builtin.replicaSets, replicaSet('slow', 2, { minReadySeconds: 30 }), { namespace: NS });
    await eventually(async () => (await podsOf('slow')).length === 2, 'two pods');
    for (const pod of await podsOf('slow')) await makeReady(client, pod, clock.now());
    await eventually(async () => (await getRs('slow')).status?.readyReplicas === 2, 'two ready');
    expect((await getRs('slow')).status?.availableReplicas).toBe(0);
    clock.advance(31_000);
    await eventually(async () => (await getRs('slow')).status?.availableReplicas === 2, 'two available after minReadySeconds');
  });

  it('writes nothing when restarted at steady state', async () => {
    await eventually(async () => (await getRs('failing')).status?.conditions === undefined && (await podsOf('failing')).length === 5, 'settled');
    const before = (await client.list(builtin.pods, { namespace: NS })).resourceVersion;
    loop.stop();
    loop = loopHarness(client);
    loop.run(replicaSetController(loop.ctx, { now: clock.now, scheduler: clock }));
    loop.run(replicationControllerController(loop.ctx, { now: clock.now, scheduler: clock }));
    const keys = (await client.list(builtin.replicaSets, { namespace: NS })).items.map((rs) => `${NS}/${rs.metadata.name}`);
    await eventually(() => keys.every((key) => loop.results.some((r: ControllerResult<unknown>) => r.key === key)), 'every ReplicaSet reconciled');
    expect((await client.list(builtin.pods, { namespace: NS })).resourceVersion).toBe(before);
    expect(loop.results.filter((r) => r.type !== 'awaitChange' && r.type !== 'requeueAfter')).toEqual([]);
  });
});

describe('replicationcontroller-controller', () => {
  it('keeps the replicas of a ReplicationController, selector defaulted from the template', async () => {
    await client.create(
      builtin.replicationControllers,
      { apiVersion: 'v1', kind: 'ReplicationController', metadata: { name: 'legacy', namespace: NS }, spec: { replicas: 2, template: { metadata: { labels: { app: 'legacy' } }, spec: { containers: [container] } } } },
      { namespace: NS },
    );
    await eventually(async () => (await podsOf('legacy')).length === 2, 'two pods');
    const rc = await client.get(builtin.replicationControllers, 'legacy', { namespace: NS });
    expect((await podsOf('legacy'))[0]!.metadata.ownerReferences?.[0]).toMatchObject({ apiVersion: 'v1', kind: 'ReplicationController', uid: rc.metadata.uid });
    for (const pod of await podsOf('legacy')) await makeReady(client, pod, clock.now());
    await eventually(async () => (await client.get(builtin.replicationControllers, 'legacy', { namespace: NS })).status?.availableReplicas === 2, 'two available');
    await client.patchScale(builtin.replicationControllers, 'legacy', { spec: { replicas: 0 } }, { namespace: NS });
    await eventually(async () => (await podsOf('legacy')).length === 0, 'scaled to zero');
  });
});
