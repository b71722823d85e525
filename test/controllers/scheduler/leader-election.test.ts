/**
 * Two replicas behind leader election on the Lease svc-system/svc-scheduler: only the leader
 * binds; when it stops (releasing the Lease) the other takes over and binds what comes next.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Subscription } from 'rxjs';
import { builtin } from '../../../src/client/index.js';
import { leaderElectedScheduler, type ScheduleResult } from '../../../controllers/scheduler/index.js';
import { boundNode, createNodes, createPods, node, pod, startBed, until, type SchedulerTestBed } from './support.js';

let bed: SchedulerTestBed;
const subscriptions: Subscription[] = [];
beforeEach(async () => {
  bed = await startBed();
});
afterEach(async () => {
  for (const s of subscriptions.splice(0)) s.unsubscribe();
  await bed?.close();
});

function replica(identity: string) {
  const results: ScheduleResult[] = [];
  const leading: boolean[] = [];
  const subscription = leaderElectedScheduler({
    client: bed.newClient(),
    identity,
    bucket: false,
    leaseDuration: 1500,
    renewDeadline: 1000,
    retryPeriod: 100,
    onLeading: (l) => leading.push(l),
  }).subscribe((r) => results.push(r));
  subscriptions.push(subscription);
  return { identity, results, leading, subscription };
}

describe('leader election', () => {
  it('only the leader binds; the other takes over when the leader stops', async () => {
    await bed.client.create(builtin.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'svc-system' } }).catch(() => undefined);
    await createNodes(bed.client, node('n1'));
    const a = replica('a');
    const b = replica('b');
    await until(() => a.leading.includes(true) || b.leading.includes(true), 'a leader');
    const [leader, follower] = a.leading.at(-1) ? [a, b] : [b, a];
    const lease = await bed.client.get(builtin.leases, 'svc-scheduler', { namespace: 'svc-system' });
    expect(lease.spec?.holderIdentity).toBe(leader.identity);

    await createPods(bed.client, ...Array.from({ length: 10 }, (_, i) => pod(`p${i}`)));
    for (let i = 0; i < 10; i++) await boundNode(bed.client, `p${i}`);
    await until(() => leader.results.filter((r) => r.type === 'bound').length === 10, 'the leader reports 10 bindings');
    expect(follower.results).toEqual([]);
    expect(follower.leading).not.toContain(true);

    leader.subscription.unsubscribe();
    await until(() => follower.leading.includes(true), 'the follower to lead', 10_000);
    await createPods(bed.client, pod('after'));
    expect(await boundNode(bed.client, 'after')).toBe('n1');
    expect(follower.results).toContainEqual({ type: 'bound', pod: 'default/after', node: 'n1' });
  });
});
