// persistentvolume-expander and the PersistentVolumeClaimResize admission plugin: a bound claim of
// an expandable host-path class grows (volume capacity, then the claim's status); a claim of a
// class without allowVolumeExpansion may not grow (403), no claim may shrink (422).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStatusError } from '../../../src/api/index.js';
import { builtin, type Client } from '../../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import { eventually } from '../support.js';
import { claim, eventReasons, getClaim, getVolume, NS, storageClass, volume } from './fixtures.js';

const root = mkdtempSync(join(tmpdir(), 'svc-expand-'));
let cluster: TestCluster;
let client: Client;

beforeAll(async () => {
  cluster = await startTestCluster({
    controllers: {
      controllers: ['persistentvolume-binder-controller', 'persistentvolume-expander-controller'],
      loopSettings: { enableHostPathProvisioner: true, hostPathProvisionerRoot: root, pvClaimBinderSyncPeriodMs: 0 },
    },
  });
  client = cluster.client;
  await client.create(builtin.storageClasses, storageClass('grows', { allowVolumeExpansion: true }));
  await client.create(builtin.storageClasses, storageClass('fixed'));
});
afterAll(async () => {
  await cluster.stop();
  rmSync(root, { recursive: true, force: true });
});

const statusOf = async (promise: Promise<unknown>) => {
  try {
    await promise;
    return 200;
  } catch (error) {
    if (isStatusError(error)) return error.code;
    throw error;
  }
};

describe('volume expansion', () => {
  it('grows a bound host-path claim: the volume capacity, then the claim status', async () => {
    await client.create(builtin.persistentVolumeClaims, claim('elastic', '10Mi', { storageClassName: 'grows' }), { namespace: NS });
    await eventually(async () => (await getClaim(client, 'elastic')).status?.phase === 'Bound', 'Bound');
    await client.patch(builtin.persistentVolumeClaims, 'elastic', { spec: { resources: { requests: { storage: '20Mi' } } } }, { type: 'merge', namespace: NS });
    await eventually(async () => (await getClaim(client, 'elastic')).status?.capacity?.['storage'] === '20Mi', 'the claim grown');
    const grown = await getClaim(client, 'elastic');
    expect(grown.status?.allocatedResources?.['storage']).toBe('20Mi');
    expect(grown.status?.conditions ?? []).toEqual([]);
    expect((await getVolume(client, grown.spec.volumeName!)).spec.capacity.storage).toBe('20Mi');
    await eventually(async () => (await eventReasons(client, 'elastic', 'PersistentVolumeClaim')).some((r) => r.startsWith('VolumeResizeSuccessful')), 'the event');
  });

  it('refuses to shrink a claim (422) and changes nothing', async () => {
    expect(await statusOf(client.patch(builtin.persistentVolumeClaims, 'elastic', { spec: { resources: { requests: { storage: '5Mi' } } } }, { type: 'merge', namespace: NS }))).toBe(422);
    expect((await getClaim(client, 'elastic')).spec.resources.requests.storage).toBe('20Mi');
  });

  it('refuses to grow a claim whose class does not allow expansion (403), or one not bound', async () => {
    await client.create(builtin.persistentVolumeClaims, claim('rigid', '10Mi', { storageClassName: 'fixed' }), { namespace: NS });
    await eventually(async () => (await getClaim(client, 'rigid')).status?.phase === 'Bound', 'Bound');
    expect(await statusOf(client.patch(builtin.persistentVolumeClaims, 'rigid', { spec: { resources: { requests: { storage: '20Mi' } } } }, { type: 'merge', namespace: NS }))).toBe(403);
    await client.create(builtin.persistentVolumes, volume('unused', '1Gi', { storageClassName: 'nobody' }));
    await client.create(builtin.persistentVolumeClaims, claim('unbound', '2Gi', { storageClassName: 'nobody' }), { namespace: NS });
    expect(await statusOf(client.patch(builtin.persistentVolumeClaims, 'unbound', { spec: { resources: { requests: { storage: '3Gi' } } } }, { type: 'merge', namespace: NS }))).toBe(403);
    expect((await getClaim(client, 'rigid')).spec.resources.requests.storage).toBe('10Mi');
  });
});
