// The scheduler's VolumeBinding with the persistentvolume-binder running beside it: a pod whose
// claim is missing, or Immediate and not bound yet, waits unschedulable until the binder binds it;
// a bound claim's volume keeps the pod on the node its node affinity names; an unbound
// WaitForFirstConsumer claim is bound by the scheduler — a local volume on the chosen node gets its
// claimRef, or the claim gets `volume.kubernetes.io/selected-node` for its provisioner — and the pod
// is bound only once its claims are.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PersistentVolume, PersistentVolumeClaim, Pod } from '../../../src/api/index.js';
import { builtin } from '../../../src/client/index.js';
import { persistentVolumeBinder } from '../../../controllers/persistentvolume-binder/index.js';
import { cacheHolds } from '../../support/cache-holds.js';
import { loopHarness, type LoopHarness } from '../support.js';
import { boundNode, createNodes, createPods, node, nodeOf, pod, startBed, unschedulableCondition, until, type RunningScheduler, type SchedulerTestBed } from './support.js';

const withClaim = (name: string, claimName: string): Pod => {
  const p = pod(name);
  return { ...p, spec: { ...p.spec, volumes: [{ name: 'data', persistentVolumeClaim: { claimName } }] } };
};

const claim = (name: string, storageClassName: string, volumeName?: string) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolumeClaim',
  metadata: { name, namespace: 'default' },
  spec: { accessModes: ['ReadWriteOnce'], storageClassName, resources: { requests: { storage: '1Gi' } }, ...(volumeName ? { volumeName } : {}) },
});

const localVolume = (name: string, nodeName: string, storageClassName: string, claimRef?: Record<string, string>) => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name },
  spec: {
    capacity: { storage: '1Gi' },
    accessModes: ['ReadWriteOnce'],
    storageClassName,
    local: { path: '/mnt/disk' },
    nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: [nodeName] }] }] } },
    ...(claimRef ? { claimRef } : {}),
  },
});

const getClaim = (bed: SchedulerTestBed, name: string) => bed.client.get(builtin.persistentVolumeClaims, name, { namespace: 'default' });

