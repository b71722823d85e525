// The persistentvolume-binder loop (with the DefaultStorageClass admission plugin and the host-path
// provisioner): static binding by size, access modes, class, selector, volumeName and claimRef
// pre-binding; the phases; WaitForFirstConsumer waits for the selected node; reclaim Retain,
// Delete and Recycle; bad claims refused (422) or reported on the claim, nothing half-made.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtin, type Client } from '../../../src/client/index.js';
import { isStatusError } from '../../../src/api/index.js';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import { eventually, isGone } from '../support.js';
import { claim, eventReasons, getClaim, getVolume, node, NS, storageClass, volume } from './fixtures.js';

const root = mkdtempSync(join(tmpdir(), 'svc-hostpath-'));
let cluster: TestCluster;
let client: Client;

beforeAll(async () => {
  cluster = await startTestCluster({
    controllers: {
      controllers: ['persistentvolume-binder-controller', 'persistentvolume-protection-controller', 'persistentvolumeclaim-protection-controller'],
      loopSettings: { enableHostPathProvisioner: true, hostPathProvisionerRoot: root, pvClaimBinderSyncPeriodMs: 0 },
    },
  });
  client = cluster.client;
  await client.create(builtin.nodes, node('n1'));
});
afterAll(async () => {
  await cluster.stop();
  rmSync(root, { recursive: true, force: true });
});

const phaseOf = async (name: string) => (await getClaim(client, name)).status?.phase;
const volumePhase = async (name: string) => (await getVolume(client, name)).status?.phase;

describe('static binding', () => {
  it('binds a claim to the smallest volume that fits, and both become Bound', async () => {
    await client.create(builtin.persistentVolumes, volume('small', '1Gi', { storageClassName: 'manual' }));
    await client.create(builtin.persistentVolumes, volume('medium', '5Gi', { storageClassName: 'manual' }));
    await client.create(builtin.persistentVolumes, volume('large', '10Gi', { storageClassName: 'manual' }));
    await eventually(async () => (await volumePhase('medium')) === 'Available', 'medium Available');
    await client.create(builtin.persistentVolumeClaims, claim('fits-medium', '2Gi', { storageClassName: 'manual' }), { namespace: NS });
    await eventually(async () => (await phaseOf('fits-medium')) === 'Bound', 'the claim Bound');
    const bound = await getClaim(client, 'fits-medium');
    expect(bound.spec.volumeName).toBe('medium');
    expect(bound.status?.capacity?.['storage']).toBe('5Gi');
    expect(bound.metadata.annotations?.['pv.kubernetes.io/bind-completed']).toBe('yes');
    const pv = await getVolume(client, 'medium');
    expect(pv.spec.claimRef).toMatchObject({ name: 'fits-medium', namespace: NS, uid: bound.metadata.uid });
    expect(pv.status?.phase).toBe('Bound');
    expect(await volumePhase('small')).toBe('Available');
  });

  it('needs every access mode, the same class and the selector to match', async () => {
    await client.create(builtin.persistentVolumes, volume('rwx', '1Gi', { storageClassName: 'picky', accessModes: ['ReadWriteMany'] }, { tier: 'gold' }));
    await client.create(builtin.persistentVolumes, volume('rwo-silver', '1Gi', { storageClassName: 'picky' }, { tier: 'silver' }));
    await client.create(builtin.persistentVolumeClaims, claim('wants-rwx-gold', '1Gi', { storageClassName: 'picky', accessModes: ['ReadWriteMany'], selector: { matchLabels: { tier: 'gold' } } }), { namespace: NS });
    await client.create(builtin.persistentVolumeClaims, claim('wants-rox', '1Gi', { storageClassName: 'picky', accessModes: ['ReadOnlyMany'] }), { namespace: NS });
    await client.create(builtin.persistentVolumeClaims, claim('wants-other-class', '1Gi', { storageClassName: '' }), { namespace: NS });
    await eventually(async () => (await getClaim(client, 'wants-rwx-gold')).spec.volumeName === 'rwx', 'the gold RWX claim bound to rwx');
    await eventually(async () => (await phaseOf('wants-rox')) === 'Pending', 'the ROX claim Pending');
    await eventually(async () => (await phaseOf('wants-other-class')) === 'Pending', 'the class-less claim Pending');
    expect((await getClaim(client, 'wants-rox')).spec.volumeName).toBeUndefined();
    expect((await getVolume(client, 'rwo-silver')).spec.claimRef).toBeUndefined();
    await eventually(async () => (await eventReasons(client, 'wants-other-class', 'PersistentVolumeClaim')).some((r) => r.startsWith('FailedBinding: no persistent volumes available')), 'a FailedBinding event');
  });

  it('honours pre-binding: a claim naming a volume, and a volume whose claimRef names a claim', async () => {
    await client.create(builtin.persistentVolumes, volume('named', '3Gi', { storageClassName: 'pre' }));
    await client.create(builtin.persistentVolumes, volume('tiny-first', '1Gi', { storageClassName: 'pre' }));
    await client.create(builtin.persistentVolumes, volume('reserved', '8Gi', { storageClassName: 'pre', claimRef: { namespace: NS, name: 'reserved-for-me' } }));
    await client.create(builtin.persistentVolumeClaims, claim('names-its-volume', '1Gi', { storageClassName: 'pre', volumeName: 'named' }), { namespace: NS });
    await client.create(builtin.persistentVolumeClaims, claim('reserved-for-me', '1Gi', { storageClassName: 'pre' }), { namespace: NS });
    await eventually(async () => (await phaseOf('names-its-volume')) === 'Bound' && (await phaseOf('reserved-for-me')) === 'Bound', 'both pre-bound claims Bound');
    expect((await getClaim(client, 'reserved-for-me')).spec.volumeName).toBe('reserved');
    expect((await getVolume(client, 'named')).spec.claimRef?.name).toBe('names-its-volume');
    // The smaller free volume was passed over by both.
    expect((await getVolume(client, 'tiny-first')).spec.claimRef).toBeUndefined();
  });
});

