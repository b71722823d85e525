import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rfc3339, type Job, type Pod } from '../../src/api/index.js';
import { builtin, type Client } from '../../src/client/index.js';
import { jobController } from '../../controllers/job/index.js';
import { startTestCluster, type TappedWrite, type TestCluster } from '../../src/testing/index.js';
import { eventually, loopHarness, type LoopHarness } from './support.js';
import { VirtualClock } from './virtual-clock.js';

// The Job loop's status write that counts a failed pod, refused with a real 409 Conflict: the test
// kit holds the write while the test changes the Job, so the write carries a resourceVersion the
// server has moved past. The failure must count toward the back-off once (10 s), not once per
// attempt (the fix of 7becb19: it doubled to 20 s).
const NS = 'default';
const AGENT = 'job-loop-under-test';

describe('job controller, its counting write refused with 409', () => {
  let cluster: TestCluster;
  let client: Client;
  let loop: LoopHarness;
  const clock = new VirtualClock('2026-01-01T00:00:00Z');
  const answered: TappedWrite[] = [];

  beforeAll(async () => {
    cluster = await startTestCluster();
    client = cluster.newClient({ userAgent: AGENT });
    cluster.writeTap.listen(AGENT, (write) => answered.push(write));
    loop = loopHarness(client);
    loop.run(jobController(loop.ctx, { concurrency: 1, scheduler: clock }));
  });
  afterAll(async () => {
    loop.stop();
    await cluster.stop();
  });

  const getJob = () => cluster.client.get(builtin.jobs, 'racy', { namespace: NS });
  const running = async () =>
    (await cluster.client.list(builtin.pods, { namespace: NS, labelSelector: 'batch.svc.io/job-name=racy' })).items.filter(
      (p) => !p.metadata.deletionTimestamp && p.status?.phase !== 'Failed' && p.status?.phase !== 'Succeeded',
    );
  const statusPath = `/apis/batch/v1/namespaces/${NS}/jobs/racy/status`;
  const countsAFailure = (write: Pick<TappedWrite, 'method' | 'path' | 'request'>) => {
    if (write.method !== 'PUT' || !write.path.startsWith(statusPath) || write.request === undefined) return false;
    const job = JSON.parse(write.request.toString('utf8')) as Job;
    return ((job.status?.uncountedTerminatedPods?.['failed'] as string[] | undefined) ?? []).length > 0;
  };

  it('counts the failure once: the next pod waits 10 s, not 20 s', async () => {
    await cluster.client.create(builtin.jobs, {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'racy', namespace: NS },
      spec: { backoffLimit: 5, template: { spec: { containers: [{ name: 'main', image: 'busybox' }], restartPolicy: 'Never' } } },
    } as Job);
    let pods: Pod[] = [];
    await eventually(async () => (pods = await running()).length === 1, 'the first pod');

    // The first write that counts the failure waits for this Job change, then meets the server.
    let raced = false;
    cluster.writeTap.interleave(AGENT, async (write) => {
      if (raced || !countsAFailure(write)) return;
      raced = true;
      await cluster.client.patch(builtin.jobs, 'racy', { metadata: { labels: { raced: 'yes' } } }, { namespace: NS });
    });

    const at = rfc3339(clock.now());
    const pod = pods[0]!;
    await cluster.client.updateStatus(builtin.pods, {
      ...pod,
      status: {
        ...pod.status,
        phase: 'Failed',
        containerStatuses: [{ name: 'main', image: 'busybox', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode: 1, finishedAt: at, startedAt: at } } }],
      },
    });
    await eventually(async () => (await getJob()).status?.failed === 1, 'failed 1');
    expect(raced).toBe(true);
    expect(answered.filter((w) => countsAFailure(w) && w.code === 409).length).toBeGreaterThanOrEqual(1);
    expect(answered.filter((w) => countsAFailure(w) && w.code === 200)).toHaveLength(1);

    // One failure since the last success: the loop waits 10 s from the pod's end, no longer.
    const waits = () => loop.results.filter((r) => r.key === `${NS}/racy` && r.type === 'requeueAfter').map((r) => (r as { after: number }).after);
    await eventually(() => waits().length > 0, 'a sync that waits out the back-off');
    expect(Math.max(...waits())).toBe(10_000);
    await clock.advance(9_999);
    expect(await running()).toHaveLength(0);
    await clock.advance(1);
    await eventually(async () => (await running()).length === 1, 'the second pod at 10 s');
  });
});
