import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rfc3339, type CronJob, type Job } from '../../src/api/index.js';
import { builtin, Client } from '../../src/client/index.js';
import { cronJobController } from '../../controllers/cronjob/index.js';
import { startTestServer, TOKEN, type TestServer } from '../apiserver/harness.js';
import { kubectl, useKubectlServer } from '../support/kubectl.js';
import { eventually, isGone, loopHarness, type LoopHarness } from './support.js';
import { VirtualClock } from './virtual-clock.js';

// The CronJob controller against a real API server (sqlite), on virtual time: the clock starts at
// the real time the CronJobs are created at (their creationTimestamp is the server's) and the
// test moves it to schedule times. No Job controller runs: the test ends Jobs through their status.
const NS = 'default';
const MINUTE = 60_000;

describe('cronjob controller', () => {
  let server: TestServer;
  let client: Client;
  let loop: LoopHarness;
  let clock: VirtualClock;

  beforeAll(async () => {
    server = await startTestServer('sqlite', { listen: true });
    client = new Client({ server: server.url!, token: TOKEN });
    clock = new VirtualClock(Date.now());
    loop = loopHarness(client);
    loop.run(cronJobController(loop.ctx, { concurrency: 5, scheduler: clock }));
  });
  afterAll(async () => {
    loop.stop();
    await client.destroy();
    await server.close();
  });

  /**
   * A CronJob whose schedule counts from the virtual now: made suspended, its lastScheduleTime set
   * to the clock (its creationTimestamp is the server's real time, behind or ahead of the clock),
   * then resumed unless `spec.suspend` says otherwise.
   */
  async function makeCronJob(name: string, spec: Record<string, unknown>): Promise<CronJob> {
    const created = await client.create(builtin.cronJobs, {
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name, namespace: NS },
      spec: {
        schedule: '* * * * *',
        jobTemplate: { metadata: { labels: { from: name } }, spec: { template: { spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'Never' } } } },
        ...spec,
        suspend: true,
      },
    } as CronJob);
    await client.updateStatus(builtin.cronJobs, { ...created, status: { lastScheduleTime: rfc3339(clock.now()) } });
    if (spec['suspend'] === true) return created;
    return client.patch(builtin.cronJobs, name, { spec: { suspend: false } }, { namespace: NS });
  }
  const getCronJob = (name: string) => client.get(builtin.cronJobs, name, { namespace: NS });
  const jobsOf = async (name: string) => (await client.list(builtin.jobs, { namespace: NS, labelSelector: `from=${name}` })).items.filter((j) => !j.metadata.deletionTimestamp);
  const eventsOf = async (name: string) => (await client.list(builtin.coreEvents, { namespace: NS })).items.filter((e) => e.involvedObject.name === name);
  /** Moves the clock to `seconds` past the next minute boundary. */
  const toNextMinute = (seconds = 1) => clock.advance(MINUTE - (clock.now() % MINUTE) + seconds * 1000);
  async function finish(job: Job, type: 'Complete' | 'Failed'): Promise<void> {
    const at = rfc3339(clock.now());
    await client.updateStatus(builtin.jobs, {
      ...job,
      status: { startTime: at, ...(type === 'Complete' ? { completionTime: at, succeeded: 1 } : { failed: 1 }), conditions: [{ type, status: 'True', lastTransitionTime: at, lastProbeTime: at }] },
    });
  }

  it('starts a Job at each schedule time, named for it, owned, listed as active; a completion moves lastSuccessfulTime', async () => {
    await makeCronJob('every', {});
    await toNextMinute();
    const scheduled = clock.now() - 1000;
    await eventually(async () => (await jobsOf('every')).length === 1, 'the first Job');
    const [job] = await jobsOf('every');
    expect(job!.metadata.name).toBe(`every-${Math.floor(scheduled / MINUTE)}`);
    expect(job!.metadata.ownerReferences?.[0]).toMatchObject({ apiVersion: 'batch/v1', kind: 'CronJob', name: 'every', controller: true });
    expect(job!.metadata.annotations?.['batch.svc.io/cronjob-scheduled-timestamp']).toBe(rfc3339(scheduled));
    await eventually(async () => (await getCronJob('every')).status?.active?.length === 1, 'status.active');
    const cj = await getCronJob('every');
    expect(cj.status?.active?.[0]).toMatchObject({ kind: 'Job', name: job!.metadata.name, uid: job!.metadata.uid });
    expect(cj.status?.lastScheduleTime).toBe(rfc3339(scheduled));

    await finish(job!, 'Complete');
    await eventually(async () => (await getCronJob('every')).status?.active === undefined, 'active emptied');
    expect((await getCronJob('every')).status?.lastSuccessfulTime).toBe(rfc3339(clock.now()));
    await client.patch(builtin.cronJobs, 'every', { spec: { suspend: true } }, { namespace: NS });
  });

  it('Forbid skips a start while a Job runs; Replace deletes the running one and starts anew', async () => {
    await makeCronJob('forbid', { concurrencyPolicy: 'Forbid' });
    await makeCronJob('replace', { concurrencyPolicy: 'Replace' });
    await toNextMinute();
    await eventually(async () => (await jobsOf('forbid')).length === 1 && (await jobsOf('replace')).length === 1, 'first Jobs');
    const [firstReplace] = await jobsOf('replace');
    await eventually(async () => (await getCronJob('replace')).status?.active?.length === 1 && (await getCronJob('forbid')).status?.active?.length === 1, 'active listed');
    await toNextMinute();
    await eventually(async () => (await getCronJob('replace')).status?.active?.[0]?.uid !== firstReplace!.metadata.uid, 'replaced');
    await eventually(() => isGone(client.get(builtin.jobs, firstReplace!.metadata.name!, { namespace: NS })), 'the replaced Job gone');
    expect(await jobsOf('replace')).toHaveLength(1);
    // Forbid: still the one Job, and it is not queued for later.
    expect(await jobsOf('forbid')).toHaveLength(1);
    expect((await getCronJob('forbid')).status?.lastScheduleTime).toBe(rfc3339(clock.now() - MINUTE - 1000));
    for (const name of ['forbid', 'replace']) await client.patch(builtin.cronJobs, name, { spec: { suspend: true } }, { namespace: NS });
  });

  it('keeps no more finished Jobs than the history limits', async () => {
    await makeCronJob('history', { successfulJobsHistoryLimit: 1, failedJobsHistoryLimit: 1 });
    for (let i = 0; i < 3; i++) {
      await toNextMinute();
      await eventually(async () => (await jobsOf('history')).some((j) => !j.status?.conditions), `Job ${i}`);
      const running = (await jobsOf('history')).find((j) => !j.status?.conditions)!;
      await finish(running, i === 1 ? 'Failed' : 'Complete');
      await eventually(async () => (await getCronJob('history')).status?.active === undefined, `Job ${i} seen finished`);
    }
    await eventually(async () => (await jobsOf('history')).length === 2, 'one successful and one failed Job kept');
    const kept = await jobsOf('history');
    expect(kept.map((j) => j.status?.conditions?.[0]?.type).sort()).toEqual(['Complete', 'Failed']);
    await client.patch(builtin.cronJobs, 'history', { spec: { suspend: true } }, { namespace: NS });
  });

  it('starts nothing while suspended; after it, only the latest missed time, and none past startingDeadlineSeconds', async () => {
    await makeCronJob('late', { suspend: true, startingDeadlineSeconds: 10 });
    await makeCronJob('catchup', { suspend: true });
    await clock.advance(3 * MINUTE);
    await toNextMinute(30);
    expect(await jobsOf('late')).toHaveLength(0);
    expect(await jobsOf('catchup')).toHaveLength(0);
    const seen = loop.results.length;
    await client.patch(builtin.cronJobs, 'late', { spec: { suspend: false } }, { namespace: NS });
    await client.patch(builtin.cronJobs, 'catchup', { spec: { suspend: false } }, { namespace: NS });
    await eventually(async () => (await jobsOf('catchup')).length === 1, 'the catch-up Job');
    expect((await jobsOf('catchup'))[0]!.metadata.name).toBe(`catchup-${Math.floor(clock.now() / MINUTE)}`);
    // 30 s late with a 10 s deadline: that time is past its window (as upstream, nothing is started or reported).
    await eventually(() => loop.results.slice(seen).some((r) => r.key === `${NS}/late`), 'a sync of late');
    expect(await jobsOf('late')).toHaveLength(0);
    // Within the deadline at the next time, it starts.
    await toNextMinute(5);
    await eventually(async () => (await jobsOf('late')).length === 1, 'the in-time Job');
    for (const name of ['late', 'catchup']) await client.patch(builtin.cronJobs, name, { spec: { suspend: true } }, { namespace: NS });
  });

  it('reports more than 100 missed start times and starts only the latest', async () => {
    await makeCronJob('missed', { suspend: true });
    await clock.advance(150 * MINUTE);
    await client.patch(builtin.cronJobs, 'missed', { spec: { suspend: false } }, { namespace: NS });
    await eventually(async () => (await jobsOf('missed')).length === 1, 'one Job');
    expect((await jobsOf('missed'))[0]!.metadata.name).toBe(`missed-${Math.floor(clock.now() / MINUTE)}`);
    await eventually(async () => (await eventsOf('missed')).some((e) => e.reason === 'TooManyMissedTimes' && e.type === 'Warning'), 'TooManyMissedTimes event');
    await client.patch(builtin.cronJobs, 'missed', { spec: { suspend: true } }, { namespace: NS });
  });

  it('reads the schedule in its timeZone', async () => {
    // 09:00 in Tokyo is 00:00 UTC.
    await makeCronJob('tokyo', { schedule: '0 9 * * *', timeZone: 'Asia/Tokyo' });
    const DAY = 24 * 60 * MINUTE;
    const nextUtcMidnight = Math.ceil((clock.now() + 1) / DAY) * DAY;
    await clock.advance(nextUtcMidnight - clock.now() + 1000);
    await eventually(async () => (await jobsOf('tokyo')).length === 1, 'the Tokyo Job');
    expect((await jobsOf('tokyo'))[0]!.metadata.name).toBe(`tokyo-${nextUtcMidnight / MINUTE}`);
    await client.patch(builtin.cronJobs, 'tokyo', { spec: { suspend: true } }, { namespace: NS });
  });

  it('reads macros: @hourly starts at the hour', async () => {
    await makeCronJob('hourly', { schedule: '@hourly' });
    const HOUR = 60 * MINUTE;
    const nextHour = Math.ceil((clock.now() + 1) / HOUR) * HOUR;
    await clock.advance(nextHour - clock.now() + 1000);
    await eventually(async () => (await jobsOf('hourly')).length === 1, 'the hourly Job');
    expect((await jobsOf('hourly'))[0]!.metadata.name).toBe(`hourly-${nextHour / MINUTE}`);
    await client.patch(builtin.cronJobs, 'hourly', { spec: { suspend: true } }, { namespace: NS });
  });

  it('makes no write when restarted at steady state', async () => {
    const versions = async () =>
      [...(await client.list(builtin.cronJobs, { namespace: NS })).items, ...(await client.list(builtin.jobs, { namespace: NS })).items].map((o) => `${o.kind}/${o.metadata.name}@${o.metadata.resourceVersion}`).sort();
    loop.stop();
    const before = await versions();
    loop = loopHarness(client);
    loop.run(cronJobController(loop.ctx, { concurrency: 5, scheduler: clock }));
    const count = (await client.list(builtin.cronJobs, { namespace: NS })).items.length;
    await eventually(() => new Set(loop.results.map((r) => r.key)).size >= count, 'every CronJob synced');
    expect(await versions()).toEqual(before);
  });
});

