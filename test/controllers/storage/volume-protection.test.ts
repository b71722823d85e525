// pvc-protection and pv-protection: every claim and volume carries its finalizer; a deleted claim
// stays while a pod that is not finished uses it, a deleted volume while its claim is bound to it.
// The StorageObjectInUseProtection admission plugin is off here, so the finalizers seen are the
// loops' own (builtin-plugins.test.ts tests the plugin).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtin, type Client } from '../../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import { eventually, isGone } from '../support.js';
import { claim, getClaim, getVolume, NS, volume } from './fixtures.js';

let cluster: TestCluster;
let client: Client;

const podUsing = (name: string, claimName: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: NS },
  spec: { containers: [{ name: 'c', image: 'busybox' }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName } }] },
});

beforeAll(async () => {
  cluster = await startTestCluster({
    apiServer: { admissionPlugins: { disable: ['StorageObjectInUseProtection'] } },
    controllers: { controllers: ['persistentvolume-protection-controller', 'persistentvolumeclaim-protection-controller', 'persistentvolume-binder-controller', 'serviceaccount-controller'], loopSettings: { pvClaimBinderSyncPeriodMs: 0 } },
  });
  client = cluster.client;
  await eventually(async () => (await client.get(builtin.serviceAccounts, 'default', { namespace: NS }).catch(() => undefined)) !== undefined, 'the default ServiceAccount');
});
afterAll(() => cluster.stop());

describe('pvc-protection', () => {
  it('adds the finalizer to every claim', async () => {
    await client.create(builtin.persistentVolumeClaims, claim('guarded', '1Gi', { storageClassName: 'none' }), { namespace: NS });
    await eventually(async () => ((await getClaim(client, 'guarded')).metadata.finalizers ?? []).includes('kubernetes.io/pvc-protection'), 'the finalizer');
  });

  it('keeps a deleted claim while a running pod uses it; lets it go once the pod is finished', async () => {
    await client.create(builtin.pods, podUsing('user', 'guarded') as never, { namespace: NS });
    await client.delete(builtin.persistentVolumeClaims, 'guarded', { namespace: NS });
    // The claim is Terminating, kept: a later claim's finalizer shows the loop has looked at it.
    await client.create(builtin.persistentVolumeClaims, claim('later', '1Gi', { storageClassName: 'none' }), { namespace: NS });
    await eventually(async () => ((await getClaim(client, 'later')).metadata.finalizers ?? []).includes('kubernetes.io/pvc-protection'), 'later guarded');
    const kept = await getClaim(client, 'guarded');
    expect(kept.metadata.deletionTimestamp).toBeDefined();
    expect(kept.metadata.finalizers).toContain('kubernetes.io/pvc-protection');
    await client.patchStatus(builtin.pods, 'user', { status: { phase: 'Succeeded' } }, { namespace: NS, type: 'merge' });
    await eventually(async () => isGone(getClaim(client, 'guarded')), 'the claim gone');
  });

  it('lets an unused claim go at once', async () => {
    await client.delete(builtin.persistentVolumeClaims, 'later', { namespace: NS });
    await eventually(async () => isGone(getClaim(client, 'later')), 'the claim gone');
  });
});

describe('pv-protection', () => {
  it('keeps a deleted volume while it is bound to a claim, and lets it go after', async () => {
    await client.create(builtin.persistentVolumes, volume('precious', '1Gi', { storageClassName: 'keep', persistentVolumeReclaimPolicy: 'Retain' }));
    await eventually(async () => ((await getVolume(client, 'precious')).metadata.finalizers ?? []).includes('kubernetes.io/pv-protection'), 'the finalizer');
    await client.create(builtin.persistentVolumeClaims, claim('holder', '1Gi', { storageClassName: 'keep' }), { namespace: NS });
    await eventually(async () => (await getVolume(client, 'precious')).status?.phase === 'Bound', 'the volume Bound');
    await client.delete(builtin.persistentVolumes, 'precious');
    await eventually(async () => (await getVolume(client, 'precious')).metadata.deletionTimestamp !== undefined, 'the volume Terminating');
    // Still there: its claim holds it.
    expect((await getVolume(client, 'precious')).metadata.finalizers).toContain('kubernetes.io/pv-protection');
    await client.delete(builtin.persistentVolumeClaims, 'holder', { namespace: NS });
    await eventually(async () => isGone(getVolume(client, 'precious')), 'the volume gone');
  });
});
