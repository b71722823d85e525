// The scheduler's VolumeBinding: a pod whose claim is missing or unbound-Immediate waits; a bound
// claim's volume keeps the pod on the node its node affinity names; an unbound WaitForFirstConsumer
// claim gets `volume.kubernetes.io/selected-node` with the pod's node before the pod is bound.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pod } from '../../../src/api/index.js';
import { builtin } from '../../../src/client/index.js';
import { boundNode, createNodes, createPods, node, pod, startBed, unschedulableCondition, until, type SchedulerTestBed } from './support.js';

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

describe('volume binding', () => {
  let bed: SchedulerTestBed;
  beforeAll(async () => {
    bed = await startBed();
    await createNodes(bed.client, node('n1'), node('n2'));
    await bed.client.create(builtin.storageClasses, { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'later' }, provisioner: 'svc.io/host-path', volumeBindingMode: 'WaitForFirstConsumer' });
    await bed.client.create(builtin.storageClasses, { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'now' }, provisioner: 'svc.io/host-path' });
    bed.start();
  });
  afterAll(async () => bed?.close());

  it('keeps a pod whose claim does not exist unschedulable, naming the claim', async () => {
    await createPods(bed.client, withClaim('orphan', 'nowhere'));
    const c = await unschedulableCondition(bed.client, 'orphan');
    expect(c.message).toBe('0/2 nodes are available: 2 persistentvolumeclaim "nowhere" not found.');
  });

  it('keeps a pod whose Immediate claim is not bound yet unschedulable', async () => {
    await bed.client.create(builtin.persistentVolumeClaims, claim('immediate', 'now') as never, { namespace: 'default' });
    await createPods(bed.client, withClaim('waits', 'immediate'));
    const c = await unschedulableCondition(bed.client, 'waits');
    expect(c.message).toBe('0/2 nodes are available: 2 pod has unbound immediate PersistentVolumeClaims.');
  });

  it('writes the selected node on a WaitForFirstConsumer claim and binds the pod there', async () => {
    await bed.client.create(builtin.persistentVolumeClaims, claim('delayed', 'later') as never, { namespace: 'default' });
    await createPods(bed.client, withClaim('consumer', 'delayed'));
    const at = await boundNode(bed.client, 'consumer');
    const annotated = await bed.client.get(builtin.persistentVolumeClaims, 'delayed', { namespace: 'default' });
    expect(annotated.metadata.annotations?.['volume.kubernetes.io/selected-node']).toBe(at);
  });

  it('places a pod on the node its bound volume is pinned to', async () => {
    await bed.client.create(builtin.persistentVolumes, {
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: 'on-n2' },
      spec: {
        capacity: { storage: '1Gi' },
        accessModes: ['ReadWriteOnce'],
        local: { path: '/mnt/disk' },
        nodeAffinity: { required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'kubernetes.io/hostname', operator: 'In', values: ['n2'] }] }] } },
      },
    });
    await bed.client.create(builtin.persistentVolumeClaims, claim('pinned', '', 'on-n2') as never, { namespace: 'default' });
    for (const name of ['p1', 'p2', 'p3']) await createPods(bed.client, withClaim(name, 'pinned'));
    for (const name of ['p1', 'p2', 'p3']) expect(await boundNode(bed.client, name)).toBe('n2');
  });

  it('a claim deleted meanwhile: the next pod waits', async () => {
    await bed.client.create(builtin.persistentVolumeClaims, { ...claim('going', 'later'), metadata: { name: 'going', namespace: 'default', finalizers: ['test/hold'] } } as never, { namespace: 'default' });
    await bed.client.delete(builtin.persistentVolumeClaims, 'going', { namespace: 'default' });
    await until(async () => (await bed.client.get(builtin.persistentVolumeClaims, 'going', { namespace: 'default' })).metadata.deletionTimestamp !== undefined, 'going Terminating');
    await createPods(bed.client, withClaim('late', 'going'));
    const c = await unschedulableCondition(bed.client, 'late');
    expect(c.message).toBe('0/2 nodes are available: 2 persistentvolumeclaim "going" is being deleted.');
  });
});
