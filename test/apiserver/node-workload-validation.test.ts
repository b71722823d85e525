// The API server refuses malformed DaemonSets, StatefulSets and PodDisruptionBudgets with a 422
// naming the field, and stores nothing: invalid or empty selectors, a selector not matching the
// template, negative counts, bad update-strategy bounds, forbidden StatefulSet spec changes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from './harness.js';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer('memory');
});
afterAll(async () => {
  await server.close();
});

const template = (labels: Record<string, string>, extra: Record<string, unknown> = {}) => ({ metadata: { labels }, spec: { containers: [{ name: 'c', image: 'busybox' }], ...extra } });
const daemonSet = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  metadata: { name },
  spec: { selector: { matchLabels: { app: 'a' } }, template: template({ app: 'a' }), ...spec },
});
const statefulSet = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: 'apps/v1',
  kind: 'StatefulSet',
  metadata: { name },
  spec: { replicas: 1, serviceName: 's', selector: { matchLabels: { app: 'a' } }, template: template({ app: 'a' }), ...spec },
});
const budget = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name }, spec: { selector: { matchLabels: { app: 'a' } }, ...spec } });
const DAEMONSETS = '/apis/apps/v1/namespaces/default/daemonsets';
const STATEFULSETS = '/apis/apps/v1/namespaces/default/statefulsets';
const BUDGETS = '/apis/policy/v1/namespaces/default/poddisruptionbudgets';

type Causes = { field: string; message: string }[];

function expectInvalid(answer: { status: number; body: unknown }, field: string, text: string): void {
  expect(answer.status, JSON.stringify(answer.body)).toBe(422);
  const status = answer.body as { kind: string; apiVersion: string; status: string; reason: string; code: number; details: { causes: Causes } };
  expect(status).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Invalid', code: 422 });
  const cause = status.details.causes.find((c) => c.field === field);
  expect(cause, JSON.stringify(status.details.causes)).toBeDefined();
  expect(cause!.message).toContain(text);
}

/** Creates and expects a 422 Invalid with a cause at `field` (its message containing `text`), and nothing stored. */
async function refused(path: string, body: { metadata: { name: string } }, field: string, text: string): Promise<void> {
  expectInvalid(await server.call('POST', path, body), field, text);
  expect((await server.call('GET', `${path}/${body.metadata.name}`)).status).toBe(404);
}

describe('DaemonSet validation', () => {
  it('refuses a selector that does not match the template, an empty or malformed one', async () => {
    await refused(DAEMONSETS, daemonSet('mismatch', { template: template({ app: 'b' }) }), 'spec.template.metadata.labels', '`selector` does not match template `labels`');
    await refused(DAEMONSETS, daemonSet('empty', { selector: {} }), 'spec.selector', 'empty selector is invalid for daemonset');
    await refused(DAEMONSETS, daemonSet('novalues', { selector: { matchExpressions: [{ key: 'app', operator: 'In' }] } }), 'spec.selector.matchExpressions[0].values', 'must be specified');
    await refused(DAEMONSETS, daemonSet('badop', { selector: { matchExpressions: [{ key: 'app', operator: 'Near', values: ['a'] }] } }), 'spec.selector.matchExpressions[0].operator', '');
  });

  it('refuses negative values and bad rolling-update bounds', async () => {
    await refused(DAEMONSETS, daemonSet('minready', { minReadySeconds: -1 }), 'spec.minReadySeconds', '');
    await refused(DAEMONSETS, daemonSet('history', { revisionHistoryLimit: -1 }), 'spec.revisionHistoryLimit', '');
    await refused(DAEMONSETS, daemonSet('negunavail', { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: -1 } } }), 'spec.updateStrategy.rollingUpdate.maxUnavailable', 'greater than or equal to 0');
    await refused(DAEMONSETS, daemonSet('pct', { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '120%' } } }), 'spec.updateStrategy.rollingUpdate.maxSurge', '100%');
    await refused(DAEMONSETS, daemonSet('zero', { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } } }), 'spec.updateStrategy.rollingUpdate.maxUnavailable', 'cannot be 0 when maxSurge is 0');
    await refused(DAEMONSETS, daemonSet('restart', { template: template({ app: 'a' }, { restartPolicy: 'Never' }) }), 'spec.template.spec.restartPolicy', '');
  });

  it('accepts a valid one and keeps its selector immutable', async () => {
    expect((await server.call('POST', DAEMONSETS, daemonSet('ok', { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } } }))).status).toBe(201);
    const current = (await server.call('GET', `${DAEMONSETS}/ok`)).body as ReturnType<typeof daemonSet>;
    const changed = { ...current, spec: { ...current.spec, selector: { matchLabels: { app: 'a', tier: 'x' } }, template: template({ app: 'a', tier: 'x' }) } };
    expectInvalid(await server.call('PUT', `${DAEMONSETS}/ok`, changed), 'spec.selector', 'field is immutable');
  });
});

