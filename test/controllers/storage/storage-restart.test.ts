// The storage loops restarted over claims and volumes at their desired state (bound statically,
// provisioned, released, protected) write nothing: no binding, phase or finalizer changes, no
// directory made or removed.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtin, type Client } from '../../../src/client/index.js';
import type { ControllerName } from '../../../controllers/index.js';
import { startTestCluster, type TestCluster } from '../../../src/testing/index.js';
import { eventually } from '../support.js';
import { claim, getClaim, getVolume, node, NS, queueTotals, quiet, storageClass, volume } from './fixtures.js';

const MANAGER = 'svc-testing/controller-manager';
const LOOPS: ControllerName[] = [
  'persistentvolume-binder-controller',
  'persistentvolume-protection-controller',
  'persistentvolumeclaim-protection-controller',
  'persistentvolume-expander-controller',
  'ephemeral-volume-controller',
  'attachdetach-controller',
];
const root = mkdtempSync(join(tmpdir(), 'svc-restart-pv-'));
const options = { controllers: LOOPS, loopSettings: { enableHostPathProvisioner: true, hostPathProvisionerRoot: root } };
let cluster: TestCluster;
let client: Client;

beforeAll(async () => {
  cluster = await startTestCluster({ controllers: options });
  client = cluster.client;
  await client.create(builtin.nodes, node('n1'));
  await client.create(builtin.storageClasses, storageClass('now'));
  await client.create(builtin.persistentVolumes, volume('static', '1Gi', { storageClassName: 'manual' }));
  await client.create(builtin.persistentVolumes, volume('released', '1Gi', { storageClassName: 'gone', persistentVolumeReclaimPolicy: 'Retain' }));
  await client.create(builtin.persistentVolumeClaims, claim('static-claim', '1Gi', { storageClassName: 'manual' }), { namespace: NS });
  await client.create(builtin.persistentVolumeClaims, claim('provisioned', '1Mi', { storageClassName: 'now' }), { namespace: NS });
  await client.create(builtin.persistentVolumeClaims, claim('short-lived', '1Gi', { storageClassName: 'gone' }), { namespace: NS });
  await eventually(async () => (await getClaim(client, 'short-lived')).status?.phase === 'Bound', 'short-lived Bound');
  await client.delete(builtin.persistentVolumeClaims, 'short-lived', { namespace: NS });
  await eventually(
    async () =>
      (await getClaim(client, 'static-claim')).status?.phase === 'Bound' &&
      (await getClaim(client, 'provisioned')).status?.phase === 'Bound' &&
      (await getVolume(client, 'released')).status?.phase === 'Released',
    'the desired state',
  );
  await quiet(cluster);
});
afterAll(async () => {
  await cluster.stop();
  rmSync(root, { recursive: true, force: true });
});

describe('the storage loops restarted at the desired state', () => {
  it('make zero writes, and the store does not move', async () => {
    const directories = readdirSync(root);
    expect(directories).toHaveLength(1);
    await cluster.stopControllers();
    const writes = cluster.writes(MANAGER);
    const revision = await cluster.store.revision();
    const manager = await cluster.startControllers(options);
    await quiet(cluster);
    expect(cluster.writes(MANAGER) - writes).toBe(0);
    expect((await cluster.store.revision()) - revision).toBe(0);
    expect(readdirSync(root)).toEqual(directories);
    // The zero is not a manager that did nothing: every claim and volume was looked at again.
    expect((await queueTotals(manager)).done).toBeGreaterThanOrEqual(5);
  }, 60_000);
});
