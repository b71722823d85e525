// The Deployment loop against a real svc-apiserver, with the ReplicaSet loop making the pods and
// the test making them Ready (no node runs them): a ReplicaSet per template version with its
// pod-template-hash, revisions in the annotations kubectl reads, RollingUpdate within maxSurge,
// Recreate, revisionHistoryLimit, rollback to an old template, paused, proportional scaling, the
// progress deadline on an injected clock, and a restart at steady state that writes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Deployment, ReplicaSet } from '../../../src/api/index.js';
import { builtin, Client } from '../../../src/client/index.js';
import { deploymentController, replicaSetController, resolveFenceposts } from '../../../controllers/index.js';
import { startTestServer, TOKEN, type TestServer } from '../../apiserver/harness.js';
import { eventually, loopHarness, type LoopHarness } from '../support.js';
import { autoReady, createNamespace, livePods, makeReady } from './replica-fixtures.js';
import { OffsetClock } from './offset-clock.js';

const NS = 'deploy';
const STUCK = 'stuck';
let server: TestServer;
let client: Client;
let loop: LoopHarness;
let stopReady: () => void;
let stopStuck: () => void;
const clock = new OffsetClock();

function deployment(name: string, replicas: number, spec: Partial<Deployment['spec']> = {}, image = 'busybox'): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name, namespace: NS },
    spec: { replicas, selector: { matchLabels: { app: name } }, template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image }] } }, ...spec },
  };
}
const getD = (name: string, namespace = NS) => client.get(builtin.deployments, name, { namespace });
const setsOf = async (name: string, namespace = NS): Promise<ReplicaSet[]> => {
  const d = await getD(name, namespace);
  return (await client.list(builtin.replicaSets, { namespace })).items.filter((rs) => rs.metadata.ownerReferences?.some((o) => o.uid === d.metadata.uid && o.controller));
};
const revision = (o: { metadata: { annotations?: Record<string, string> | undefined } }) => o.metadata.annotations?.['deployment.kubernetes.io/revision'];
const condition = (d: Deployment, type: string) => d.status?.conditions?.find((c) => c.type === type);
const setImage = async (name: string, image: string) => {
  const d = await getD(name);
  await client.update(builtin.deployments, { ...d, spec: { ...d.spec, template: { ...d.spec.template, spec: { ...d.spec.template.spec, containers: [{ name: 'c', image }] } } } }, { namespace: NS });
};
const complete = async (name: string, replicas: number) => {
  const d = await getD(name);
  return (
    (d.status?.observedGeneration ?? 0) >= (d.metadata.generation ?? 0) &&
    d.status?.updatedReplicas === replicas &&
    d.status?.replicas === replicas &&
    d.status?.availableReplicas === replicas &&
    condition(d, 'Progressing')?.reason === 'NewReplicaSetAvailable'
  );
};

beforeAll(async () => {
  server = await startTestServer('memory', { listen: true });
  client = new Client({ server: server.url!, token: TOKEN });
  await createNamespace(client, NS);
  await createNamespace(client, STUCK);
  // Pods of the images `bad` and `hold` do not become ready by themselves; neither do those of the namespace `stuck`.
  stopReady = autoReady(client, NS, clock.now, (pod) => pod.spec.containers[0]?.image !== 'bad' && pod.spec.containers[0]?.image !== 'hold');
  stopStuck = autoReady(client, STUCK, clock.now, () => false);
  loop = loopHarness(client);
  loop.run(replicaSetController(loop.ctx, { now: clock.now, scheduler: clock }));
  loop.run(deploymentController(loop.ctx, { now: clock.now, scheduler: clock }));
});
afterAll(async () => {
  loop.stop();
  stopReady();
  stopStuck();
  await client.destroy();
  await server.close();
});

describe('maxSurge and maxUnavailable', () => {
  it('round percentages as upstream: surge up, unavailable down, never both zero', () => {
    const d = (replicas: number, maxSurge: number | string, maxUnavailable: number | string) => deployment('x', replicas, { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge, maxUnavailable } } });
    expect(resolveFenceposts(d(10, '25%', '25%'))).toEqual({ surge: 3, unavailable: 2 });
    expect(resolveFenceposts(d(3, '25%', '25%'))).toEqual({ surge: 1, unavailable: 0 });
    expect(resolveFenceposts(d(1, '0%', '30%'))).toEqual({ surge: 0, unavailable: 1 });
    expect(resolveFenceposts(d(5, 2, 0))).toEqual({ surge: 2, unavailable: 0 });
  });
});

