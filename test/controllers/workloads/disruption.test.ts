// The disruption controller against a real in-process API server: PodDisruptionBudget status from
// the pods it selects and the scale of their controllers, and the eviction subresource spending it.
// Workload objects are created by the test (no workload controller runs); pods are made Ready through their status.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeObject, OwnerReference, Pod, PodDisruptionBudget } from '../../../src/api/index.js';
import { builtin, Client } from '../../../src/client/index.js';
import { disruptionController } from '../../../controllers/index.js';
import { startTestServer, TOKEN, type TestServer } from '../../apiserver/harness.js';
import { eventually, loopHarness, type LoopHarness } from '../support.js';
import { createNamespace, eventsAbout, setPodReady, updateWith } from '../workload-support.js';

let server: TestServer;
let client: Client;
let loop: LoopHarness;

beforeAll(async () => {
  server = await startTestServer('memory', { listen: true });
  client = new Client({ server: server.url!, token: TOKEN });
  loop = loopHarness(client);
  loop.run(disruptionController(loop.ctx));
});
afterAll(async () => {
  loop.stop();
  await client.destroy();
  await server.close();
});

const template = (app: string) => ({ metadata: { labels: { app } }, spec: { containers: [{ name: 'c', image: 'busybox:1' }] } });
const ref = (owner: KubeObject, apiVersion: string, kind: string): OwnerReference => ({ apiVersion, kind, name: owner.metadata.name!, uid: owner.metadata.uid!, controller: true });

async function pod(namespace: string, name: string, app: string, owner?: OwnerReference, ready = true): Promise<Pod> {
  const created = await client.create(
    builtin.pods,
    { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace, labels: { app }, ...(owner ? { ownerReferences: [owner] } : {}) }, spec: { containers: [{ name: 'c', image: 'busybox:1' }] } } as Pod,
    { namespace },
  );
  if (ready) await setPodReady(client, created);
  return client.get(builtin.pods, name, { namespace });
}

async function budget(namespace: string, name: string, app: string, spec: { minAvailable?: number | string; maxUnavailable?: number | string }): Promise<void> {
  await client.create(builtin.podDisruptionBudgets, { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name, namespace }, spec: { selector: { matchLabels: { app } }, ...spec } } as PodDisruptionBudget, { namespace });
}

const statusOf = async (namespace: string, name: string) => (await client.get(builtin.podDisruptionBudgets, name, { namespace })).status;
const summary = (s: PodDisruptionBudget['status']) =>
  s && { expected: s.expectedPods, current: s.currentHealthy, desired: s.desiredHealthy, allowed: s.disruptionsAllowed, condition: s.conditions?.find((c) => c.type === 'DisruptionAllowed')?.reason };
const statusIs = (namespace: string, name: string, wanted: ReturnType<typeof summary>) => async () => {
  const s = await statusOf(namespace, name);
  return s?.observedGeneration === 1 && JSON.stringify(summary(s)) === JSON.stringify(wanted);
};

