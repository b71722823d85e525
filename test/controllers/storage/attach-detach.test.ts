// attach-detach: a CSI volume used by a pod on a node gets a VolumeAttachment (attacher: the
// driver), deleted once no pod there uses it; host-path volumes need none.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtin, type Client } from '../../../src/client/index.js';
import { volumeAttachmentName } from '../../../controllers/attach-detach/index.js';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import { eventually, isGone } from '../support.js';
import { claim, getClaim, node, NS, volume } from './fixtures.js';

let cluster: TestCluster;
let client: Client;

const podOn = (name: string, nodeName: string, claimName: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: NS },
  spec: { nodeName, containers: [{ name: 'c', image: 'busybox' }], volumes: [{ name: 'data', persistentVolumeClaim: { claimName } }] },
});

beforeAll(async () => {
  cluster = await startTestCluster({
    controllers: { controllers: ['attachdetach-controller', 'persistentvolume-binder-controller', 'serviceaccount-controller'], loopSettings: { pvClaimBinderSyncPeriodMs: 0 } },
  });
  client = cluster.client;
  await client.create(builtin.nodes, node('n1'));
  await eventually(async () => (await client.get(builtin.serviceAccounts, 'default', { namespace: NS }).catch(() => undefined)) !== undefined, 'the default ServiceAccount');
  const { hostPath: _h, ...csiSpec } = volume('block-1', '1Gi', { storageClassName: 'csi' }).spec;
  await client.create(builtin.persistentVolumes, { ...volume('block-1', '1Gi'), spec: { ...csiSpec, storageClassName: 'csi', csi: { driver: 'disk.example.com', volumeHandle: 'vol-123' } } });
  await client.create(builtin.persistentVolumes, volume('dir-1', '1Gi', { storageClassName: 'dirs' }));
  await client.create(builtin.persistentVolumeClaims, claim('disk', '1Gi', { storageClassName: 'csi' }), { namespace: NS });
  await client.create(builtin.persistentVolumeClaims, claim('dir', '1Gi', { storageClassName: 'dirs' }), { namespace: NS });
  await eventually(async () => (await getClaim(client, 'disk')).status?.phase === 'Bound' && (await getClaim(client, 'dir')).status?.phase === 'Bound', 'both claims Bound');
});
afterAll(() => cluster.stop());

describe('attach-detach', () => {
  const name = volumeAttachmentName('vol-123', 'disk.example.com', 'n1');

  it('attaches a CSI volume used by a pod on a node, and nothing for a host-path one', async () => {
    await client.create(builtin.pods, podOn('db', 'n1', 'disk') as never, { namespace: NS });
    await client.create(builtin.pods, podOn('web', 'n1', 'dir') as never, { namespace: NS });
    await eventually(async () => !(await isGone(client.get(builtin.volumeAttachments, name))), 'the VolumeAttachment');
    const attachment = await client.get(builtin.volumeAttachments, name);
    expect(attachment.spec).toEqual({ attacher: 'disk.example.com', nodeName: 'n1', source: { persistentVolumeName: 'block-1' } });
    expect((await client.list(builtin.volumeAttachments)).items.map((a) => a.metadata.name)).toEqual([name]);
  });

  it('leaves a node alone while only pods that use no claim change on it', async () => {
    await client.create(builtin.nodes, node('n2'));
    const n2 = volumeAttachmentName('vol-123', 'disk.example.com', 'n2');
    const keys: string[] = [];
    const subscription = cluster.manager!.activity.results$.subscribe((r) => {
      if (r.controller === 'attachdetach-controller') keys.push(r.key);
    });
    // The node's own event reconciles it once; wait for that before counting.
    await eventually(() => keys.includes('n2'), 'the new node reconciled');
    keys.length = 0;
    for (let i = 0; i < 5; i++) {
      const plain = { apiVersion: 'v1', kind: 'Pod', metadata: { name: `plain-${i}`, namespace: NS }, spec: { nodeName: 'n2', containers: [{ name: 'c', image: 'busybox' }] } };
      await client.create(builtin.pods, plain as never, { namespace: NS });
      await client.patch(builtin.pods, `plain-${i}`, { metadata: { labels: { touched: 'yes' } } }, { namespace: NS, type: 'merge' });
    }
    // A pod with a claim after them: its event comes after theirs, so once its attachment is made
    // the loop has seen every one of theirs.
    await client.create(builtin.pods, podOn('db2', 'n2', 'disk') as never, { namespace: NS });
    await eventually(async () => !(await isGone(client.get(builtin.volumeAttachments, n2))), 'the attachment on n2');
    subscription.unsubscribe();
    // Reconciles of n2: the claiming pod's and its attachment's (coalesced or not), never one per plain pod's change.
    expect(keys.filter((key) => key === 'n2').length).toBeLessThanOrEqual(3);
    await client.delete(builtin.pods, 'db2', { namespace: NS, gracePeriodSeconds: 0 });
    await eventually(async () => isGone(client.get(builtin.volumeAttachments, n2)), 'the attachment on n2 deleted');
  });

  it('detaches once no pod on the node uses it', async () => {
    await client.delete(builtin.pods, 'db', { namespace: NS, gracePeriodSeconds: 0 });
    await eventually(async () => isGone(client.get(builtin.volumeAttachments, name)), 'the VolumeAttachment deleted');
  });
});