describe('reclaim', () => {
  it('Retain: the volume is Released when its claim goes, and never bound again', async () => {
    await client.create(builtin.persistentVolumes, volume('kept', '1Gi', { storageClassName: 'retain', persistentVolumeReclaimPolicy: 'Retain' }));
    await client.create(builtin.persistentVolumeClaims, claim('first-user', '1Gi', { storageClassName: 'retain' }), { namespace: NS });
    await eventually(async () => (await phaseOf('first-user')) === 'Bound', 'first-user Bound');
    await client.delete(builtin.persistentVolumeClaims, 'first-user', { namespace: NS });
    await eventually(async () => (await volumePhase('kept')) === 'Released', 'the volume Released');
    await client.create(builtin.persistentVolumeClaims, claim('second-user', '1Gi', { storageClassName: 'retain' }), { namespace: NS });
    await eventually(async () => (await phaseOf('second-user')) === 'Pending', 'second-user Pending');
    expect((await getVolume(client, 'kept')).status?.phase).toBe('Released');
  });

  it('Delete of a volume no plugin can delete: Failed, saying why', async () => {
    await client.create(builtin.persistentVolumes, volume('undeletable', '1Gi', { storageClassName: 'del', persistentVolumeReclaimPolicy: 'Delete' }));
    await client.create(builtin.persistentVolumeClaims, claim('del-user', '1Gi', { storageClassName: 'del' }), { namespace: NS });
    await eventually(async () => (await phaseOf('del-user')) === 'Bound', 'del-user Bound');
    await client.delete(builtin.persistentVolumeClaims, 'del-user', { namespace: NS });
    await eventually(async () => (await volumePhase('undeletable')) === 'Failed', 'the volume Failed');
    expect((await getVolume(client, 'undeletable')).status?.message).toContain('no deletable volume plugin');
  });

  it('Recycle: a scrubber pod empties the volume, which is Available again once it succeeded', async () => {
    await client.create(builtin.persistentVolumes, volume('recycled', '1Gi', { storageClassName: 'rec', persistentVolumeReclaimPolicy: 'Recycle' }));
    await client.create(builtin.persistentVolumeClaims, claim('rec-user', '1Gi', { storageClassName: 'rec' }), { namespace: NS });
    await eventually(async () => (await phaseOf('rec-user')) === 'Bound', 'rec-user Bound');
    await client.delete(builtin.persistentVolumeClaims, 'rec-user', { namespace: NS });
    let scrubber: Awaited<ReturnType<typeof client.get<never>>> | undefined;
    await eventually(async () => {
      scrubber = await client.get(builtin.pods, 'recycler-for-recycled', { namespace: 'default' }).catch(() => undefined) as never;
      return scrubber !== undefined;
    }, 'the scrubber pod');
    const pod = await client.get(builtin.pods, 'recycler-for-recycled', { namespace: 'default' });
    expect(pod.spec.volumes?.find((v) => v.name === 'vol')?.hostPath?.path).toBe('/tmp/static-recycled');
    expect(pod.spec.activeDeadlineSeconds).toBe(60);
    // No node agent runs here: the test plays its part and reports the pod done.
    await client.patchStatus(builtin.pods, 'recycler-for-recycled', { status: { phase: 'Succeeded' } }, { namespace: 'default', type: 'merge' });
    await eventually(async () => (await volumePhase('recycled')) === 'Available', 'the volume Available again', 30_000);
    expect((await getVolume(client, 'recycled')).spec.claimRef).toBeUndefined();
    expect(await isGone(client.get(builtin.pods, 'recycler-for-recycled', { namespace: 'default' }))).toBe(true);
  });
});