describe('StatefulSet validation', () => {
  it('refuses selector problems and negative counts', async () => {
    await refused(STATEFULSETS, statefulSet('mismatch', { template: template({ app: 'b' }) }), 'spec.template.metadata.labels', '`selector` does not match template `labels`');
    await refused(STATEFULSETS, statefulSet('empty', { selector: {} }), 'spec.selector', 'empty selector is invalid for statefulset');
    await refused(STATEFULSETS, statefulSet('neg', { replicas: -1 }), 'spec.replicas', '');
    await refused(STATEFULSETS, statefulSet('ord', { ordinals: { start: -1 } }), 'spec.ordinals.start', '');
    await refused(STATEFULSETS, statefulSet('part', { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: -1 } } }), 'spec.updateStrategy.rollingUpdate.partition', '');
  });

  it('refuses bad update strategies and claim templates without a name', async () => {
    await refused(STATEFULSETS, statefulSet('zero', { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0 } } }), 'spec.updateStrategy.rollingUpdate.maxUnavailable', 'cannot be 0');
    await refused(STATEFULSETS, statefulSet('ondelete', { updateStrategy: { type: 'OnDelete', rollingUpdate: { partition: 1 } } }), 'spec.updateStrategy.rollingUpdate', "only allowed for updateStrategy 'RollingUpdate'");
    await refused(STATEFULSETS, statefulSet('policy', { podManagementPolicy: 'Random' }), 'spec.podManagementPolicy', '');
    await refused(STATEFULSETS, statefulSet('claims', { volumeClaimTemplates: [{ metadata: {}, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }] }), 'spec.volumeClaimTemplates[0].metadata.name', '');
  });

  it('allows changes to replicas and the template only', async () => {
    expect((await server.call('POST', STATEFULSETS, statefulSet('ok', {}))).status).toBe(201);
    const current = (await server.call('GET', `${STATEFULSETS}/ok`)).body as ReturnType<typeof statefulSet>;
    expect((await server.call('PUT', `${STATEFULSETS}/ok`, { ...current, spec: { ...current.spec, replicas: 3 } })).status).toBe(200);
    const latest = (await server.call('GET', `${STATEFULSETS}/ok`)).body as ReturnType<typeof statefulSet>;
    expectInvalid(await server.call('PUT', `${STATEFULSETS}/ok`, { ...latest, spec: { ...latest.spec, serviceName: 'other' } }), 'spec', 'updates to statefulset spec for fields other than');
    expect(((await server.call('GET', `${STATEFULSETS}/ok`)).body as ReturnType<typeof statefulSet>).spec.serviceName).toBe('s');
  });
});

describe('PodDisruptionBudget validation', () => {
  it('refuses negative and malformed bounds, both bounds, and a malformed selector', async () => {
    await refused(BUDGETS, budget('neg', { minAvailable: -1 }), 'spec.minAvailable', 'greater than or equal to 0');
    await refused(BUDGETS, budget('pct', { maxUnavailable: '150%' }), 'spec.maxUnavailable', '100%');
    await refused(BUDGETS, budget('word', { maxUnavailable: 'half' }), 'spec.maxUnavailable', 'percent');
    await refused(BUDGETS, budget('both', { minAvailable: 1, maxUnavailable: 1 }), 'spec.minAvailable', 'cannot be both set');
    await refused(BUDGETS, budget('sel', { selector: { matchExpressions: [{ key: 'app', operator: 'Exists', values: ['x'] }] } }), 'spec.selector.matchExpressions[0].values', 'may not be specified');
    expect((await server.call('POST', BUDGETS, budget('ok', { minAvailable: '50%' }))).status).toBe(201);
  });
});
