import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rfc3339, type Job, type Pod } from '../../src/api/index.js';
import { builtin, Client } from '../../src/client/index.js';
import { ttlAfterFinishedController } from '../../controllers/ttl-after-finished/index.js';
import { startTestServer, TOKEN, type TestServer } from '../apiserver/harness.js';
import { eventually, isGone, loopHarness, type LoopHarness } from './support.js';
import { VirtualClock } from './virtual-clock.js';

// Finished Jobs deleted ttlSecondsAfterFinished after they finished, on virtual time, against a
// real API server (sqlite). No Job controller runs: the test finishes Jobs through their status.
const NS = 'default';

describe('ttl-after-finished controller', () => {
  let server: TestServer;
  let client: Client;
  let loop: LoopHarness;
  const clock = new VirtualClock(Date.now());

  beforeAll(async () => {
    server = await startTestServer('sqlite', { listen: true });
    client = new Client({ server: server.url!, token: TOKEN });
    loop = loopHarness(client);
    loop.run(ttlAfterFinishedController(loop.ctx, { concurrency: 5, scheduler: clock }));
  });
  afterAll(async () => {
    loop.stop();
    await client.destroy();
    await server.close();
  });

  const makeJob = (name: string, ttl?: number) =>
    client.create(builtin.jobs, {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name, namespace: NS },
      spec: { ...(ttl !== undefined ? { ttlSecondsAfterFinished: ttl } : {}), template: { spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'Never' } } },
    } as Job);
  const finish = async (name: string) => {
    const job = await client.get(builtin.jobs, name, { namespace: NS });
    const at = rfc3339(clock.now());
    return client.updateStatus(builtin.jobs, { ...job, status: { succeeded: 1, startTime: at, completionTime: at, conditions: [{ type: 'Complete', status: 'True', lastTransitionTime: at, lastProbeTime: at }] } });
  };
  const syncsOf = (name: string) => loop.results.filter((r) => r.key === `${NS}/${name}`).length;
  const exists = async (name: string) => !(await isGone(client.get(builtin.jobs, name, { namespace: NS })));

  it('deletes a finished Job once its TTL has passed, in the background (its pods are left to the garbage collector)', async () => {
    const job = await makeJob('short', 100);
    await client.create(builtin.pods, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'short-pod', namespace: NS, ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'short', uid: job.metadata.uid!, controller: true, blockOwnerDeletion: true }] },
      spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'Never' },
    } as Pod);
    const seen = syncsOf('short');
    await finish('short');
    await eventually(() => syncsOf('short') > seen, 'a sync after the finish');
    await clock.advance(99_000);
    expect(await exists('short')).toBe(true);
    await clock.advance(1_000);
    // Background propagation: the Job goes at once (no foregroundDeletion or orphan finalizer holds it).
    await eventually(async () => !(await exists('short')), 'the Job deleted');
    expect((await client.get(builtin.pods, 'short-pod', { namespace: NS })).metadata.ownerReferences?.[0]?.name).toBe('short');
  });

  it('honours a TTL raised before it passed, and leaves Jobs without TTL or not finished alone', async () => {
    await makeJob('raised', 50);
    await makeJob('forever');
    await makeJob('running', 1);
    const seen = syncsOf('raised');
    await finish('raised');
    await finish('forever');
    await eventually(() => syncsOf('raised') > seen, 'a sync after the finish');
    await clock.advance(30_000);
    await client.patch(builtin.jobs, 'raised', { spec: { ttlSecondsAfterFinished: 500 } }, { namespace: NS });
    await eventually(() => syncsOf('raised') > seen + 1, 'a sync after the raise');
    const before = syncsOf('raised');
    await clock.advance(30_000);
    // The old TTL's look (at 50 s) finds the new one and waits on.
    await eventually(() => syncsOf('raised') > before, 'the look at the old TTL');
    expect(await exists('raised')).toBe(true);
    await clock.advance(439_000);
    expect(await exists('raised')).toBe(true);
    await clock.advance(20_000);
    await eventually(async () => !(await exists('raised')), 'the raised Job deleted at its new TTL');
    await clock.advance(3_600_000);
    expect(await exists('forever')).toBe(true);
    expect(await exists('running')).toBe(true);
  });
});
