import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.js';

// batch/v1 write rules beyond the schema: 422 Invalid with the field, and nothing stored.
const podSpec = { containers: [{ name: 'c', image: 'busybox' }], restartPolicy: 'Never' };
const job = (name: string, spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}) => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  metadata: { name, ...meta },
  spec: { template: { spec: podSpec }, ...spec },
});
const cronJob = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: 'batch/v1',
  kind: 'CronJob',
  metadata: { name },
  spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: { spec: podSpec } } }, ...spec },
});
const JOBS = '/apis/batch/v1/namespaces/default/jobs';
const CRONJOBS = '/apis/batch/v1/namespaces/default/cronjobs';

describe('batch/v1 validation', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer('memory');
  });
  afterAll(async () => {
    await server.close();
  });

  async function refused(url: string, body: { metadata: { name: string } }, field: string, message?: RegExp): Promise<void> {
    const res = await server.call('POST', url, body);
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    const status = res.body as { kind: string; status: string; reason: string; details: { causes: { field: string; message: string }[] } };
    expect(status).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Invalid', code: 422 });
    const cause = status.details.causes.find((c) => c.field === field);
    expect(cause, JSON.stringify(status.details.causes)).toBeDefined();
    if (message) expect(cause!.message).toMatch(message);
    expect((await server.call('GET', `${url}/${body.metadata.name}`)).status).toBe(404);
  }

  it('generates a Job\'s selector from its uid and labels its template', async () => {
    const res = await server.call('POST', JOBS, job('gen'));
    expect(res.status).toBe(201);
    const created = res.body as { metadata: { uid: string }; spec: { selector: unknown; template: { metadata: { labels: Record<string, string> } } } };
    const uid = created.metadata.uid;
    expect(created.spec.selector).toEqual({ matchLabels: { 'batch.svc.io/controller-uid': uid } });
    expect(created.spec.template.metadata.labels).toEqual({
      'batch.svc.io/controller-uid': uid,
      'batch.svc.io/job-name': 'gen',
      'controller-uid': uid,
      'job-name': 'gen',
    });
  });

  it('refuses negative completions and parallelism', async () => {
    await refused(JOBS, job('neg-c', { completions: -1 }), 'spec.completions');
    await refused(JOBS, job('neg-p', { parallelism: -2 }), 'spec.parallelism');
  });

  it('refuses a selector without manualSelector, and a manual one that does not match the template', async () => {
    await refused(JOBS, job('sel', { selector: { matchLabels: { app: 'x' } } }), 'spec.selector', /not auto-generated/);
    await refused(
      JOBS,
      job('manual', { manualSelector: true, selector: { matchLabels: { app: 'x' } }, template: { metadata: { labels: { app: 'y' } }, spec: podSpec } }),
      'spec.template.metadata.labels',
      /does not match template/,
    );
    await refused(JOBS, job('manual-none', { manualSelector: true }), 'spec.selector');
    await refused(JOBS, job('manual-bad', { manualSelector: true, selector: { matchExpressions: [{ key: 'app', operator: 'Nope' }] } }), 'spec.selector.matchExpressions[0].operator');
    const ok = await server.call('POST', JOBS, job('manual-ok', { manualSelector: true, selector: { matchLabels: { app: 'x' } }, template: { metadata: { labels: { app: 'x' } }, spec: podSpec } }));
    expect(ok.status).toBe(201);
  });

  it('refuses Indexed without completions, per-index limits without Indexed, and bad success and failure policies', async () => {
    await refused(JOBS, job('idx', { completionMode: 'Indexed', completions: undefined, parallelism: 2 }), 'spec.completions');
    await refused(JOBS, job('bpi', { backoffLimitPerIndex: 1, completions: 2 }), 'spec.backoffLimitPerIndex');
    await refused(JOBS, job('sp', { completionMode: 'Indexed', completions: 3, successPolicy: { rules: [{ succeededIndexes: '0-5' }] } }), 'spec.successPolicy.rules[0].succeededIndexes');
    await refused(JOBS, job('sp-count', { completionMode: 'Indexed', completions: 3, successPolicy: { rules: [{ succeededCount: 4 }] } }), 'spec.successPolicy.rules[0].succeededCount');
    await refused(JOBS, job('sp-nonidx', { successPolicy: { rules: [{ succeededCount: 1 }] } }), 'spec.completionMode');
    await refused(JOBS, job('pfp', { podFailurePolicy: { rules: [{ action: 'FailJob', onExitCodes: { operator: 'In', values: [0] } }] } }), 'spec.podFailurePolicy.rules[0].onExitCodes.values[0]');
    await refused(
      JOBS,
      job('pfp-restart', { template: { spec: { ...podSpec, restartPolicy: 'OnFailure' } }, podFailurePolicy: { rules: [{ action: 'Ignore', onPodConditions: [{ type: 'DisruptionTarget' }] }] } }),
      'spec.template.spec.restartPolicy',
    );
    await refused(JOBS, job('pfp-action', { podFailurePolicy: { rules: [{ action: 'Explode', onExitCodes: { operator: 'In', values: [1] } }] } }), 'spec.podFailurePolicy.rules[0].action');
  });

  it('keeps a Job\'s selector and completions immutable', async () => {
    const created = (await server.call('POST', JOBS, job('immut', { completions: 2 }))).body as Record<string, unknown> & { spec: Record<string, unknown> };
    const res = await server.call('PUT', `${JOBS}/immut`, { ...created, spec: { ...created.spec, completions: 3 } });
    expect(res.status).toBe(422);
    expect(JSON.stringify(res.body)).toContain('spec.completions');
  });

  it('refuses bad cron schedules and time zones', async () => {
    await refused(CRONJOBS, cronJob('bad-cron', { schedule: 'every tuesday' }), 'spec.schedule');
    await refused(CRONJOBS, cronJob('six-fields', { schedule: '0 */5 * * * *' }), 'spec.schedule', /5 fields/);
    await refused(CRONJOBS, cronJob('range', { schedule: '61 * * * *' }), 'spec.schedule');
    await refused(CRONJOBS, cronJob('tz-prefix', { schedule: 'TZ=UTC 0 * * * *' }), 'spec.schedule', /timeZone field/);
    await refused(CRONJOBS, cronJob('bad-zone', { timeZone: 'Mars/Olympus' }), 'spec.timeZone', /unknown time zone/);
    await refused(CRONJOBS, cronJob('local-zone', { timeZone: 'Local' }), 'spec.timeZone');
    await refused(CRONJOBS, cronJob('neg', { jobTemplate: { spec: { completions: -1, template: { spec: podSpec } } } }), 'spec.jobTemplate.spec.completions');
    await refused(CRONJOBS, cronJob('a'.repeat(53), {}), 'metadata.name');
    for (const [name, schedule, timeZone] of [['macro', '@hourly'], ['zoned', '30 9 * * 1-5', 'Europe/Berlin'], ['names', '0 0 1 jan,jul sun']] as const) {
      const res = await server.call('POST', CRONJOBS, cronJob(name, { schedule, ...(timeZone ? { timeZone } : {}) }));
      expect(res.status, JSON.stringify(res.body)).toBe(201);
    }
  });
});