describe('deployment-controller', () => {
  it('creates a ReplicaSet named by its pod-template-hash, with revision 1, and becomes Available', async () => {
    await client.create(builtin.deployments, deployment('web', 3), { namespace: NS });
    await eventually(() => complete('web', 3), 'the rollout complete');
    const [rs] = await setsOf('web');
    const hash = rs!.metadata.labels!['pod-template-hash']!;
    expect(rs!.metadata.name).toBe(`web-${hash}`);
    expect(rs!.spec.selector.matchLabels).toEqual({ app: 'web', 'pod-template-hash': hash });
    expect(rs!.spec.template.metadata?.labels).toEqual({ app: 'web', 'pod-template-hash': hash });
    expect(rs!.metadata.annotations).toMatchObject({
      'deployment.kubernetes.io/revision': '1',
      'deployment.svc.io/revision': '1',
      'deployment.kubernetes.io/desired-replicas': '3',
      'deployment.kubernetes.io/max-replicas': '4',
    });
    const d = await getD('web');
    expect(revision(d)).toBe('1');
    expect(d.metadata.annotations?.['deployment.svc.io/revision']).toBe('1');
    expect(condition(d, 'Available')).toMatchObject({ status: 'True', reason: 'MinimumReplicasAvailable' });
    expect(condition(d, 'Progressing')).toMatchObject({ status: 'True', reason: 'NewReplicaSetAvailable', message: `ReplicaSet "${rs!.metadata.name}" has successfully progressed.` });
    expect(d.status).toMatchObject({ replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3, unavailableReplicas: 0 });
    for (const pod of await livePods(client, NS, 'app=web')) expect(pod.metadata.labels?.['pod-template-hash']).toBe(hash);
    await eventually(
      async () => (await client.list(builtin.coreEvents, { namespace: NS })).items.some((e) => e.reason === 'ScalingReplicaSet' && e.involvedObject.name === 'web' && e.message === `Scaled up replica set ${rs!.metadata.name} from 0 to 3`),
      'the ScalingReplicaSet Event',
    );
  });

  it('rolls a new template within maxSurge and maxUnavailable, to revision 2', async () => {
    await client.create(builtin.deployments, deployment('roll', 4, { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } }), { namespace: NS });
    await eventually(() => complete('roll', 4), 'the first rollout');
    const uid = (await getD('roll')).metadata.uid;
    // Every version of every set the watch shows: the sum of their replicas never passes 4 + 1.
    const sizes = new Map<string, number>();
    let most = 0;
    const watch = client.watch$(builtin.replicaSets, { namespace: NS }).subscribe((event) => {
      if (event.type !== 'ADDED' && event.type !== 'MODIFIED') return;
      const rs = event.object as ReplicaSet;
      if (!rs.metadata.ownerReferences?.some((o) => o.uid === uid)) return;
      sizes.set(rs.metadata.name!, rs.spec.replicas ?? 0);
      most = Math.max(most, [...sizes.values()].reduce((a, b) => a + b, 0));
    });
    await setImage('roll', 'busybox:1.36');
    await eventually(() => complete('roll', 4), 'the second rollout');
    watch.unsubscribe();
    expect(most).toBe(5);
    const sets = await setsOf('roll');
    const fresh = sets.find((rs) => rs.spec.template.spec.containers[0]!.image === 'busybox:1.36')!;
    const old = sets.find((rs) => rs !== fresh)!;
    expect({ fresh: fresh.spec.replicas, old: old.spec.replicas, revision: revision(fresh), oldRevision: revision(old) }).toEqual({ fresh: 4, old: 0, revision: '2', oldRevision: '1' });
    expect(revision(await getD('roll'))).toBe('2');
  });

  it('Recreate scales the old set to zero and waits for its pods to go before the new set starts', async () => {
    await client.create(builtin.deployments, deployment('recreate', 2, { strategy: { type: 'Recreate' } }), { namespace: NS });
    await eventually(() => complete('recreate', 2), 'the first rollout');
    let oldPodsWhenNewSetAppeared = -1;
    const watch = client.watch$(builtin.replicaSets, { namespace: NS }).subscribe((event) => {
      if (event.type !== 'ADDED') return;
      const rs = event.object as ReplicaSet;
      if (rs.metadata.name?.startsWith('recreate-') && revision(rs) === '2') {
        void livePods(client, NS, 'app=recreate').then((pods) => (oldPodsWhenNewSetAppeared = pods.filter((p) => p.spec.containers[0]!.image === 'busybox').length));
      }
    });
    await setImage('recreate', 'busybox:1.36');
    await eventually(() => complete('recreate', 2), 'the second rollout');
    watch.unsubscribe();
    await eventually(() => oldPodsWhenNewSetAppeared >= 0, 'the new set seen');
    expect(oldPodsWhenNewSetAppeared).toBe(0);
  });

  it('keeps revisionHistoryLimit old sets, and a rollback to an old template makes its set the newest revision', async () => {
    await client.create(builtin.deployments, deployment('history', 1, { revisionHistoryLimit: 1 }), { namespace: NS });
    await eventually(() => complete('history', 1), 'revision 1');
    await setImage('history', 'busybox:1.35');
    await eventually(async () => (await complete('history', 1)) && revision(await getD('history')) === '2', 'revision 2');
    await setImage('history', 'busybox:1.36');
    await eventually(async () => (await complete('history', 1)) && revision(await getD('history')) === '3', 'revision 3');
    await eventually(async () => (await setsOf('history')).length === 2, 'one old set kept');
    expect((await setsOf('history')).map(revision).sort()).toEqual(['2', '3']);

    await setImage('history', 'busybox:1.35');
    await eventually(async () => (await complete('history', 1)) && revision(await getD('history')) === '4', 'revision 4');
    const back = (await setsOf('history')).find((rs) => rs.spec.template.spec.containers[0]!.image === 'busybox:1.35')!;
    expect(revision(back)).toBe('4');
    expect(back.metadata.annotations?.['deployment.kubernetes.io/revision-history']).toBe('2');
  });

  it('does not roll while paused, scales meanwhile, and rolls once resumed', async () => {
    await client.create(builtin.deployments, deployment('paused', 2), { namespace: NS });
    await eventually(() => complete('paused', 2), 'the first rollout');
    await client.patch(builtin.deployments, 'paused', { spec: { paused: true } }, { namespace: NS });
    await eventually(async () => condition(await getD('paused'), 'Progressing')?.reason === 'DeploymentPaused', 'Progressing: DeploymentPaused');
    expect(condition(await getD('paused'), 'Progressing')).toMatchObject({ status: 'Unknown', message: 'Deployment is paused' });
    await setImage('paused', 'busybox:1.36');
    await client.patchScale(builtin.deployments, 'paused', { spec: { replicas: 3 } }, { namespace: NS });
    await eventually(async () => (await setsOf('paused'))[0]?.spec.replicas === 3, 'the set scaled while paused');
    expect(await setsOf('paused')).toHaveLength(1);
    await client.patch(builtin.deployments, 'paused', { spec: { paused: false } }, { namespace: NS });
    await eventually(async () => (await complete('paused', 3)) && revision(await getD('paused')) === '2', 'rolled once resumed');
  });

  it('scales a rollout in progress proportionally across its sets', async () => {
    await client.create(builtin.deployments, deployment('prop', 10, { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 3, maxUnavailable: 2 } } }), { namespace: NS });
    await eventually(() => complete('prop', 10), 'the first rollout');
    await setImage('prop', 'bad');
    const sizes = async () => {
      const sets = await setsOf('prop');
      const bad = sets.find((rs) => rs.spec.template.spec.containers[0]!.image === 'bad');
      const good = sets.find((rs) => rs !== bad);
      return { good: good?.spec.replicas, bad: bad?.spec.replicas };
    };
    await eventually(async () => JSON.stringify(await sizes()) === JSON.stringify({ good: 8, bad: 5 }), 'the rollout stuck at 8 + 5');
    await client.patchScale(builtin.deployments, 'prop', { spec: { replicas: 20 } }, { namespace: NS });
    await eventually(async () => JSON.stringify(await sizes()) === JSON.stringify({ good: 14, bad: 9 }), 'scaled proportionally to 14 + 9');
  });

  it('reports ProgressDeadlineExceeded once no progress was made for progressDeadlineSeconds', async () => {
    await client.create(builtin.deployments, { ...deployment('late', 1, { progressDeadlineSeconds: 60 }), metadata: { name: 'late', namespace: STUCK } }, { namespace: STUCK });
    await eventually(async () => (await getD('late', STUCK)).status?.replicas === 1 && condition(await getD('late', STUCK), 'Progressing')?.status === 'True', 'progressing');
    expect(condition(await getD('late', STUCK), 'Available')).toMatchObject({ status: 'False', reason: 'MinimumReplicasUnavailable' });
    clock.advance(62_000);
    await eventually(async () => condition(await getD('late', STUCK), 'Progressing')?.reason === 'ProgressDeadlineExceeded', 'the deadline exceeded');
    expect(condition(await getD('late', STUCK), 'Progressing')).toMatchObject({ status: 'False', message: expect.stringContaining('has timed out progressing.') });
  });

  it('finishes a rollout after a restart midway, with no extra pod', async () => {
    await client.create(builtin.deployments, deployment('midway', 4, { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } }), { namespace: NS });
    await eventually(() => complete('midway', 4), 'the first rollout');
    const seen = new Set((await livePods(client, NS, 'app=midway')).map((p) => p.metadata.uid));
    const watch = client.watch$(builtin.pods, { namespace: NS, labelSelector: 'app=midway' }).subscribe((event) => {
      if (event.type === 'ADDED') seen.add(event.object.metadata.uid);
    });
    await setImage('midway', 'hold');
    const holding = async () => (await livePods(client, NS, 'app=midway')).filter((p) => p.spec.containers[0]!.image === 'hold');
    await eventually(async () => (await holding()).length === 1, 'the first new pod (surge 1), not ready');
    loop.stop();
    loop = loopHarness(client);
    loop.run(replicaSetController(loop.ctx, { now: clock.now, scheduler: clock }));
    loop.run(deploymentController(loop.ctx, { now: clock.now, scheduler: clock }));
    await eventually(async () => {
      for (const pod of await holding()) if (!pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) await makeReady(client, pod, clock.now()).catch(() => undefined);
      return complete('midway', 4);
    }, 'the rollout finished by the restarted loops');
    watch.unsubscribe();
    expect(seen.size).toBe(8);
  });

  it('adopts an orphan ReplicaSet its selector matches, and leaves one another Deployment controls alone', async () => {
    const ns = 'deploy-adopt';
    await createNamespace(client, ns);
    const set = (name: string, owner?: Deployment): ReplicaSet => ({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: {
        name,
        namespace: ns,
        labels: owner ? { app: 'claimer', tier: 'x' } : { app: 'claimer' },
        ...(owner ? { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: owner.metadata.name!, uid: owner.metadata.uid!, controller: true, blockOwnerDeletion: true }] } : {}),
      },
      spec: { replicas: 0, selector: { matchLabels: { app: 'claimer' } }, template: { metadata: { labels: { app: 'claimer', ...(owner ? { tier: 'x' } : {}) } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
    });
    // `other` selects the set it controls (tier=x), which the claimer's selector (app=claimer) matches too.
    const base = deployment('other', 0);
    const other = await client.create(
      builtin.deployments,
      { ...base, metadata: { name: 'other', namespace: ns }, spec: { ...base.spec, selector: { matchLabels: { tier: 'x' } }, template: { ...base.spec.template, metadata: { labels: { tier: 'x' } } } } },
      { namespace: ns },
    );
    await client.create(builtin.replicaSets, set('taken', other), { namespace: ns });
    await client.create(builtin.replicaSets, set('loose'), { namespace: ns });
    const claimer = await client.create(builtin.deployments, { ...deployment('claimer', 0), metadata: { name: 'claimer', namespace: ns } }, { namespace: ns });
    const controllerUid = async (name: string) => (await client.get(builtin.replicaSets, name, { namespace: ns })).metadata.ownerReferences?.find((o) => o.controller)?.uid;
    await eventually(async () => (await controllerUid('loose')) === claimer.metadata.uid, 'the orphan set adopted');
    expect(await controllerUid('taken')).toBe(other.metadata.uid);
    await eventually(async () => (await getD('claimer', ns)).status?.observedGeneration === 1, 'the claimer synced');
    expect(await controllerUid('taken')).toBe(other.metadata.uid);
  });

  it('writes nothing when restarted at steady state', async () => {
    await eventually(async () => (await complete('web', 3)) && (await complete('history', 1)) && (await complete('paused', 3)), 'settled');
    const before = (await client.list(builtin.pods, { namespace: NS })).resourceVersion;
    loop.stop();
    loop = loopHarness(client);
    loop.run(replicaSetController(loop.ctx, { now: clock.now, scheduler: clock }));
    loop.run(deploymentController(loop.ctx, { now: clock.now, scheduler: clock }));
    const keys = (await client.list(builtin.deployments, { namespace: NS })).items.filter((d) => d.metadata.name !== 'prop').map((d) => `${NS}/${d.metadata.name}`);
    await eventually(() => keys.every((key) => loop.results.some((r) => r.controller === 'deployment-controller' && r.key === key)), 'every Deployment reconciled');
    expect((await client.list(builtin.pods, { namespace: NS })).resourceVersion).toBe(before);
  });
});
