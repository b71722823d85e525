import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConfigMap, OwnerReference } from '../../src/api/index.js';
import { builtin, type Client } from '../../src/client/index.js';
import { garbageCollector } from '../../controllers/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { eventually, isGone, loopHarness, type LoopHarness } from './support.js';

const NS = 'gc';
const podSpec = { containers: [{ name: 'c', image: 'x' }] };
const selector = { matchLabels: { app: 'a' } };
const template = { metadata: { labels: { app: 'a' } }, spec: podSpec };

const ref = (o: { apiVersion?: string; kind?: string; metadata: { name?: string; uid?: string } }, extra: Partial<OwnerReference> = {}): OwnerReference => ({
  apiVersion: o.apiVersion!,
  kind: o.kind!,
  name: o.metadata.name!,
  uid: o.metadata.uid!,
  ...extra,
});

describe('garbage collector against a real API server (svc/testing: HTTPS, memory store)', () => {
  let cluster: TestCluster;
  let client: Client;
  let loop: LoopHarness;

  beforeAll(async () => {
    cluster = await startTestCluster({ namespaces: [NS] });
    client = cluster.newClient({ namespace: NS });
    loop = loopHarness(client);
    loop.run(garbageCollector(loop.ctx, { concurrency: 20 }));
  });
  afterAll(async () => {
    loop.stop();
    await cluster.stop();
  });

  const configMap = (name: string, owners: OwnerReference[] = [], finalizers?: string[]) =>
    client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, ownerReferences: owners, ...(finalizers ? { finalizers } : {}) } });
  const gone = {
    deployment: (name: string) => isGone(client.get(builtin.deployments, name)),
    replicaSet: (name: string) => isGone(client.get(builtin.replicaSets, name)),
    pod: (name: string) => isGone(client.get(builtin.pods, name)),
    configMap: (name: string) => isGone(client.get(builtin.configMaps, name)),
  };

  /** Deployment → ReplicaSet → 3 Pods, each reference a controller that blocks owner deletion (as the real controllers write them). */
  async function chain(prefix: string) {
    const deployment = await client.create(builtin.deployments, { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: prefix }, spec: { selector, template } });
    const replicaSet = await client.create(builtin.replicaSets, {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: `${prefix}-rs`, ownerReferences: [ref(deployment, { controller: true, blockOwnerDeletion: true })] },
      spec: { selector, template },
    });
    const pods = await Promise.all(
      [0, 1, 2].map((i) =>
        client.create(builtin.pods, {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: `${prefix}-pod-${i}`, ownerReferences: [ref(replicaSet, { controller: true, blockOwnerDeletion: true })] },
          spec: podSpec,
        }),
      ),
    );
    return { deployment, replicaSet, pods: pods.map((p) => p.metadata.name!) };
  }

  async function allGone(names: { deployment: string; replicaSet: string; pods: string[] }) {
    return (await gone.deployment(names.deployment)) && (await gone.replicaSet(names.replicaSet)) && (await Promise.all(names.pods.map(gone.pod))).every(Boolean);
  }

  it('Background: the owner goes at once, then its dependents, level by level', async () => {
    const c = await chain('bg');
    const answer = await client.delete(builtin.deployments, 'bg', { propagationPolicy: 'Background' });
    expect(answer).toMatchObject({ kind: 'Status', status: 'Success' });
    await eventually(() => allGone({ deployment: 'bg', replicaSet: c.replicaSet.metadata.name!, pods: c.pods }), 'the whole chain to go');
  });

  it('Foreground: the owner stays with foregroundDeletion until its blocking dependents are gone', async () => {
    const c = await chain('fg');
    // A pod held by a finalizer of its own keeps the chain waiting.
    await client.patch(builtin.pods, c.pods[0]!, { metadata: { finalizers: ['example.com/hold'] } });
    const marked = await client.delete(builtin.deployments, 'fg', { propagationPolicy: 'Foreground' });
    expect(marked).toMatchObject({ metadata: { finalizers: ['foregroundDeletion'] } });

    await eventually(async () => (await gone.pod(c.pods[1]!)) && (await gone.pod(c.pods[2]!)), 'the free pods to go');
    await eventually(async () => (await client.get(builtin.pods, c.pods[0]!)).metadata.deletionTimestamp !== undefined, 'the held pod to be deleted');
    const rs = await client.get(builtin.replicaSets, 'fg-rs');
    expect(rs.metadata.deletionTimestamp).toBeDefined();
    expect(rs.metadata.finalizers).toContain('foregroundDeletion');
    const deployment = await client.get(builtin.deployments, 'fg');
    expect(deployment.metadata.finalizers).toEqual(['foregroundDeletion']);

    await client.patch(builtin.pods, c.pods[0]!, { metadata: { finalizers: null } });
    await eventually(() => allGone({ deployment: 'fg', replicaSet: 'fg-rs', pods: c.pods }), 'the whole chain to go');
  });

  it('Orphan: dependents lose their reference to the owner and stay; the owner goes', async () => {
    const c = await chain('or');
    await client.delete(builtin.deployments, 'or', { propagationPolicy: 'Orphan' });
    await eventually(() => gone.deployment('or'), 'the deployment to go');
    const rs = await client.get(builtin.replicaSets, 'or-rs');
    expect(rs.metadata.ownerReferences ?? []).toEqual([]);
    expect(rs.metadata.deletionTimestamp).toBeUndefined();
    for (const pod of c.pods) {
      const p = await client.get(builtin.pods, pod);
      expect(p.metadata.ownerReferences).toEqual([expect.objectContaining({ uid: rs.metadata.uid })]);
      expect(p.metadata.deletionTimestamp).toBeUndefined();
    }
    // The orphans are ordinary objects now: deleting their new root cascades as usual.
    await client.delete(builtin.replicaSets, 'or-rs');
    await eventually(async () => (await Promise.all(c.pods.map(gone.pod))).every(Boolean), 'the pods to go with their replica set');
  });

  it('deletes dependents whose owner does not exist, or exists under another uid', async () => {
    const live = await configMap('real-owner');
    await configMap('no-such-owner', [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'never-was', uid: '00000000-0000-0000-0000-000000000001' }]);
    await configMap('wrong-uid', [{ ...ref(live), uid: '00000000-0000-0000-0000-000000000002' }]);
    await configMap('right-uid', [ref(live)]);
    await eventually(async () => (await gone.configMap('no-such-owner')) && (await gone.configMap('wrong-uid')), 'the dangling dependents to go');
    expect(await gone.configMap('right-uid')).toBe(false);
    expect(await gone.configMap('real-owner')).toBe(false);
  });

  it('verifies a dangling owner with a live GET: an owner created after the dependent is not mistaken for a missing one', async () => {
    // The owner's uid is only known once it exists; the dependent is created right after, before
    // the collector's cache may have seen the owner.
    const owner = await client.create(builtin.secrets, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'fresh-owner' } });
    await configMap('fresh-dependent', [ref(owner)]);
    await configMap('canary', [{ apiVersion: 'v1', kind: 'Secret', name: 'absent', uid: '00000000-0000-0000-0000-000000000003' }]);
    await eventually(() => gone.configMap('canary'), 'the canary (created later) to be collected');
    expect(await gone.configMap('fresh-dependent')).toBe(false);
  });

  it('blockOwnerDeletion: a Foreground owner waits only for dependents that block it', async () => {
    const owner = await configMap('fg-owner');
    await configMap('blocking', [ref(owner, { blockOwnerDeletion: true })], ['example.com/hold']);
    await configMap('not-blocking', [ref(owner)], ['example.com/hold']);
    await client.delete(builtin.configMaps, 'fg-owner', { propagationPolicy: 'Foreground' });

    await eventually(async () => {
      const [b, n] = await Promise.all([client.get(builtin.configMaps, 'blocking'), client.get(builtin.configMaps, 'not-blocking')]);
      return b.metadata.deletionTimestamp !== undefined && n.metadata.deletionTimestamp !== undefined;
    }, 'both dependents to be deleted');
    // The non-blocking one is released: the owner still waits for the blocking one.
    await client.patch(builtin.configMaps, 'not-blocking', { metadata: { finalizers: null } });
    await eventually(() => gone.configMap('not-blocking'), 'the non-blocking dependent to go');
    expect((await client.get(builtin.configMaps, 'fg-owner')).metadata.finalizers).toEqual(['foregroundDeletion']);

    await client.patch(builtin.configMaps, 'blocking', { metadata: { finalizers: null } });
    await eventually(() => gone.configMap('fg-owner'), 'the owner to go once the blocking dependent is gone');
  });

  it('a Foreground owner whose only dependents do not block it goes without waiting for them', async () => {
    const owner = await configMap('lone-owner');
    await configMap('slow-dependent', [ref(owner)], ['example.com/hold']);
    await client.delete(builtin.configMaps, 'lone-owner', { propagationPolicy: 'Foreground' });
    await eventually(() => gone.configMap('lone-owner'), 'the owner to go');
    const dependent = await client.get(builtin.configMaps, 'slow-dependent');
    expect(dependent.metadata.deletionTimestamp).toBeDefined();
    await client.patch(builtin.configMaps, 'slow-dependent', { metadata: { finalizers: null } });
    await eventually(() => gone.configMap('slow-dependent'), 'the dependent to go');
  });

  it('a dependent with two owners survives the first owner and goes with the second', async () => {
    const a = await configMap('owner-a');
    const b = await client.create(builtin.secrets, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'owner-b' } });
    await configMap('shared', [ref(a), ref(b)]);
    await client.delete(builtin.configMaps, 'owner-a');
    await eventually(async () => {
      const shared = await client.get(builtin.configMaps, 'shared');
      return (shared.metadata.ownerReferences ?? []).length === 1;
    }, 'the reference to the deleted owner to be removed');
    const shared: ConfigMap = await client.get(builtin.configMaps, 'shared');
    expect(shared.metadata.ownerReferences).toEqual([ref(b)]);
    expect(shared.metadata.deletionTimestamp).toBeUndefined();

    await client.delete(builtin.secrets, 'owner-b');
    await eventually(() => gone.configMap('shared'), 'the dependent to go with its last owner');
  });
});
