import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Lease } from '../../../src/api/index.js';
import { builtin, type Client } from '../../../src/client/index.js';
import { startTestCluster, VirtualTime, type TestCluster } from '../../../src/testing/index.js';
import { garbageCollector, nodeLifecycleController } from '../../../controllers/index.js';
import { cacheHolds } from '../../support/cache-holds.js';
import { eventually, isGone, loopHarness, type LoopHarness } from '../support.js';
import { cachesHold, createSimNode, lifecycleOptions, PERIOD, readyOf, renewLease } from './node-sim.js';

// The garbage collector and the node lifecycle in one manager's context read Leases through one
// shared informer of whole Leases (one watch: a renewal is framed and decoded once, not once per
// loop), and each still sees what it needs: the lifecycle every renewal's renewTime, the collector
// the Leases' owners and dependents.
const LIFECYCLE = 'node-lifecycle-controller';

describe('Leases: one watch for the garbage collector and the node lifecycle', () => {
  let cluster: TestCluster;
  let client: Client;
  let loops: LoopHarness;
  /** Lease watches open before the loops start (the test server's own, if any). */
  let othersWatches = 0;
  const time = new VirtualTime(Date.now());

  beforeAll(async () => {
    cluster = await startTestCluster();
    client = cluster.client;
    othersWatches = await watchersOf('Lease');
    loops = loopHarness(client);
    loops.run(garbageCollector(loops.ctx, { concurrency: 5 }));
    loops.run(
      nodeLifecycleController(loops.ctx, lifecycleOptions(time)),
    );
  });
  afterAll(async () => {
    loops.stop();
    await cluster.stop();
  });

  const passes = () => loops.results.filter((r) => r.controller === LIFECYCLE).length;

  /** The API server's `apiserver_registered_watchers` of one kind (its /metrics, read as the admin). */
  async function watchersOf(kind: string): Promise<number> {
    const text = (await client.transport.request({ method: 'GET', path: '/metrics', accept: 'text/plain', decode: (bytes) => Buffer.from(bytes).toString('utf8') })) as string;
    const line = text.split('\n').find((l) => l.startsWith('apiserver_registered_watchers{') && l.includes(`kind="${kind}"`));
    return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
  }

  it('opens one Lease watch for both loops, and both caches are that informer', async () => {
    const lease = await client.create(builtin.leases, { apiVersion: 'coordination.svc.io/v1', kind: 'Lease', metadata: { name: 'probe', namespace: 'default' }, spec: { holderIdentity: 'x' } } as Lease);
    const shared = loops.ctx.informers.informer(builtin.leases);
    // The collector's Lease informer is started once discovery has been read: its cache holds the Lease whole.
    await eventually(() => shared.hasSynced() && shared.store.get('default/probe')?.spec?.holderIdentity === 'x', 'the shared Lease cache to hold the probe');
    await eventually(async () => (await watchersOf('Lease')) > othersWatches, 'the loops\' Lease watch');
    expect((await watchersOf('Lease')) - othersWatches).toBe(1);
    await client.delete(builtin.leases, lease.metadata.name!, { namespace: 'default' });
  });

  it('the collector deletes a dependent of a deleted Lease, and one whose Lease owner never existed', async () => {
    const owner = await client.create(builtin.leases, { apiVersion: 'coordination.svc.io/v1', kind: 'Lease', metadata: { name: 'owner', namespace: 'default' }, spec: { holderIdentity: 'a' } } as Lease);
    const ownerRef = { apiVersion: 'coordination.svc.io/v1', kind: 'Lease', name: 'owner', uid: owner.metadata.uid! };
    await client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'of-lease', ownerReferences: [ownerRef] } }, { namespace: 'default' });
    await client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'of-no-lease', ownerReferences: [{ ...ownerRef, name: 'missing', uid: 'no-such-uid' }] } }, { namespace: 'default' });
    await eventually(() => isGone(client.get(builtin.configMaps, 'of-no-lease', { namespace: 'default' })), 'the dependent of a missing Lease to go');
    // Renewals (updates that leave the owners alone) collect nothing.
    for (const at of [1, 2, 3]) {
      const current = await client.get(builtin.leases, 'owner', { namespace: 'default' });
      await client.update(builtin.leases, { ...current, spec: { ...current.spec, holderIdentity: `a${at}` } });
    }
    expect((await client.get(builtin.configMaps, 'of-lease', { namespace: 'default' })).metadata.name).toBe('of-lease');
    await client.delete(builtin.leases, 'owner', { namespace: 'default' });
    await eventually(() => isGone(client.get(builtin.configMaps, 'of-lease', { namespace: 'default' })), 'the dependent of the deleted Lease to go');
  });

  it('the lifecycle sees renewals through the shared cache: a renewing node stays Ready, a silent one goes Unknown', async () => {
    const renewing = await createSimNode(client, 'renewing', time.now());
    const silent = await createSimNode(client, 'silent', time.now());
    const shared = loops.ctx.informers.informer(builtin.leases);
    await cachesHold(loops.ctx, renewing, silent);
    for (let pass = 0; pass < 12; pass++) {
      // The pass must read this renewal: wait for the cache to hold it before the clock moves.
      await cacheHolds(shared, await renewLease(client, 'renewing', time.now() + PERIOD));
      const before = passes();
      await time.advanceBy(PERIOD);
      await eventually(() => passes() > before, 'a monitor pass');
    }
    await eventually(async () => (await readyOf(client, 'silent')) === 'Unknown', 'the silent node to go Unknown');
    expect(await readyOf(client, 'renewing')).toBe('True');
  });
});