describe('kubectl create job --from=cronjob', () => {
  const kube = useKubectlServer('svc-cronjob-kubectl-');

  it('makes a Job from the CronJob\'s template, owned by it', async () => {
    const manifest = JSON.stringify({
      apiVersion: 'batch/v1',
      kind: 'CronJob',
      metadata: { name: 'nightly', namespace: 'default' },
      spec: { schedule: '@daily', jobTemplate: { spec: { template: { metadata: { labels: { app: 'nightly' } }, spec: { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'OnFailure' } } } } },
    });
    const applied = await kubectl(kube.config, ['apply', '-f', '-'], manifest);
    expect(applied.code, applied.stderr).toBe(0);
    const created = await kubectl(kube.config, ['create', 'job', '--from=cronjob/nightly', 'nightly-manual']);
    expect(created.code, created.stderr).toBe(0);
    const got = await kubectl(kube.config, ['get', 'job', 'nightly-manual', '-o', 'json']);
    expect(got.code, got.stderr).toBe(0);
    const job = JSON.parse(got.stdout) as Job;
    expect(job.metadata.annotations?.['cronjob.kubernetes.io/instantiate']).toBe('manual');
    expect(job.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'CronJob', name: 'nightly', controller: true });
    expect(job.spec.template.metadata?.labels).toMatchObject({ app: 'nightly', 'batch.svc.io/job-name': 'nightly-manual' });
    expect(job.spec.selector).toEqual({ matchLabels: { 'batch.svc.io/controller-uid': job.metadata.uid } });
  });
});
