import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pod } from '../../src/api/index.js';
import { builtin, Client } from '../../src/client/index.js';
import { podGcController } from '../../controllers/podgc/index.js';
import { startTestServer, TOKEN, type TestServer } from '../apiserver/harness.js';
import { eventually, isGone, loopHarness, type LoopHarness } from './support.js';
import { VirtualClock } from './virtual-clock.js';

// The pod garbage collector against a real API server (sqlite), its 20 s passes on virtual time.
// Each case has its own namespace; the terminated-pod threshold counts the whole cluster, so the
// other cases leave no terminated pod behind.
describe('pod garbage collector', () => {
  let server: TestServer;
  let client: Client;
  let loop: LoopHarness;
  const clock = new VirtualClock(Date.now());

  beforeAll(async () => {
    server = await startTestServer('sqlite', { listen: true });
    client = new Client({ server: server.url!, token: TOKEN });
    loop = loopHarness(client);
    loop.run(podGcController(loop.ctx, { terminatedPodThreshold: 2, scheduler: clock }));
  });
  afterAll(async () => {
    loop.stop();
    await client.destroy();
    await server.close();
  });

  const passes = () => loop.results.length;
  /** Moves time by one pass period and waits for that pass to finish. */
  async function pass(): Promise<void> {
    const before = passes();
    await clock.advance(20_000);
    await eventually(() => passes() > before, 'a pass');
  }
  const makePod = (name: string, extra: { nodeName?: string; finalizers?: string[] } = {}) =>
    client.create(builtin.pods, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: 'default', ...(extra.finalizers ? { finalizers: extra.finalizers } : {}) },
      spec: { containers: [{ name: 'c', image: 'busybox' }], ...(extra.nodeName ? { nodeName: extra.nodeName } : {}) },
    } as Pod);
  const setPhase = async (name: string, phase: 'Succeeded' | 'Failed') => {
    const pod = await client.get(builtin.pods, name, { namespace: 'default' });
    await client.updateStatus(builtin.pods, { ...pod, status: { ...pod.status, phase } });
  };
  const gone = (name: string) => isGone(client.get(builtin.pods, name, { namespace: 'default' }));
  /**
   * Waits until the loop's informers hold what `check` asks. A pass reads the caches, and a watch
   * event may reach them after the write's answer (the server holds a busy watch's frames for
   * --watch-write-interval): a pass run before would see the state before the case's writes.
   */
  const cached = (check: (pod: (name: string) => Pod | undefined, node: (name: string) => boolean) => boolean, what: string) =>
    eventually(
      () =>
        check(
          (name) => loop.ctx.informers.informer(builtin.pods).store.getByName(name, 'default'),
          (name) => loop.ctx.informers.informer(builtin.nodes).store.getByName(name) !== undefined,
        ),
      `${what} in the loop's caches`,
    );

  it('deletes the oldest terminated pods beyond the threshold, and no running pod', async () => {
    for (const name of ['done-1', 'done-2', 'done-3', 'done-4', 'live']) await makePod(name);
    for (const name of ['done-1', 'done-2', 'done-3', 'done-4']) await setPhase(name, name === 'done-2' ? 'Failed' : 'Succeeded');
    // Their phases, not just their presence: a pod is created Pending, so the cache holds a phase
    // before the status writes' events arrive, and a pass then would count fewer than three terminated.
    await cached((pod) => ['done-1', 'done-2', 'done-3', 'done-4'].every((name) => pod(name)?.status?.phase === (name === 'done-2' ? 'Failed' : 'Succeeded')) && pod('live') !== undefined, 'the four terminated pods');
    await pass();
    await eventually(async () => (await gone('done-1')) && (await gone('done-2')), 'the two oldest gone');
    expect(await gone('done-3')).toBe(false);
    expect(await gone('done-4')).toBe(false);
    expect(await gone('live')).toBe(false);
    for (const name of ['done-3', 'done-4', 'live']) await client.delete(builtin.pods, name, { namespace: 'default', gracePeriodSeconds: 0 });
  });

  it('deletes pods bound to a node that no longer exists, after the 40 s quarantine, marked Failed first', async () => {
    await client.create(builtin.nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
    await makePod('on-n1', { nodeName: 'n1' });
    // A finalizer keeps the orphan readable after its delete: its status shows what podgc wrote.
    await makePod('on-ghost', { nodeName: 'ghost', finalizers: ['example.com/hold'] });
    await cached((pod, node) => node('n1') && pod('on-n1') !== undefined && pod('on-ghost') !== undefined, 'n1 and its pods');
    await pass();
    await pass();
    expect((await client.get(builtin.pods, 'on-ghost', { namespace: 'default' })).metadata.deletionTimestamp).toBeUndefined();
    await pass();
    await eventually(async () => (await client.get(builtin.pods, 'on-ghost', { namespace: 'default' })).metadata.deletionTimestamp !== undefined, 'the orphan deleted');
    const orphan = await client.get(builtin.pods, 'on-ghost', { namespace: 'default' });
    expect(orphan.status?.phase).toBe('Failed');
    expect(orphan.status?.conditions?.find((c) => c.type === 'DisruptionTarget')).toMatchObject({ status: 'True', reason: 'DeletionByPodGC' });
    expect((await client.get(builtin.pods, 'on-n1', { namespace: 'default' })).metadata.deletionTimestamp).toBeUndefined();
    await client.patch(builtin.pods, 'on-ghost', { metadata: { finalizers: null } }, { namespace: 'default' });
    await client.delete(builtin.pods, 'on-n1', { namespace: 'default', gracePeriodSeconds: 0 });
  });

  it('spares a node that comes back within the quarantine', async () => {
    await makePod('on-late', { nodeName: 'late' });
    await cached((pod) => pod('on-late') !== undefined, 'on-late');
    await pass();
    await client.create(builtin.nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'late' } });
    await cached((_, node) => node('late'), 'node late');
    await pass();
    await pass();
    await pass();
    expect((await client.get(builtin.pods, 'on-late', { namespace: 'default' })).metadata.deletionTimestamp).toBeUndefined();
    await client.delete(builtin.pods, 'on-late', { namespace: 'default', gracePeriodSeconds: 0 });
  });

  it('marks an unscheduled terminating pod Failed and deletes it', async () => {
    await makePod('stuck', { finalizers: ['example.com/hold'] });
    await client.delete(builtin.pods, 'stuck', { namespace: 'default' });
    await cached((pod) => pod('stuck')?.metadata.deletionTimestamp !== undefined, 'stuck terminating');
    await pass();
    await eventually(async () => (await client.get(builtin.pods, 'stuck', { namespace: 'default' })).status?.phase === 'Failed', 'marked Failed');
    const stuck = await client.get(builtin.pods, 'stuck', { namespace: 'default' });
    expect(stuck.status?.conditions?.find((c) => c.type === 'DisruptionTarget')).toMatchObject({ reason: 'DeletionByPodGC' });
    await client.patch(builtin.pods, 'stuck', { metadata: { finalizers: null } }, { namespace: 'default' });
    await eventually(() => gone('stuck'), 'stuck gone');
  });

  it('marks Failed and deletes the terminating pods of a node that is down and tainted out-of-service', async () => {
    await client.create(builtin.nodes, {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'down' },
      spec: { taints: [{ key: 'node.kubernetes.io/out-of-service', value: 'nodeshutdown', effect: 'NoExecute' }] },
    });
    await makePod('on-down', { nodeName: 'down', finalizers: ['example.com/hold'] });
    await makePod('on-down-live', { nodeName: 'down' });
    await client.delete(builtin.pods, 'on-down', { namespace: 'default' });
    await cached((pod, node) => node('down') && pod('on-down')?.metadata.deletionTimestamp !== undefined && pod('on-down-live') !== undefined, 'down and its pods');
    await pass();
    await eventually(async () => (await client.get(builtin.pods, 'on-down', { namespace: 'default' })).status?.phase === 'Failed', 'marked Failed');
    expect((await client.get(builtin.pods, 'on-down', { namespace: 'default' })).status?.conditions?.find((c) => c.type === 'DisruptionTarget')).toMatchObject({ reason: 'DeletionByPodGC' });
    // Not terminating: left to its node.
    expect((await client.get(builtin.pods, 'on-down-live', { namespace: 'default' })).metadata.deletionTimestamp).toBeUndefined();
    await client.patch(builtin.pods, 'on-down', { metadata: { finalizers: null } }, { namespace: 'default' });
    await client.delete(builtin.pods, 'on-down-live', { namespace: 'default', gracePeriodSeconds: 0 });
  });
});
