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

  it('refuses a policy whose CEL does not compile with a 422 naming the field, and stores nothing', async () => {
    const res = await s.call(
      'POST',
      `${API}/validatingadmissionpolicies`,
      policy('broken.example.com', { matchConstraints: deploymentRules, validations: [{ expression: 'object.spec.replicas <= 5' }, { expression: 'object.spec.replicas <=' }], matchConditions: [{ name: 'm', expression: 'nosuch.x' }] }),
    );
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Invalid', code: 422 });
    const fields = (res.body.details.causes as { field: string; message: string }[]).map((c) => c.field);
    expect(fields).toEqual(['spec.matchConditions[0].expression', 'spec.validations[1].expression']);
    expect(res.body.message).toContain('spec.validations[1].expression');
    expect(res.body.message).toContain('compilation failed');
    expect((await s.call('GET', `${API}/validatingadmissionpolicies/broken.example.com`)).status).toBe(404);
  });

  it('refuses malformed policies and bindings (422)', async () => {
    const noRules = await s.call('POST', `${API}/validatingadmissionpolicies`, policy('norules.example.com', { matchConstraints: {}, validations: [{ expression: 'true' }] }));
    expect(noRules.status).toBe(422);
    const nothing = await s.call('POST', `${API}/validatingadmissionpolicies`, policy('empty.example.com', { matchConstraints: deploymentRules }));
    expect(nothing.status).toBe(422);
    const both = await s.call('POST', `${API}/validatingadmissionpolicybindings`, binding('both.example.com', { policyName: 'x', validationActions: ['Deny', 'Warn'] }));
    expect(both.status).toBe(422);
    expect(both.body.message).toContain('Deny and Warn may not be used together');
    const unknown = await s.call('POST', `${API}/validatingadmissionpolicybindings`, binding('unknown.example.com', { policyName: 'x', validationActions: ['Reject'] }));
    expect(unknown.status).toBe(422);
    const ref = await s.call('POST', `${API}/validatingadmissionpolicybindings`, binding('ref.example.com', { policyName: 'x', validationActions: ['Deny'], paramRef: { name: 'a' } }));
    expect(ref.status).toBe(422);
    expect(ref.body.message).toContain('parameterNotFoundAction is required');
  });

  it('takes params from a ConfigMap (by name and by selector) and words the denial with messageExpression', async () => {
    await namespace('vap-params', { suite: 'vap-params' });
    await create(`/api/v1/namespaces/vap-params/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'limits', labels: { limit: 'yes' } }, data: { maxReplicas: '3' } });
    await create(
      `${API}/validatingadmissionpolicies`,
      policy('replicalimit-cm.example.com', {
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        matchConstraints: { ...deploymentRules, namespaceSelector: { matchLabels: { suite: 'vap-params' } } },
        validations: [
          {
            expression: 'object.spec.replicas <= int(params.data.maxReplicas)',
            messageExpression: "'object.spec.replicas must be no greater than ' + params.data.maxReplicas",
            reason: 'Invalid',
          },
        ],
      }),
    );
    await create(
      `${API}/validatingadmissionpolicybindings`,
      binding('replicalimit-cm-binding.example.com', { policyName: 'replicalimit-cm.example.com', validationActions: ['Deny'], paramRef: { name: 'limits', parameterNotFoundAction: 'Deny' } }),
    );
    const denied = await s.call('POST', '/apis/apps/v1/namespaces/vap-params/deployments', deployment('four', 4));
    expect(denied.status).toBe(422);
    expect(denied.body.reason).toBe('Invalid');
    expect(denied.body.message).toBe(
      `deployments.apps "four" is forbidden: ValidatingAdmissionPolicy 'replicalimit-cm.example.com' with binding 'replicalimit-cm-binding.example.com' denied request: object.spec.replicas must be no greater than 3`,
    );
    expect(denied.body.details.causes).toEqual([
      { message: "ValidatingAdmissionPolicy 'replicalimit-cm.example.com' with binding 'replicalimit-cm-binding.example.com' denied request: object.spec.replicas must be no greater than 3" },
    ]);
    await create('/apis/apps/v1/namespaces/vap-params/deployments', deployment('three', 3));

    // The params change: the next request sees the new limit.
    const cm = (await s.call('GET', '/api/v1/namespaces/vap-params/configmaps/limits')).body;
    expect((await s.call('PUT', '/api/v1/namespaces/vap-params/configmaps/limits', { ...cm, data: { maxReplicas: '10' } })).status).toBe(200);
    await create('/apis/apps/v1/namespaces/vap-params/deployments', deployment('four', 4));

    // Missing params under Deny: refused; by selector with Allow: the policy does not apply.
    expect((await s.call('DELETE', '/api/v1/namespaces/vap-params/configmaps/limits')).status).toBe(200);
    const missing = await s.call('POST', '/apis/apps/v1/namespaces/vap-params/deployments', deployment('five', 5));
    expect(missing.status).toBe(403);
    expect(missing.body.message).toContain('no params found for policy binding with `Deny` parameterNotFoundAction');
    expect((await s.call('DELETE', `${API}/validatingadmissionpolicybindings/replicalimit-cm-binding.example.com`)).status).toBe(200);
    await create(
      `${API}/validatingadmissionpolicybindings`,
      binding('replicalimit-cm-selector.example.com', {
        policyName: 'replicalimit-cm.example.com',
        validationActions: ['Deny'],
        paramRef: { selector: { matchLabels: { limit: 'yes' } }, parameterNotFoundAction: 'Allow' },
      }),
    );
    await create('/apis/apps/v1/namespaces/vap-params/deployments', deployment('five', 5));
    await create(`/api/v1/namespaces/vap-params/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'tight', labels: { limit: 'yes' } }, data: { maxReplicas: '1' } });
    expect((await s.call('POST', '/apis/apps/v1/namespaces/vap-params/deployments', deployment('two', 2))).status).toBe(422);
  });

  it('applies only where matchConditions hold, and reads variables', async () => {
    await namespace('vap-vars', { suite: 'vap-vars' });
    await create(
      `${API}/validatingadmissionpolicies`,
      policy('images.example.com', {
        matchConstraints: { ...deploymentRules, namespaceSelector: { matchLabels: { suite: 'vap-vars' } } },
        matchConditions: [
          { name: 'exclude-leases', expression: '!(request.resource.group == "coordination.k8s.io" && request.resource.resource == "leases")' },
          { name: 'exclude-kubelet-requests', expression: '!("system:nodes" in request.userInfo.groups)' },
          { name: 'not-exempt', expression: "!has(object.metadata.labels) || !('exempt' in object.metadata.labels)" },
        ],
        variables: [
          { name: 'containers', expression: 'object.spec.template.spec.containers' },
          { name: 'images', expression: 'variables.containers.map(c, c.image)' },
        ],
        validations: [
          {
            expression: "variables.images.all(image, image.startsWith('example.com/'))",
            messageExpression: "'only example.com images are allowed in namespace ' + object.metadata.namespace",
          },
        ],
      }),
    );
    await create(`${API}/validatingadmissionpolicybindings`, binding('images-binding.example.com', { policyName: 'images.example.com', validationActions: ['Deny'] }));
    const other = deployment('other', 1);
    other.spec.template.spec.containers[0]!.image = 'docker.io/nginx';
    const denied = await s.call('POST', '/apis/apps/v1/namespaces/vap-vars/deployments', other);
    expect(denied.status).toBe(403);
    expect(denied.body.message).toContain('denied request: only example.com images are allowed in namespace vap-vars');
    await create('/apis/apps/v1/namespaces/vap-vars/deployments', deployment('mine', 1));
    const exempt = deployment('exempt', 1, { app: 'exempt', exempt: 'yes' });
    exempt.spec.template.spec.containers[0]!.image = 'docker.io/nginx';
    await create('/apis/apps/v1/namespaces/vap-vars/deployments', exempt);
  });

  it('warns with Warn, and with failurePolicy decides what an expression that cannot be evaluated does', async () => {
    await namespace('vap-warn', { suite: 'vap-warn' });
    const scoped = { ...deploymentRules, namespaceSelector: { matchLabels: { suite: 'vap-warn' } } };
    await create(`${API}/validatingadmissionpolicies`, policy('warn.example.com', { matchConstraints: scoped, validations: [{ expression: 'object.spec.replicas <= 2', message: 'keep it small' }] }));
    await create(`${API}/validatingadmissionpolicybindings`, binding('warn-binding.example.com', { policyName: 'warn.example.com', validationActions: ['Warn', 'Audit'] }));
    const warned = await s.call('POST', '/apis/apps/v1/namespaces/vap-warn/deployments', deployment('three', 3));
    expect(warned.status).toBe(201);
    expect(warned.headers['warning']).toContain(`299 - "Validation failed for ValidatingAdmissionPolicy 'warn.example.com' with binding 'warn-binding.example.com': keep it small"`);

    // A field the object does not have: an evaluation error. Ignore lets the request through; Fail refuses it.
    await create(`${API}/validatingadmissionpolicies`, policy('typo.example.com', { failurePolicy: 'Ignore', matchConstraints: scoped, validations: [{ expression: 'object.replicas > 1' }] }));
    await create(`${API}/validatingadmissionpolicybindings`, binding('typo-binding.example.com', { policyName: 'typo.example.com', validationActions: ['Deny'] }));
    await create('/apis/apps/v1/namespaces/vap-warn/deployments', deployment('one', 1));
    const typo = (await s.call('GET', `${API}/validatingadmissionpolicies/typo.example.com`)).body;
    expect((await s.call('PUT', `${API}/validatingadmissionpolicies/typo.example.com`, { ...typo, spec: { ...typo.spec, failurePolicy: 'Fail' } })).status).toBe(200);
    const failed = await s.call('POST', '/apis/apps/v1/namespaces/vap-warn/deployments', deployment('two', 1));
    expect(failed.status).toBe(403);
    expect(failed.body.message).toContain("expression 'object.replicas > 1' resulted in error");
  });

  it('gives CEL the authorizer: the requester and a service account, checked by the server', async () => {
    await namespace('vap-authz', { suite: 'vap-authz' });
    await create(
      `${API}/validatingadmissionpolicies`,
      policy('authz.example.com', {
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }], namespaceSelector: { matchLabels: { suite: 'vap-authz' } } },
        validations: [
          { expression: "authorizer.group('').resource('secrets').namespace(object.metadata.namespace).check('list').allowed()", message: 'requester cannot list secrets' },
          { expression: "authorizer.requestResource.check('create').allowed()" },
          { expression: "!authorizer.serviceAccount('vap-authz', 'nobody').group('').resource('secrets').check('delete').allowed()", message: 'nobody may delete secrets' },
        ],
      }),
    );
    await create(`${API}/validatingadmissionpolicybindings`, binding('authz-binding.example.com', { policyName: 'authz.example.com', validationActions: ['Deny'] }));
    // The test user is in system:masters: it may; the account "nobody" has no role.
    await create('/api/v1/namespaces/vap-authz/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ok' } });
  });

  it('is not applied to policies and bindings themselves', async () => {
    await create(`${API}/validatingadmissionpolicies`, policy('deny-all.example.com', { matchConstraints: { resourceRules: [{ apiGroups: ['*'], apiVersions: ['*'], operations: ['*'], resources: ['*'] }] }, validations: [{ expression: 'false' }] }));
    await create(`${API}/validatingadmissionpolicybindings`, binding('deny-all-binding.example.com', { policyName: 'deny-all.example.com', validationActions: ['Deny'] }));
    expect((await s.call('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } })).status).toBe(403);
    expect((await s.call('DELETE', `${API}/validatingadmissionpolicybindings/deny-all-binding.example.com`)).status).toBe(200);
    expect((await s.call('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } })).status).toBe(201);
  });

  it('selects by resourceNames, excludeResourceRules and objectSelector, and sees DELETE with oldObject and namespaceObject', async () => {
    await namespace('vap-match', { suite: 'vap-match', tier: 'gold' });
    const cm = (name: string, labels: Record<string, string> = {}, data: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels }, data });
    await create(
      `${API}/validatingadmissionpolicies`,
      policy('configmaps.example.com', {
        matchConstraints: {
          resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'DELETE'], resources: ['configmaps'] }],
          excludeResourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['*'], resources: ['configmaps'], resourceNames: ['excluded'] }],
          namespaceSelector: { matchLabels: { suite: 'vap-match' } },
          objectSelector: { matchExpressions: [{ key: 'free', operator: 'DoesNotExist' }] },
        },
        validations: [
          { expression: "request.operation != 'DELETE' || oldObject.metadata.labels['keep'] != 'yes'", message: 'kept' },
          { expression: "request.operation != 'CREATE' || namespaceObject.metadata.labels.tier == 'gold'", message: 'gold namespaces only' },
          { expression: "request.operation != 'CREATE' || !has(object.data) || !('forbidden' in object.data)", message: 'no forbidden key' },
        ],
      }),
    );
    await create(`${API}/validatingadmissionpolicybindings`, binding('configmaps-binding.example.com', { policyName: 'configmaps.example.com', validationActions: ['Deny'] }));
    const path = '/api/v1/namespaces/vap-match/configmaps';
    expect((await s.call('POST', path, cm('bad', {}, { forbidden: 'x' }))).status).toBe(403);
    await create(path, cm('excluded', {}, { forbidden: 'x' }));
    await create(path, cm('free', { free: 'yes' }, { forbidden: 'x' }));
    await create(path, cm('kept', { keep: 'yes' }));
    const del = await s.call('DELETE', `${path}/kept`);
    expect(del.status).toBe(403);
    expect(del.body.message).toContain('denied request: kept');
    expect((await s.call('GET', `${path}/kept`)).status).toBe(200);

    // A binding's own matchResources narrow the policy further: this one only to configmaps named "narrow".
    await create(
      `${API}/validatingadmissionpolicies`,
      policy('narrow.example.com', { matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }], namespaceSelector: { matchLabels: { suite: 'vap-match' } } }, validations: [{ expression: 'false' }] }),
    );
    await create(
      `${API}/validatingadmissionpolicybindings`,
      binding('narrow-binding.example.com', { policyName: 'narrow.example.com', validationActions: ['Deny'], matchResources: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'], resourceNames: ['narrow'] }] } }),
    );
    expect((await s.call('POST', path, cm('narrow'))).status).toBe(403);
    await create(path, cm('wide'));
  });

  it('writes nothing on a dry run it refuses, and evaluates on a dry run it allows', async () => {
    await namespace('vap-dry', { suite: 'vap-dry' });
    await create(
      `${API}/validatingadmissionpolicies`,
      policy('dry.example.com', { matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }], namespaceSelector: { matchLabels: { suite: 'vap-dry' } } }, validations: [{ expression: "object.metadata.name.startsWith('ok-')" }] }),
    );
    await create(`${API}/validatingadmissionpolicybindings`, binding('dry-binding.example.com', { policyName: 'dry.example.com', validationActions: ['Deny'] }));
    expect((await s.call('POST', '/api/v1/namespaces/vap-dry/configmaps?dryRun=All', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bad' } })).status).toBe(403);
    expect((await s.call('POST', '/api/v1/namespaces/vap-dry/configmaps?dryRun=All', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'ok-1' } })).status).toBe(201);
    expect((await s.call('GET', '/api/v1/namespaces/vap-dry/configmaps/ok-1')).status).toBe(404);
  });
});
