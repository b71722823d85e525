import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';

let s: TestServer;

beforeAll(async () => {
  s = await startTestServer('memory');
});
afterAll(async () => {
  await s.close();
});

const API = '/apis/admissionregistration.k8s.io/v1';

async function namespace(name: string, labels?: Record<string, string>) {
  const res = await s.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, ...(labels ? { labels } : {}) } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

async function create(path: string, body: Record<string, unknown>) {
  const res = await s.call('POST', path, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

const policy = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec });
const binding = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name }, spec });

const deploymentRules = { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['deployments'] }] };

const deployment = (name: string, replicas: number, labels: Record<string, string> = { app: name }) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, labels },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'example.com/nginx:1' }] } },
  },
});

describe('ValidatingAdmissionPolicy', () => {
  it('denies what the upstream demo policy denies, in the namespaces its binding selects', async () => {
    await namespace('vap-test', { environment: 'test' });
    await namespace('vap-prod', { environment: 'prod' });
    await create(`${API}/validatingadmissionpolicies`, policy('demo-policy.example.com', { failurePolicy: 'Fail', matchConstraints: deploymentRules, validations: [{ expression: 'object.spec.replicas <= 5' }] }));
    await create(
      `${API}/validatingadmissionpolicybindings`,
      binding('demo-binding-test.example.com', { policyName: 'demo-policy.example.com', validationActions: ['Deny'], matchResources: { namespaceSelector: { matchLabels: { environment: 'test' } } } }),
    );
    const denied = await s.call('POST', '/apis/apps/v1/namespaces/vap-test/deployments', deployment('big', 6));
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Forbidden', code: 403 });
    expect(denied.body.message).toBe(
      `deployments.apps "big" is forbidden: ValidatingAdmissionPolicy 'demo-policy.example.com' with binding 'demo-binding-test.example.com' denied request: failed expression: object.spec.replicas <= 5`,
    );
    expect((await s.call('GET', '/apis/apps/v1/namespaces/vap-test/deployments/big')).status).toBe(404);
    await create('/apis/apps/v1/namespaces/vap-test/deployments', deployment('small', 5));
    await create('/apis/apps/v1/namespaces/vap-prod/deployments', deployment('big', 6));
    // An update is matched too.
    const small = (await s.call('GET', '/apis/apps/v1/namespaces/vap-test/deployments/small')).body;
    const scaled = await s.call('PUT', '/apis/apps/v1/namespaces/vap-test/deployments/small', { ...small, spec: { ...small.spec, replicas: 7 } });
    expect(scaled.status).toBe(403);
  });
});
