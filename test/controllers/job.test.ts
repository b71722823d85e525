import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rfc3339, type Job, type Pod } from '../../src/api/index.js';
import { builtin, Client } from '../../src/client/index.js';
import { jobController } from '../../controllers/job/index.js';
import { startTestServer, TOKEN, type TestServer } from '../apiserver/harness.js';
import { eventually, loopHarness, type LoopHarness } from './support.js';
import { VirtualClock } from './virtual-clock.js';

// The Job controller against a real API server (sqlite). No node runs the pods: the test ends
// them through their status, as a node agent would; time (back-off, deadlines) is virtual.
const NS = 'default';
const FINALIZER = 'batch.svc.io/job-tracking';

describe('job controller', () => {
  let server: TestServer;
  let client: Client;
  let loop: LoopHarness;
  const clock = new VirtualClock('2026-01-01T00:00:00Z');

  beforeAll(async () => {
    server = await startTestServer('sqlite', { listen: true });
    client = new Client({ server: server.url!, token: TOKEN });
    loop = loopHarness(client);
    loop.run(jobController(loop.ctx, { concurrency: 5, scheduler: clock }));
  });
  afterAll(async () => {
    loop.stop();
    await client.destroy();
    await server.close();
  });

  const makeJob = (name: string, spec: Record<string, unknown>, restartPolicy = 'Never') =>
    client.create(builtin.jobs, {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name, namespace: NS },
      spec: { template: { spec: { containers: [{ name: 'main', image: 'busybox' }], restartPolicy } }, ...spec },
    } as Job);
  const getJob = (name: string) => client.get(builtin.jobs, name, { namespace: NS });
  const podsOf = async (name: string) => (await client.list(builtin.pods, { namespace: NS, labelSelector: `batch.svc.io/job-name=${name}` })).items;
  const running = async (name: string) => (await podsOf(name)).filter((p) => !p.metadata.deletionTimestamp && p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed');
  const condition = (job: Job, type: string) => job.status?.conditions?.find((c) => c.type === type);

  /** Ends a pod as its node would: the phase and its container's exit code, at virtual now. */
  async function end(pod: Pod, phase: 'Succeeded' | 'Failed', exitCode = phase === 'Succeeded' ? 0 : 1, conditions: unknown[] = []): Promise<void> {
    const at = rfc3339(clock.now());
    const fresh = await client.get(builtin.pods, pod.metadata.name!, { namespace: NS });
    await client.updateStatus(builtin.pods, {
      ...fresh,
      status: {
        ...fresh.status,
        phase,
        conditions: [...(conditions as never[]), { type: 'Ready', status: 'False', lastTransitionTime: at }],
        containerStatuses: [{ name: 'main', image: 'busybox', imageID: '', ready: false, restartCount: 0, state: { terminated: { exitCode, finishedAt: at, startedAt: at } } }],
      },
    });
  }

  async function waitRunning(name: string, n: number): Promise<Pod[]> {
    let pods: Pod[] = [];
    await eventually(async () => (pods = await running(name)).length === n, `${n} running pods of ${name}`);
    return pods;
  }

  it('runs 3 completions 2 at a time, counts each pod once and completes', async () => {
    await makeJob('three', { completions: 3, parallelism: 2 });
    const first = await waitRunning('three', 2);
    for (const pod of first) {
      expect(pod.metadata.finalizers).toContain(FINALIZER);
      expect(pod.metadata.ownerReferences?.[0]).toMatchObject({ apiVersion: 'batch/v1', kind: 'Job', name: 'three', controller: true, blockOwnerDeletion: true });
      expect(pod.metadata.generateName).toBe('three-');
    }
    await eventually(async () => (await getJob('three')).status?.active === 2, 'active 2');
    expect((await getJob('three')).status?.startTime).toBe('2026-01-01T00:00:00Z');

    await end(first[0]!, 'Succeeded');
    // One more is needed: a new pod starts beside the one still running.
    await eventually(async () => (await running('three')).length === 2 && (await getJob('three')).status?.succeeded === 1, 'a replacement and succeeded 1');
    for (const pod of await running('three')) await end(pod, 'Succeeded');

    await eventually(async () => condition(await getJob('three'), 'Complete')?.status === 'True', 'Complete');
    const job = await getJob('three');
    expect(job.status).toMatchObject({ succeeded: 3, failed: 0, active: 0, ready: 0, terminating: 0, completionTime: expect.any(String) });
    expect(job.status?.uncountedTerminatedPods?.['succeeded'] ?? []).toEqual([]);
    expect(condition(job, 'SuccessCriteriaMet')).toMatchObject({ status: 'True', reason: 'CompletionsReached' });
    expect(condition(job, 'Complete')).toMatchObject({ reason: 'CompletionsReached' });
    await eventually(async () => (await client.list(builtin.coreEvents, { namespace: NS })).items.some((e) => e.involvedObject.name === 'three' && e.reason === 'Completed'), 'the Completed Event');
    const pods = await podsOf('three');
    expect(pods).toHaveLength(3);
    for (const pod of pods) expect(pod.metadata.finalizers ?? []).not.toContain(FINALIZER);
  });

  it('backs off after a failure (10 s, doubling) and fails at its backoff limit', async () => {
    await makeJob('flaky', { backoffLimit: 1 });
    const [pod] = await waitRunning('flaky', 1);
    await end(pod!, 'Failed');
    await eventually(async () => (await getJob('flaky')).status?.failed === 1, 'failed 1');
    // Within the back-off no new pod starts.
    await clock.advance(9_000);
    await eventually(async () => loop.results.some((r) => r.key === `${NS}/flaky`), 'a sync');
    expect(await running('flaky')).toHaveLength(0);
    await clock.advance(1_000);
    const [second] = await waitRunning('flaky', 1);
    await end(second!, 'Failed');
    await eventually(async () => condition(await getJob('flaky'), 'Failed')?.status === 'True', 'Failed');
    const job = await getJob('flaky');
    expect(job.status).toMatchObject({ failed: 2, succeeded: 0, active: 0 });
    expect(condition(job, 'FailureTarget')).toMatchObject({ status: 'True', reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' });
    expect(condition(job, 'Failed')).toMatchObject({ reason: 'BackoffLimitExceeded' });
    expect(job.status?.completionTime).toBeUndefined();
    await clock.advance(60_000);
    expect(await running('flaky')).toHaveLength(0);
  });

  it('runs an Indexed Job: index annotation, label, env and hostname; completedIndexes', async () => {
    await makeJob('idx', { completions: 3, parallelism: 3, completionMode: 'Indexed' });
    const pods = await waitRunning('idx', 3);
    const byIndex = new Map(pods.map((p) => [p.metadata.annotations?.['batch.svc.io/job-completion-index'], p]));
    expect([...byIndex.keys()].sort()).toEqual(['0', '1', '2']);
    const pod1 = byIndex.get('1')!;
    expect(pod1.metadata.labels?.['batch.svc.io/job-completion-index']).toBe('1');
    expect(pod1.metadata.generateName).toBe('idx-1-');
    expect(pod1.spec.hostname).toBe('idx-1');
    expect(pod1.spec.containers[0]!.env).toContainEqual({ name: 'JOB_COMPLETION_INDEX', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: "metadata.annotations['batch.svc.io/job-completion-index']" } } });

    await end(pod1, 'Succeeded');
    await eventually(async () => (await getJob('idx')).status?.completedIndexes === '1', 'completedIndexes 1');
    await end(byIndex.get('0')!, 'Succeeded');
    await end(byIndex.get('2')!, 'Succeeded');
    await eventually(async () => condition(await getJob('idx'), 'Complete')?.status === 'True', 'Complete');
    expect((await getJob('idx')).status).toMatchObject({ completedIndexes: '0-2', succeeded: 3 });
  });

  it('fails an index past backoffLimitPerIndex and the Job with FailedIndexes once every index is done', async () => {
    await makeJob('perindex', { completions: 2, parallelism: 2, completionMode: 'Indexed', backoffLimitPerIndex: 1 });
    const pods = await waitRunning('perindex', 2);
    const zero = pods.find((p) => p.metadata.annotations?.['batch.svc.io/job-completion-index'] === '0')!;
    const one = pods.find((p) => p.metadata.annotations?.['batch.svc.io/job-completion-index'] === '1')!;
    await end(zero, 'Failed');
    // Index 0 is retried after its own back-off, carrying its failure count.
    await clock.advance(10_000);
    let retry: Pod | undefined;
    await eventually(async () => (retry = (await running('perindex')).find((p) => p.metadata.annotations?.['batch.svc.io/job-completion-index'] === '0')) !== undefined, 'index 0 retried');
    expect(retry!.metadata.annotations?.['batch.svc.io/job-index-failure-count']).toBe('1');
    await end(retry!, 'Failed');
    await eventually(async () => (await getJob('perindex')).status?.failedIndexes === '0', 'failedIndexes 0');
    await end(one, 'Succeeded');
    await eventually(async () => condition(await getJob('perindex'), 'Failed')?.status === 'True', 'Failed');
    const job = await getJob('perindex');
    expect(job.status).toMatchObject({ failedIndexes: '0', completedIndexes: '1', failed: 2, succeeded: 1 });
    expect(condition(job, 'Failed')).toMatchObject({ reason: 'FailedIndexes' });
  });

  it('applies the pod failure policy: Ignore does not count, FailJob fails the Job at once', async () => {
    await makeJob('policy', {
      backoffLimit: 5,
      podFailurePolicy: {
        rules: [
          { action: 'FailJob', onExitCodes: { operator: 'In', values: [42] } },
          { action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] },
        ],
      },
    });
    const [first] = await waitRunning('policy', 1);
    await end(first!, 'Failed', 137, [{ type: 'DisruptionTarget', status: 'True' }]);
    // Ignored: replaced at once (no back-off) and not counted.
    const [second] = await waitRunning('policy', 1);
    expect((await getJob('policy')).status?.failed ?? 0).toBe(0);
    await end(second!, 'Failed', 42);
    await eventually(async () => condition(await getJob('policy'), 'Failed')?.status === 'True', 'Failed');
    const job = await getJob('policy');
    expect(condition(job, 'Failed')).toMatchObject({ reason: 'PodFailurePolicy', message: expect.stringContaining('exit code 42') });
    expect(job.status?.failed).toBe(1);
  });

  it('succeeds by its success policy and ends the other indexes', async () => {
    await makeJob('leader', { completions: 3, parallelism: 3, completionMode: 'Indexed', successPolicy: { rules: [{ succeededIndexes: '0' }] } });
    const pods = await waitRunning('leader', 3);
    await end(pods.find((p) => p.metadata.annotations?.['batch.svc.io/job-completion-index'] === '0')!, 'Succeeded');
    await eventually(async () => condition(await getJob('leader'), 'Complete')?.status === 'True', 'Complete');
    const job = await getJob('leader');
    expect(condition(job, 'SuccessCriteriaMet')).toMatchObject({ status: 'True', reason: 'SuccessPolicy' });
    expect(job.status).toMatchObject({ completedIndexes: '0', succeeded: 1, active: 0, failed: 0 });
    expect(await running('leader')).toHaveLength(0);
  });

  it('fails a Job active longer than activeDeadlineSeconds and ends its pods', async () => {
    await makeJob('slow', { activeDeadlineSeconds: 30, parallelism: 2, completions: 4 });
    await waitRunning('slow', 2);
    await clock.advance(29_000);
    expect(condition(await getJob('slow'), 'Failed')).toBeUndefined();
    await clock.advance(1_000);
    await eventually(async () => condition(await getJob('slow'), 'Failed')?.status === 'True', 'Failed');
    const job = await getJob('slow');
    expect(condition(job, 'Failed')).toMatchObject({ reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' });
    expect(job.status).toMatchObject({ active: 0, failed: 2 });
    expect(await podsOf('slow')).toHaveLength(0);
  });

  it('suspends and resumes: no pods while suspended, Suspended condition, startTime reset on resume', async () => {
    await makeJob('sleepy', { suspend: true, parallelism: 2, completions: 2 });
    await eventually(async () => condition(await getJob('sleepy'), 'Suspended')?.status === 'True', 'Suspended');
    expect(await podsOf('sleepy')).toHaveLength(0);
    expect(condition(await getJob('sleepy'), 'Suspended')).toMatchObject({ reason: 'JobSuspended' });
    await clock.advance(5_000);
    await client.patch(builtin.jobs, 'sleepy', { spec: { suspend: false } }, { namespace: NS });
    await waitRunning('sleepy', 2);
    await eventually(async () => condition(await getJob('sleepy'), 'Suspended')?.status === 'False', 'resumed');
    expect(condition(await getJob('sleepy'), 'Suspended')).toMatchObject({ reason: 'JobResumed' });
    expect((await getJob('sleepy')).status?.startTime).toBe(rfc3339(clock.now()));
    await client.patch(builtin.jobs, 'sleepy', { spec: { suspend: true } }, { namespace: NS });
    await eventually(async () => (await podsOf('sleepy')).length === 0, 'pods deleted on suspend');
    await eventually(async () => (await getJob('sleepy')).status?.active === 0, 'active 0');
    expect((await getJob('sleepy')).status?.failed ?? 0).toBe(0);
  });

  it('clears startTime while a running Job is suspended and sets it anew on resume (the API server lets only a suspended Job’s startTime change)', async () => {
    await makeJob('paused', { parallelism: 1, completions: 1 });
    await waitRunning('paused', 1);
    const started = rfc3339(clock.now());
    await eventually(async () => (await getJob('paused')).status?.startTime === started, 'startTime');
    await clock.advance(5_000);
    await client.patch(builtin.jobs, 'paused', { spec: { suspend: true } }, { namespace: NS });
    await eventually(async () => condition(await getJob('paused'), 'Suspended')?.status === 'True', 'Suspended');
    expect((await getJob('paused')).status?.startTime).toBeUndefined();
    await clock.advance(5_000);
    await client.patch(builtin.jobs, 'paused', { spec: { suspend: false } }, { namespace: NS });
    const [pod] = await waitRunning('paused', 1);
    await eventually(async () => condition(await getJob('paused'), 'Suspended')?.status === 'False', 'resumed');
    expect((await getJob('paused')).status?.startTime).toBe(rfc3339(clock.now()));
    await end(pod!, 'Succeeded');
    await eventually(async () => condition(await getJob('paused'), 'Complete')?.status === 'True', 'Complete');
    expect((await getJob('paused')).status).toMatchObject({ startTime: rfc3339(clock.now()), completionTime: rfc3339(clock.now()), succeeded: 1, active: 0 });
  });

  it('counts a pod deleted while running as failed, once', async () => {
    await makeJob('crashy', { completions: 1, backoffLimit: 3 });
    const [pod] = await waitRunning('crashy', 1);
    await client.delete(builtin.pods, pod!.metadata.name!, { namespace: NS });
    await eventually(async () => (await getJob('crashy')).status?.failed === 1, 'failed 1');
    await eventually(async () => (await podsOf('crashy')).every((p) => p.metadata.uid !== pod!.metadata.uid), 'the deleted pod gone');
    await clock.advance(10_000);
    const [next] = await waitRunning('crashy', 1);
    await end(next!, 'Succeeded');
    await eventually(async () => condition(await getJob('crashy'), 'Complete')?.status === 'True', 'Complete');
    expect((await getJob('crashy')).status).toMatchObject({ failed: 1, succeeded: 1 });
  });

  it('doubles the back-off with each failure since the last success', async () => {
    await makeJob('doubling', { backoffLimit: 5 });
    const [first] = await waitRunning('doubling', 1);
    await end(first!, 'Failed');
    await eventually(async () => (await getJob('doubling')).status?.failed === 1, 'failed 1');
    await clock.advance(10_000);
    const [second] = await waitRunning('doubling', 1);
    await end(second!, 'Failed');
    await eventually(async () => (await getJob('doubling')).status?.failed === 2, 'failed 2');
    // 20 s now: a sync at 19 s (a label change triggers one) still waits.
    await clock.advance(19_000);
    const seen = loop.results.length;
    await client.patch(builtin.jobs, 'doubling', { metadata: { labels: { poke: '1' } } }, { namespace: NS });
    await eventually(() => loop.results.slice(seen).some((r) => r.key === `${NS}/doubling`), 'a sync at 19 s');
    expect(await running('doubling')).toHaveLength(0);
    await clock.advance(1_000);
    await waitRunning('doubling', 1);
  });

  it('counts container restarts of an OnFailure Job toward its backoff limit, and reports ready pods', async () => {
    await makeJob('restarts', { backoffLimit: 2 }, 'OnFailure');
    const [pod] = await waitRunning('restarts', 1);
    const at = rfc3339(clock.now());
    const ready = { ...pod!, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: at }], containerStatuses: [{ name: 'main', image: 'busybox', imageID: '', ready: true, restartCount: 0, state: { running: { startedAt: at } } }] } } as Pod;
    await client.updateStatus(builtin.pods, ready);
    await eventually(async () => (await getJob('restarts')).status?.ready === 1, 'ready 1');
    const fresh = await client.get(builtin.pods, pod!.metadata.name!, { namespace: NS });
    await client.updateStatus(builtin.pods, { ...fresh, status: { ...fresh.status, containerStatuses: [{ name: 'main', image: 'busybox', imageID: '', ready: true, restartCount: 3, state: { running: { startedAt: at } } }] } });
    await eventually(async () => condition(await getJob('restarts'), 'Failed')?.status === 'True', 'Failed');
    expect(condition(await getJob('restarts'), 'Failed')).toMatchObject({ reason: 'BackoffLimitExceeded' });
    expect(await podsOf('restarts')).toHaveLength(0);
  });

  it('fails an index at once by a FailIndex rule, and the Job past maxFailedIndexes', async () => {
    await makeJob('maxfailed', {
      completions: 3,
      parallelism: 3,
      completionMode: 'Indexed',
      backoffLimitPerIndex: 3,
      maxFailedIndexes: 0,
      podFailurePolicy: { rules: [{ action: 'FailIndex', onExitCodes: { operator: 'In', values: [5] } }] },
    });
    const pods = await waitRunning('maxfailed', 3);
    await end(pods.find((p) => p.metadata.annotations?.['batch.svc.io/job-completion-index'] === '2')!, 'Failed', 5);
    await eventually(async () => condition(await getJob('maxfailed'), 'Failed')?.status === 'True', 'Failed');
    const job = await getJob('maxfailed');
    expect(condition(job, 'Failed')).toMatchObject({ reason: 'MaxFailedIndexesExceeded' });
    expect(job.status).toMatchObject({ failedIndexes: '2', active: 0 });
    expect(await running('maxfailed')).toHaveLength(0);
  });

  it('adopts an orphan pod its manual selector matches instead of making one', async () => {
    await client.create(builtin.pods, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'stray', namespace: NS, labels: { app: 'adopter' } },
      spec: { containers: [{ name: 'main', image: 'busybox' }], restartPolicy: 'Never' },
    } as Pod);
    const job = await makeJob('adopter', { manualSelector: true, selector: { matchLabels: { app: 'adopter' } }, template: { metadata: { labels: { app: 'adopter' } }, spec: { containers: [{ name: 'main', image: 'busybox' }], restartPolicy: 'Never' } } });
    await eventually(async () => (await client.get(builtin.pods, 'stray', { namespace: NS })).metadata.ownerReferences?.[0]?.uid === job.metadata.uid, 'the stray pod adopted');
    await eventually(async () => (await getJob('adopter')).status?.active === 1, 'active 1');
    const names = async () => (await client.list(builtin.pods, { namespace: NS, labelSelector: 'app=adopter' })).items.map((p) => p.metadata.name);
    await eventually(async () => JSON.stringify(await names()) === '["stray"]', 'the stray pod alone');
    await client.patch(builtin.jobs, 'adopter', { spec: { suspend: true } }, { namespace: NS });
    await eventually(async () => (await getJob('adopter')).status?.active === 0, 'suspended');
  });

  it('with podReplacementPolicy Failed, replaces a deleted pod only once it has failed; counts it terminating meanwhile', async () => {
    await makeJob('patient', { completions: 1, backoffLimit: 2, podReplacementPolicy: 'Failed' });
    const [pod] = await waitRunning('patient', 1);
    await client.delete(builtin.pods, pod!.metadata.name!, { namespace: NS });
    await eventually(async () => (await getJob('patient')).status?.terminating === 1, 'terminating 1');
    expect((await getJob('patient')).status).toMatchObject({ active: 0, failed: 0 });
    await end(pod!, 'Failed');
    await eventually(async () => (await getJob('patient')).status?.failed === 1, 'failed 1');
    await clock.advance(10_000);
    await waitRunning('patient', 1);
    expect((await getJob('patient')).status?.terminating).toBe(0);
  });

  it('makes no write when restarted at steady state', async () => {
    await makeJob('steady', { completions: 2, parallelism: 1 });
    await waitRunning('steady', 1);
    await eventually(async () => (await getJob('steady')).status?.active === 1, 'active 1');
    const versions = async () => {
      const jobs = (await client.list(builtin.jobs, { namespace: NS })).items.map((j) => `${j.metadata.name}@${j.metadata.resourceVersion}`);
      const pods = (await client.list(builtin.pods, { namespace: NS })).items.map((p) => `${p.metadata.name}@${p.metadata.resourceVersion}`);
      return [...jobs, ...pods].sort();
    };
    // Let the first loop settle, then replace it by a fresh one.
    loop.stop();
    const before = await versions();
    loop = loopHarness(client);
    loop.run(jobController(loop.ctx, { concurrency: 5, scheduler: clock }));
    const jobCount = (await client.list(builtin.jobs, { namespace: NS })).items.length;
    await eventually(() => new Set(loop.results.map((r) => r.key)).size >= jobCount, 'every Job synced once');
    expect(await versions()).toEqual(before);
  });

  it('finishes counting a pod a crashed controller left in uncountedTerminatedPods, once', async () => {
    loop.stop();
    const job = await makeJob('crashed', { completions: 1 });
    const labels = job.spec.template.metadata?.labels ?? {};
    const pod = await client.create(builtin.pods, {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'crashed-x', namespace: NS, labels, finalizers: [FINALIZER], ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'crashed', uid: job.metadata.uid!, controller: true }] },
      spec: { containers: [{ name: 'main', image: 'busybox' }], restartPolicy: 'Never' },
    } as Pod);
    await end(pod, 'Succeeded');
    // The crash came after the uid was recorded and before the finalizer went.
    await client.updateStatus(builtin.jobs, { ...job, status: { startTime: rfc3339(clock.now()), active: 1, uncountedTerminatedPods: { succeeded: [pod.metadata.uid!] } } });
    loop = loopHarness(client);
    loop.run(jobController(loop.ctx, { concurrency: 5, scheduler: clock }));
    await eventually(async () => condition(await getJob('crashed'), 'Complete')?.status === 'True', 'Complete');
    expect((await getJob('crashed')).status).toMatchObject({ succeeded: 1, failed: 0, active: 0 });
    expect((await client.get(builtin.pods, 'crashed-x', { namespace: NS })).metadata.finalizers ?? []).not.toContain(FINALIZER);
    expect(await podsOf('crashed')).toHaveLength(1);
  });
});