describe('volume binding', () => {
  let bed: SchedulerTestBed;
  let binder: LoopHarness;
  let running: RunningScheduler;
  /**
   * Waits until the scheduler's caches hold the claims and volumes as written. Its filter reads
   * them, and a write's watch event reaches them after the write's answer (up to
   * --watch-write-interval later for a busy watch): a pod created meanwhile would be judged by
   * the earlier state — a claim not found, not yet Terminating, a volume unknown.
   */
  const schedulerHolds = async (written: { claims?: PersistentVolumeClaim[]; volumes?: PersistentVolume[] }) => {
    await cacheHolds(running.informers.informer(builtin.persistentVolumeClaims), ...(written.claims ?? []));
    await cacheHolds(running.informers.informer(builtin.persistentVolumes), ...(written.volumes ?? []));
  };
  beforeAll(async () => {
    bed = await startBed();
    await createNodes(bed.client, node('n1'), node('n2'));
    const storageClass = (name: string, provisioner: string, volumeBindingMode?: 'Immediate' | 'WaitForFirstConsumer') =>
      bed.client.create(builtin.storageClasses, { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name }, provisioner, ...(volumeBindingMode ? { volumeBindingMode } : {}) });
    // An external provisioner (the test plays it) for the dynamic cases; local volumes for the static ones.
    await storageClass('later', 'example.com/external', 'WaitForFirstConsumer');
    await storageClass('now', 'example.com/external');
    await storageClass('local', 'kubernetes.io/no-provisioner', 'WaitForFirstConsumer');
    binder = loopHarness(bed.newClient());
    binder.run(persistentVolumeBinder(binder.ctx, { syncPeriodMs: 0, dynamicProvisioning: true }));
    running = bed.start();
  });
  afterAll(async () => {
    binder?.stop();
    await bed?.close();
  });

  it('keeps a pod whose claim does not exist unschedulable, naming the claim', async () => {
    await createPods(bed.client, withClaim('orphan', 'nowhere'));
    const c = await unschedulableCondition(bed.client, 'orphan');
    expect(c.reason).toBe('Unschedulable');
    expect(c.message).toBe('0/2 nodes are available: 2 persistentvolumeclaim "nowhere" not found.');
  });

  it('keeps a pod whose Immediate claim is not bound unschedulable (upstream\'s PreFilter message), and schedules it once the claim is bound', async () => {
    await schedulerHolds({ claims: [await bed.client.create(builtin.persistentVolumeClaims, claim('immediate', 'now') as never, { namespace: 'default' })] });
    await createPods(bed.client, withClaim('waits', 'immediate'));
    const c = await unschedulableCondition(bed.client, 'waits');
    expect(c.reason).toBe('Unschedulable');
    expect(c.message).toBe('0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims.');
    expect(await nodeOf(bed.client, 'waits')).toBe('');
    // A volume appears (what the external provisioner would make): the binder binds the claim, the claim event requeues the pod.
    await bed.client.create(builtin.persistentVolumes, {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'for-immediate' },
      spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: 'now', hostPath: { path: '/tmp/for-immediate' } },
    } as never);
    await boundNode(bed.client, 'waits');
    expect((await getClaim(bed, 'immediate')).spec.volumeName).toBe('for-immediate');
  });

  it('binds a WaitForFirstConsumer claim to a local volume on the chosen node before it binds the pod', async () => {
    await bed.client.create(builtin.persistentVolumes, localVolume('disk-n1', 'n1', 'local') as never);
    await bed.client.create(builtin.persistentVolumeClaims, claim('local-claim', 'local') as never, { namespace: 'default' });
    await until(async () => (await getClaim(bed, 'local-claim')).status?.phase === 'Pending', 'the claim Pending, waiting for its consumer');
    expect((await getClaim(bed, 'local-claim')).spec.volumeName).toBeUndefined();
    await createPods(bed.client, withClaim('local-user', 'local-claim'));
    // Only n1 has a volume for it.
    expect(await boundNode(bed.client, 'local-user')).toBe('n1');
    const bound = await getClaim(bed, 'local-claim');
    expect(bound.spec.volumeName).toBe('disk-n1');
    expect(bound.status?.phase).toBe('Bound');
    expect(bound.metadata.annotations?.['volume.kubernetes.io/selected-node']).toBeUndefined();
    const volume = await bed.client.get(builtin.persistentVolumes, 'disk-n1');
    expect(volume.spec.claimRef?.uid).toBe(bound.metadata.uid);
  });

  it('keeps a pod unschedulable when no local volume fits it on any node', async () => {
    await schedulerHolds({ claims: [await bed.client.create(builtin.persistentVolumeClaims, claim('no-disk', 'local') as never, { namespace: 'default' })] });
    await createPods(bed.client, withClaim('no-disk-user', 'no-disk'));
    const c = await unschedulableCondition(bed.client, 'no-disk-user');
    expect(c.message).toBe("0/2 nodes are available: 2 node(s) didn't find available persistent volumes to bind.");
  });

  it('selects the node of a claim to provision, and binds the pod only once the provisioned volume is bound', async () => {
    await bed.client.create(builtin.persistentVolumeClaims, claim('delayed', 'later') as never, { namespace: 'default' });
    await createPods(bed.client, withClaim('consumer', 'delayed'));
    let selected: string | undefined;
    await until(async () => (selected = (await getClaim(bed, 'delayed')).metadata.annotations?.['volume.kubernetes.io/selected-node']) !== undefined, 'the selected node');
    // The claim is not bound yet: neither is the pod.
    expect(await nodeOf(bed.client, 'consumer')).toBe('');
    // The external provisioner makes a volume on that node, bound to the claim.
    const provisioned = await getClaim(bed, 'delayed');
    await bed.client.create(builtin.persistentVolumes, localVolume('made-for-delayed', selected!, 'later', { kind: 'PersistentVolumeClaim', apiVersion: 'v1', namespace: 'default', name: 'delayed', uid: provisioned.metadata.uid! }) as never);
    expect(await boundNode(bed.client, 'consumer')).toBe(selected);
    expect((await getClaim(bed, 'delayed')).spec.volumeName).toBe('made-for-delayed');
  });

  it('places a pod on the node its bound volume is pinned to', async () => {
    // Until its cache holds the volume, the scheduler cannot know where it is pinned.
    await schedulerHolds({
      volumes: [await bed.client.create(builtin.persistentVolumes, localVolume('on-n2', 'n2', '') as never)],
      claims: [await bed.client.create(builtin.persistentVolumeClaims, claim('pinned', '', 'on-n2') as never, { namespace: 'default' })],
    });
    for (const name of ['p1', 'p2', 'p3']) await createPods(bed.client, withClaim(name, 'pinned'));
    for (const name of ['p1', 'p2', 'p3']) expect(await boundNode(bed.client, name)).toBe('n2');
  });

  it('a claim deleted meanwhile: the next pod waits', async () => {
    await bed.client.create(builtin.persistentVolumeClaims, { ...claim('going', 'later'), metadata: { name: 'going', namespace: 'default', finalizers: ['test/hold'] } } as never, { namespace: 'default' });
    await bed.client.delete(builtin.persistentVolumeClaims, 'going', { namespace: 'default' });
    await until(async () => (await getClaim(bed, 'going')).metadata.deletionTimestamp !== undefined, 'going Terminating');
    // Terminating in the scheduler's cache too, else the pod is judged by the claim before its delete
    // (the pre-bind then fails it: "was deleted", a SchedulerError, not this Unschedulable message).
    await schedulerHolds({ claims: [await getClaim(bed, 'going')] });
    await createPods(bed.client, withClaim('late', 'going'));
    const c = await unschedulableCondition(bed.client, 'late');
    expect(c.message).toBe('0/2 nodes are available: 2 persistentvolumeclaim "going" is being deleted.');
  });
});