describe('disruption controller', () => {
  it('minAvailable as an integer counts the selected pods; the condition follows the allowance', async () => {
    const ns = 'pdb-int';
    await createNamespace(client, ns);
    await pod(ns, 'a', 'int');
    await pod(ns, 'b', 'int');
    await pod(ns, 'c', 'int', undefined, false);
    await budget(ns, 'int', 'int', { minAvailable: 1 });
    await eventually(statusIs(ns, 'int', { expected: 3, current: 2, desired: 1, allowed: 1, condition: 'SufficientPods' }), 'one disruption allowed');
    await setPodReady(client, await client.get(builtin.pods, 'b', { namespace: ns }), false);
    await eventually(statusIs(ns, 'int', { expected: 3, current: 1, desired: 1, allowed: 0, condition: 'InsufficientPods' }), 'none allowed once b is not ready');
  });

  it('maxUnavailable and percentages read the scale of the pods\' controllers (ReplicaSet, Deployment, StatefulSet)', async () => {
    const ns = 'pdb-scale';
    await createNamespace(client, ns);
    // A ReplicaSet that wants 4 pods and has 2: the budget expects 4.
    const rs = await client.create(builtin.replicaSets, { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'rs', namespace: ns }, spec: { replicas: 4, selector: { matchLabels: { app: 'rs' } }, template: template('rs') } } as never, { namespace: ns });
    await pod(ns, 'rs-1', 'rs', ref(rs, 'apps/v1', 'ReplicaSet'));
    await pod(ns, 'rs-2', 'rs', ref(rs, 'apps/v1', 'ReplicaSet'));
    await budget(ns, 'rs', 'rs', { maxUnavailable: 1 });
    await eventually(statusIs(ns, 'rs', { expected: 4, current: 2, desired: 3, allowed: 0, condition: 'InsufficientPods' }), 'expected 4 from the ReplicaSet');

    // Two ReplicaSets of one Deployment of 3 stand for 3 pods; 50% rounds up to 2.
    const deployment = await client.create(builtin.deployments, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: ns }, spec: { replicas: 3, selector: { matchLabels: { app: 'd' } }, template: template('d') } } as never, { namespace: ns });
    for (const name of ['d-old', 'd-new']) {
      const owned = await client.create(
        builtin.replicaSets,
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name, namespace: ns, ownerReferences: [ref(deployment, 'apps/v1', 'Deployment')] }, spec: { replicas: 2, selector: { matchLabels: { app: 'd', rs: name } }, template: { ...template('d'), metadata: { labels: { app: 'd', rs: name } } } } } as never,
        { namespace: ns },
      );
      await pod(ns, `${name}-1`, 'd', ref(owned, 'apps/v1', 'ReplicaSet'));
    }
    await budget(ns, 'd', 'd', { minAvailable: '50%' });
    await eventually(statusIs(ns, 'd', { expected: 3, current: 2, desired: 2, allowed: 0, condition: 'InsufficientPods' }), 'expected 3 from the Deployment');

    const set = await client.create(builtin.statefulSets, { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'ss', namespace: ns }, spec: { replicas: 2, selector: { matchLabels: { app: 'ss' } }, template: template('ss') } } as never, { namespace: ns });
    await pod(ns, 'ss-0', 'ss', ref(set, 'apps/v1', 'StatefulSet'));
    await pod(ns, 'ss-1', 'ss', ref(set, 'apps/v1', 'StatefulSet'));
    await budget(ns, 'ss', 'ss', { maxUnavailable: '50%' });
    await eventually(statusIs(ns, 'ss', { expected: 2, current: 2, desired: 1, allowed: 1, condition: 'SufficientPods' }), 'expected 2 from the StatefulSet');
  });

  it('a pod whose controller cannot be found allows nothing (SyncFailed)', async () => {
    const ns = 'pdb-orphan';
    await createNamespace(client, ns);
    await pod(ns, 'x', 'gone', { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'missing', uid: '00000000-0000-0000-0000-000000000001', controller: true });
    await budget(ns, 'gone', 'gone', { maxUnavailable: 1 });
    await eventually(async () => {
      const s = await statusOf(ns, 'gone');
      const condition = s?.conditions?.find((c) => c.type === 'DisruptionAllowed');
      return s?.disruptionsAllowed === 0 && condition?.reason === 'SyncFailed' && /found no controllers for pod "x"/.test(String(condition.message));
    }, 'SyncFailed');
    await eventually(async () => (await eventsAbout(client, ns, 'PodDisruptionBudget', 'gone')).some((e) => e.startsWith('CalculateExpectedPodCountFailed: Failed to calculate the number of expected pods: found no controllers')), 'the event');
    // A budget that keeps failing is retried (and reported) with back-off: not a steady state; the last test restarts at one.
    await client.delete(builtin.podDisruptionBudgets, 'gone', { namespace: ns });
  });

  it('the eviction subresource spends the budget: 429 at zero, disruptedPods recorded, the status recomputed after the deletion', async () => {
    const ns = 'pdb-evict';
    await createNamespace(client, ns);
    for (const name of ['e1', 'e2', 'e3']) await pod(ns, name, 'evict');
    await budget(ns, 'evict', 'evict', { minAvailable: 2 });
    await eventually(statusIs(ns, 'evict', { expected: 3, current: 3, desired: 2, allowed: 1, condition: 'SufficientPods' }), 'one allowed');

    // Bind e1 so that its deletion is graceful: it stays, terminating, with its eviction recorded.
    await client.bind('e1', 'node-a', { namespace: ns });
    await client.evict('e1', { namespace: ns });
    const after = await statusOf(ns, 'evict');
    expect(Object.keys(after?.disruptedPods ?? {})).toEqual(['e1']);
    expect(after?.disruptionsAllowed).toBe(0);
    const refused = await client.evict('e2', { namespace: ns }).then(
      () => undefined,
      (error: { code?: number; reason?: string }) => error,
    );
    expect(refused).toMatchObject({ code: 429, reason: 'TooManyRequests' });
    expect((await client.get(builtin.pods, 'e2', { namespace: ns })).metadata.deletionTimestamp).toBeUndefined();
    // The controller sees e1 terminating: it leaves disruptedPods and the healthy count.
    await eventually(async () => {
      const s = await statusOf(ns, 'evict');
      return s?.currentHealthy === 2 && s.disruptionsAllowed === 0 && s.disruptedPods === undefined;
    }, 'recomputed after the deletion began');
    // A fourth ready pod makes room again.
    await pod(ns, 'e4', 'evict');
    await eventually(async () => (await statusOf(ns, 'evict'))?.disruptionsAllowed === 1, 'one allowed again');
    await client.evict('e2', { namespace: ns });
  });

  it('a spec change is observed (observedGeneration) and a restarted controller at steady state writes nothing', async () => {
    const ns = 'pdb-restart';
    await createNamespace(client, ns);
    await pod(ns, 'r1', 'restart');
    await budget(ns, 'restart', 'restart', { minAvailable: 1 });
    await eventually(statusIs(ns, 'restart', { expected: 1, current: 1, desired: 1, allowed: 0, condition: 'InsufficientPods' }), 'computed');
    await updateWith(client, builtin.podDisruptionBudgets, 'restart', ns, (pdb) => ({ ...pdb, spec: { ...pdb.spec, minAvailable: 0 } }));
    await eventually(async () => {
      const s = await statusOf(ns, 'restart');
      return s?.observedGeneration === 2 && s.disruptionsAllowed === 1;
    }, 'generation 2 observed');

    await eventually(async () => (await client.list(builtin.podDisruptionBudgets)).items.every((b) => b.status?.observedGeneration === b.metadata.generation), 'all observed');
    loop.stop();
    const before = await server.store.revision();
    const restarted = loopHarness(client);
    restarted.run(disruptionController(restarted.ctx));
    const keys = (await client.list(builtin.podDisruptionBudgets)).items.length;
    await eventually(() => new Set(restarted.results.map((r) => r.key)).size >= keys, 'every budget reconciled');
    expect(await server.store.revision()).toBe(before);
    loop = restarted;
  });
});
