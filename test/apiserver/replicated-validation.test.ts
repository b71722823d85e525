// The API server refuses malformed replicated workloads with a 422 naming the field, and stores
// nothing: invalid or empty selectors, a selector not matching the template, negative replicas,
// bad rolling-update bounds, a restart policy other than Always, a changed apps/v1 selector.
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
const deployment = (name: string, spec: Record<string, unknown>) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name },
  spec: { replicas: 1, selector: { matchLabels: { app: 'a' } }, template: template({ app: 'a' }), ...spec },
});
const replicaSet = (name: string, spec: Record<string, unknown>) => ({ ...deployment(name, spec), kind: 'ReplicaSet' });
const DEPLOYMENTS = '/apis/apps/v1/namespaces/default/deployments';
const REPLICASETS = '/apis/apps/v1/namespaces/default/replicasets';
const RCS = '/api/v1/namespaces/default/replicationcontrollers';

/** Creates and expects a 422 Invalid with a cause at `field` (and its message containing `text`), and nothing stored. */
async function refused(path: string, body: { metadata: { name: string } }, field: string, text: string): Promise<void> {
  const answer = await server.call('POST', path, body);
  expect(answer.status, JSON.stringify(answer.body)).toBe(422);
  const status = answer.body as { kind: string; apiVersion: string; status: string; reason: string; code: number; details: { causes: { field: string; message: string }[] } };
  expect(status).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Invalid', code: 422 });
  const cause = status.details.causes.find((c) => c.field === field);
  expect(cause, JSON.stringify(status.details.causes)).toBeDefined();
  expect(cause!.message).toContain(text);
  expect((await server.call('GET', `${path}/${body.metadata.name}`)).status).toBe(404);
}

describe('Deployment and ReplicaSet validation', () => {
  it('refuses negative replicas', async () => {
    await refused(DEPLOYMENTS, deployment('neg', { replicas: -1 }), 'spec.replicas', '');
    await refused(REPLICASETS, replicaSet('neg', { replicas: -2 }), 'spec.replicas', '');
  });

  it('refuses a selector that does not match the template', async () => {
    await refused(DEPLOYMENTS, deployment('mismatch', { template: template({ app: 'b' }) }), 'spec.template.metadata.labels', '`selector` does not match template `labels`');
    await refused(REPLICASETS, replicaSet('mismatch', { selector: { matchExpressions: [{ key: 'app', operator: 'In', values: ['x'] }] } }), 'spec.template.metadata.labels', 'does not match');
  });

  it('refuses invalid and empty selectors', async () => {
    await refused(DEPLOYMENTS, deployment('empty', { selector: {} }), 'spec.selector', 'empty selector is invalid for deployment');
    await refused(DEPLOYMENTS, deployment('novalues', { selector: { matchExpressions: [{ key: 'app', operator: 'In' }] } }), 'spec.selector.matchExpressions[0].values', 'must be specified');
    await refused(REPLICASETS, replicaSet('badkey', { selector: { matchLabels: { 'bad key!': 'a' } }, template: template({ 'bad key!': 'a' }) }), 'spec.selector.matchLabels', 'Invalid value');
    await refused(REPLICASETS, replicaSet('badop', { selector: { matchExpressions: [{ key: 'app', operator: 'Near', values: ['a'] }] } }), 'spec.selector.matchExpressions[0].operator', '');
  });

  it('refuses bad rolling-update bounds, Recreate with rollingUpdate, and a deadline within minReadySeconds', async () => {
    await refused(DEPLOYMENTS, deployment('zero', { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 0 } } }), 'spec.strategy.rollingUpdate.maxUnavailable', 'may not be 0 when `maxSurge` is 0');
    await refused(DEPLOYMENTS, deployment('pct', { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '150%' } } }), 'spec.strategy.rollingUpdate.maxSurge', 'must not be greater than 100%');
    await refused(DEPLOYMENTS, deployment('notpct', { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 'lots' } } }), 'spec.strategy.rollingUpdate.maxSurge', 'a valid percent string');
    await refused(DEPLOYMENTS, deployment('recreate', { strategy: { type: 'Recreate', rollingUpdate: { maxSurge: 1 } } }), 'spec.strategy.rollingUpdate', 'may not be specified');
    await refused(DEPLOYMENTS, deployment('deadline', { minReadySeconds: 30, progressDeadlineSeconds: 30 }), 'spec.progressDeadlineSeconds', 'must be greater than minReadySeconds');
  });

  it('refuses a restart policy other than Always', async () => {
    await refused(REPLICASETS, replicaSet('never', { template: template({ app: 'a' }, { restartPolicy: 'Never' }) }), 'spec.template.spec.restartPolicy', 'supported values: "Always"');
  });

  it('refuses a changed selector on update, and accepts a good object', async () => {
    const created = await server.call('POST', DEPLOYMENTS, deployment('good', {}));
    expect(created.status).toBe(201);
    const changed = { ...(created.body as object), spec: { ...(created.body as { spec: object }).spec, selector: { matchLabels: { app: 'a', tier: 'x' } }, template: template({ app: 'a', tier: 'x' }) } };
    const answer = await server.call('PUT', `${DEPLOYMENTS}/good`, changed);
    expect(answer.status).toBe(422);
    expect(JSON.stringify(answer.body)).toContain('field is immutable');
  });
});

describe('ReplicationController validation', () => {
  it('refuses a template whose labels the selector does not select, and negative replicas', async () => {
    const rc = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'v1', kind: 'ReplicationController', metadata: { name }, spec: { selector: { app: 'a' }, template: template({ app: 'a' }), ...spec } });
    await refused(RCS, rc('mismatch', { template: template({ app: 'b' }) }), 'spec.template.metadata.labels', 'does not match');
    await refused(RCS, rc('neg', { replicas: -1 }), 'spec.replicas', '');
    expect((await server.call('POST', RCS, rc('fine', {}))).status).toBe(201);
  });
});