describe('dynamic provisioning (host-path)', () => {
  beforeAll(async () => {
    await client.create(builtin.storageClasses, storageClass('later', { volumeBindingMode: 'WaitForFirstConsumer', reclaimPolicy: 'Delete', parameters: { maxSize: '1Gi' } }));
    await client.create(builtin.storageClasses, storageClass('now', { volumeBindingMode: 'Immediate', reclaimPolicy: 'Delete' }));
  });

  it('gives a claim without a class the default class (admission), and makes the class local-path default', async () => {
    await eventually(async () => (await client.get(builtin.storageClasses, 'local-path').catch(() => undefined)) !== undefined, 'the local-path class');
    const sc = await client.get(builtin.storageClasses, 'local-path');
    expect(sc.metadata.annotations?.['storageclass.kubernetes.io/is-default-class']).toBe('true');
    const made = await client.create(builtin.persistentVolumeClaims, claim('no-class', '1Mi'), { namespace: NS });
    expect(made.spec.storageClassName).toBe('local-path');
    const explicit = await client.create(builtin.persistentVolumeClaims, claim('empty-class', '1Mi', { storageClassName: '' }), { namespace: NS });
    expect(explicit.spec.storageClassName).toBe('');
  });

  it('WaitForFirstConsumer: nothing until the selected node is written, then a directory and a volume on that node', async () => {
    await client.create(builtin.persistentVolumeClaims, claim('wffc', '100Mi', { storageClassName: 'later' }), { namespace: NS });
    await eventually(async () => (await eventReasons(client, 'wffc', 'PersistentVolumeClaim')).some((r) => r.startsWith('WaitForFirstConsumer')), 'the WaitForFirstConsumer event');
    expect(await phaseOf('wffc')).toBe('Pending');
    expect(readdirSync(root)).toEqual([]);
    // What the scheduler does when it places the claim's first pod.
    await client.patch(builtin.persistentVolumeClaims, 'wffc', { metadata: { annotations: { 'volume.kubernetes.io/selected-node': 'n1' } } }, { type: 'merge', namespace: NS });
    await eventually(async () => (await phaseOf('wffc')) === 'Bound', 'the claim Bound');
    const bound = await getClaim(client, 'wffc');
    const pv = await getVolume(client, bound.spec.volumeName!);
    expect(pv.metadata.name).toBe(`pvc-${bound.metadata.uid}`);
    expect(pv.metadata.annotations?.['pv.kubernetes.io/provisioned-by']).toBe('svc.io/host-path');
    expect(pv.spec.persistentVolumeReclaimPolicy).toBe('Delete');
    expect(pv.spec.capacity.storage).toBe('100Mi');
    expect(pv.spec.nodeAffinity).toEqual({ required: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'svc.io/hostname', operator: 'In', values: ['n1'] }] }] } });
    expect(existsSync(pv.spec.hostPath!.path)).toBe(true);
    expect(pv.spec.hostPath!.path.startsWith(root)).toBe(true);
  });

  it('Immediate: provisions at once; reclaim Delete removes directory and volume with the claim', async () => {
    await client.create(builtin.persistentVolumeClaims, claim('immediate', '10Mi', { storageClassName: 'now' }), { namespace: NS });
    await eventually(async () => (await phaseOf('immediate')) === 'Bound', 'the claim Bound');
    const pvName = (await getClaim(client, 'immediate')).spec.volumeName!;
    const path = (await getVolume(client, pvName)).spec.hostPath!.path;
    expect(existsSync(path)).toBe(true);
    await client.delete(builtin.persistentVolumeClaims, 'immediate', { namespace: NS });
    await eventually(async () => isGone(getVolume(client, pvName)), 'the volume deleted');
    expect(existsSync(path)).toBe(false);
  });

  it('a claim larger than its class allows: ProvisioningFailed names the limit; no volume, no directory', async () => {
    const before = readdirSync(root).length;
    await client.create(builtin.persistentVolumeClaims, claim('too-big', '5Gi', { storageClassName: 'later' }, { 'volume.kubernetes.io/selected-node': 'n1' }), { namespace: NS });
    await eventually(
      async () => (await eventReasons(client, 'too-big', 'PersistentVolumeClaim')).some((r) => r.includes('ProvisioningFailed') && r.includes('more than storage class later allows (maxSize 1Gi)')),
      'the ProvisioningFailed event',
    );
    expect(await phaseOf('too-big')).toBe('Pending');
    expect((await client.list(builtin.persistentVolumes)).items.filter((v) => v.spec.claimRef?.name === 'too-big')).toEqual([]);
    expect(readdirSync(root).length).toBe(before);
  });

  it('a claim of a class that does not exist: the event names it', async () => {
    await client.create(builtin.persistentVolumeClaims, claim('ghost-class', '1Mi', { storageClassName: 'ghost' }), { namespace: NS });
    await eventually(async () => (await eventReasons(client, 'ghost-class', 'PersistentVolumeClaim')).some((r) => r === 'ProvisioningFailed: storageclass.storage.k8s.io "ghost" not found'), 'the event');
  });
});

describe('bad claims are refused, nothing stored', () => {
  const refused = async (body: object): Promise<{ code: number; message: string }> => {
    try {
      await client.create(builtin.persistentVolumeClaims, body as never, { namespace: NS });
    } catch (error) {
      if (isStatusError(error)) return { code: error.code, message: error.message };
      throw error;
    }
    throw new Error('accepted');
  };

  it('an invalid quantity: 422', async () => {
    const { code, message } = await refused(claim('bad-size', 'lots'));
    expect(code).toBe(422);
    expect(message).toContain('quantity');
    expect(await isGone(getClaim(client, 'bad-size'))).toBe(true);
  });

  it('an unknown access mode: 422', async () => {
    const { code, message } = await refused(claim('bad-mode', '1Gi', { accessModes: ['ReadWriteSometimes' as never] }));
    expect(code).toBe(422);
    expect(message).toContain('accessModes');
    expect(await isGone(getClaim(client, 'bad-mode'))).toBe(true);
  });
});