describe('volume binding: a provisioner that gives the node back', () => {
  let bed: SchedulerTestBed;
  beforeAll(async () => {
    bed = await startBed();
    await createNodes(bed.client, node('solo'));
    await bed.client.create(builtin.storageClasses, { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'later' }, provisioner: 'example.com/external', volumeBindingMode: 'WaitForFirstConsumer' });
    bed.start();
  });
  afterAll(async () => bed?.close());

  it('fails the binding with the reason on the pod, and tries again', async () => {
    await bed.client.create(builtin.persistentVolumeClaims, claim('refused', 'later') as never, { namespace: 'default' });
    await createPods(bed.client, withClaim('hopeful', 'refused'));
    await until(async () => (await getClaim(bed, 'refused')).metadata.annotations?.['volume.kubernetes.io/selected-node'] === 'solo', 'the selected node');
    // The provisioner cannot provision there: it removes the annotation (upstream's reschedule signal).
    await bed.client.patch(builtin.persistentVolumeClaims, 'refused', { metadata: { annotations: { 'volume.kubernetes.io/selected-node': null } } }, { type: 'merge', namespace: 'default' });
    const c = await unschedulableCondition(bed.client, 'hopeful');
    expect(c.reason).toBe('SchedulerError');
    expect(c.message).toBe('running PreBind plugin "VolumeBinding": persistentvolumeclaim "refused" was given back by its provisioner');
    expect(await nodeOf(bed.client, 'hopeful')).toBe('');
    // The next attempt selects the node again.
    await until(async () => (await getClaim(bed, 'refused')).metadata.annotations?.['volume.kubernetes.io/selected-node'] === 'solo', 'the node selected again');
  });
});
