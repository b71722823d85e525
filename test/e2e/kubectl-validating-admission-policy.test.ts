// The upstream documentation's ValidatingAdmissionPolicy examples, applied with kubectl as written
// there (admissionregistration.k8s.io/v1), against a real svc-apiserver with an audit log.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../src/apiserver/audit/index.js';
import { startApiServer, type RunningApiServer } from '../../src/cli/apiserver-command.js';
import { kubectl, requireKubectl } from '../support/kubectl.js';

const AUDIT_POLICY = `
apiVersion: audit.k8s.io/v1
kind: Policy
rules:
  - level: Metadata
    resources:
      - group: apps
        resources: [deployments]
    omitStages: [RequestReceived]
  - level: None
`;

const DEMO_POLICY = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: "demo-policy.example.com"
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups:   ["apps"]
      apiVersions: ["v1"]
      operations:  ["CREATE", "UPDATE"]
      resources:   ["deployments"]
  validations:
    - expression: "object.spec.replicas <= 5"
`;

const DEMO_BINDING = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: "demo-binding-test.example.com"
spec:
  policyName: "demo-policy.example.com"
  validationActions: [Deny]
  matchResources:
    namespaceSelector:
      matchLabels:
        environment: test
`;

const REPLICA_LIMIT_CRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: replicalimits.rules.example.com
spec:
  group: rules.example.com
  scope: Namespaced
  names: {plural: replicalimits, singular: replicalimit, kind: ReplicaLimit}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          maxReplicas: {type: integer}
`;

const REPLICA_LIMIT_POLICY = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: "replicalimit-policy.example.com"
spec:
  failurePolicy: Fail
  paramKind:
    apiVersion: rules.example.com/v1
    kind: ReplicaLimit
  matchConstraints:
    resourceRules:
    - apiGroups:   ["apps"]
      apiVersions: ["v1"]
      operations:  ["CREATE", "UPDATE"]
      resources:   ["deployments"]
  validations:
    - expression: "object.spec.replicas <= params.maxReplicas"
      messageExpression: "'object.spec.replicas must be no greater than ' + string(params.maxReplicas)"
      reason: Invalid
`;

const REPLICA_LIMIT_BINDING = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: "replicalimit-binding-test.example.com"
spec:
  policyName: "replicalimit-policy.example.com"
  validationActions: [Deny]
  paramRef:
    name: "replica-limit-test.example.com"
    namespace: "default"
    parameterNotFoundAction: Deny
  matchResources:
    namespaceSelector:
      matchLabels:
        environment: test
`;

const REPLICA_LIMIT = `
apiVersion: rules.example.com/v1
kind: ReplicaLimit
metadata:
  name: "replica-limit-test.example.com"
  namespace: "default"
maxReplicas: 3
`;

const AUDIT_ANNOTATION_POLICY = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: "demo-policy.example.com"
spec:
  failurePolicy: Fail
  matchConstraints:
    resourceRules:
    - apiGroups:   ["apps"]
      apiVersions: ["v1"]
      operations:  ["CREATE", "UPDATE"]
      resources:   ["deployments"]
  validations:
    - expression: "object.spec.replicas > 50"
      messageExpression: "'Deployment spec.replicas set to ' + string(object.spec.replicas)"
  auditAnnotations:
    - key: "high-replica-count"
      valueExpression: "'Deployment spec.replicas set to ' + string(object.spec.replicas)"
`;

const WARN_AUDIT_BINDING = `
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: "demo-binding-test.example.com"
spec:
  policyName: "demo-policy.example.com"
  validationActions: [Warn, Audit]
  matchResources:
    namespaceSelector:
      matchLabels:
        environment: test
`;

describe('the upstream ValidatingAdmissionPolicy examples through kubectl', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-vap-'));
  const log = join(dir, 'audit.log');
  let server: RunningApiServer;
  const k = (args: readonly string[], stdin?: string) => kubectl(server.svcconfigPath, args, stdin);
  const apply = async (yaml: string) => {
    const done = await k(['apply', '-f', '-'], yaml);
    expect(done.code, done.stderr).toBe(0);
  };

  beforeAll(async () => {
    requireKubectl();
    writeFileSync(join(dir, 'policy.yaml'), AUDIT_POLICY);
    server = await startApiServer([
      '--storage=memory',
      '--secure-port=0',
      '--bind-address=127.0.0.1',
      `--data-dir=${join(dir, 'data')}`,
      `--audit-log-path=${log}`,
      `--audit-policy-file=${join(dir, 'policy.yaml')}`,
    ]);
    expect((await k(['create', 'namespace', 'test-env'])).code).toBe(0);
    expect((await k(['label', 'namespace', 'test-env', 'environment=test'])).code).toBe(0);
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('denies a deployment over five replicas in a namespace labelled environment=test', async () => {
    await apply(DEMO_POLICY);
    await apply(DEMO_BINDING);
    const listed = await k(['get', 'validatingadmissionpolicies']);
    expect(listed.stdout).toMatch(/^NAME\s+VALIDATIONS\s+PARAMKIND\s+AGE\n/);
    expect(listed.stdout).toMatch(/demo-policy\.example\.com\s+1\s+<unset>\s+/);
    const bindings = await k(['get', 'validatingadmissionpolicybindings']);
    expect(bindings.stdout).toMatch(/demo-binding-test\.example\.com\s+demo-policy\.example\.com\s+<unset>\s+/);

    const denied = await k(['create', 'deployment', 'nginx', '--image=nginx', '--replicas=6', '-n', 'test-env']);
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toContain(
      `deployments.apps "nginx" is forbidden: ValidatingAdmissionPolicy 'demo-policy.example.com' with binding 'demo-binding-test.example.com' denied request: failed expression: object.spec.replicas <= 5`,
    );
    expect((await k(['create', 'deployment', 'nginx', '--image=nginx', '--replicas=5', '-n', 'test-env'])).code).toBe(0);
    // Other namespaces are not bound.
    expect((await k(['create', 'deployment', 'nginx', '--image=nginx', '--replicas=6', '-n', 'default'])).code).toBe(0);
    const scaled = await k(['patch', 'deployment', 'nginx', '-n', 'test-env', '-p', '{"spec":{"replicas":7}}']);
    expect(scaled.code).not.toBe(0);
    expect(scaled.stderr).toContain('denied request: failed expression: object.spec.replicas <= 5');
    expect((await k(['delete', 'validatingadmissionpolicybinding', 'demo-binding-test.example.com'])).code).toBe(0);
  });

  it('takes its limit from a ReplicaLimit custom resource and says why with messageExpression', async () => {
    await apply(REPLICA_LIMIT_CRD);
    expect((await k(['wait', '--for=condition=established', 'crd/replicalimits.rules.example.com', '--timeout=30s'])).code).toBe(0);
    await apply(REPLICA_LIMIT_POLICY);
    await apply(REPLICA_LIMIT_BINDING);
    // The params object is not there yet: parameterNotFoundAction Deny.
    const missing = await k(['create', 'deployment', 'small', '--image=nginx', '--replicas=1', '-n', 'test-env']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('no params found for policy binding with `Deny` parameterNotFoundAction');
    await apply(REPLICA_LIMIT);
    const denied = await k(['create', 'deployment', 'four', '--image=nginx', '--replicas=4', '-n', 'test-env']);
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toContain(
      `ValidatingAdmissionPolicy 'replicalimit-policy.example.com' with binding 'replicalimit-binding-test.example.com' denied request: object.spec.replicas must be no greater than 3`,
    );
    // From a manifest kubectl shows the Invalid reason's cause.
    const applied = await k(['apply', '-n', 'test-env', '-f', '-'], 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: four\nspec:\n  replicas: 4\n  selector: {matchLabels: {app: four}}\n  template:\n    metadata: {labels: {app: four}}\n    spec: {containers: [{name: c, image: nginx}]}\n');
    expect(applied.code).not.toBe(0);
    expect(applied.stderr).toContain('is invalid');
    expect(applied.stderr).toContain('denied request: object.spec.replicas must be no greater than 3');
    expect((await k(['create', 'deployment', 'three', '--image=nginx', '--replicas=3', '-n', 'test-env'])).code).toBe(0);
    expect((await k(['delete', 'validatingadmissionpolicybinding', 'replicalimit-binding-test.example.com'])).code).toBe(0);
  });

  it('warns (Warn) and records audit annotations (Audit, auditAnnotations) without refusing', async () => {
    await apply(AUDIT_ANNOTATION_POLICY);
    await apply(WARN_AUDIT_BINDING);
    const made = await k(['create', 'deployment', 'audited', '--image=nginx', '--replicas=2', '-n', 'test-env']);
    expect(made.code, made.stderr).toBe(0);
    expect(made.stderr).toContain(
      `Warning: Validation failed for ValidatingAdmissionPolicy 'demo-policy.example.com' with binding 'demo-binding-test.example.com': Deployment spec.replicas set to 2`,
    );
    await new Promise((resolve) => setImmediate(resolve));
    const events = readFileSync(log, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as AuditEvent);
    const created = events.find((e) => e.verb === 'create' && e.objectRef?.resource === 'deployments' && e.annotations?.['demo-policy.example.com/high-replica-count'] !== undefined);
    expect(created?.annotations?.['demo-policy.example.com/high-replica-count']).toBe('Deployment spec.replicas set to 2');
    const failures = JSON.parse(created?.annotations?.['validation.policy.admission.k8s.io/validation_failure'] ?? '[]') as unknown[];
    expect(failures).toEqual([
      { message: 'Deployment spec.replicas set to 2', policy: 'demo-policy.example.com', binding: 'demo-binding-test.example.com', expressionIndex: 0, validationActions: ['Warn', 'Audit'] },
    ]);
  });

  it('refuses a policy with a CEL syntax error, naming the field', async () => {
    const broken = DEMO_POLICY.replace('demo-policy.example.com', 'broken-policy.example.com').replace('object.spec.replicas <= 5', 'object.spec.replicas <= ');
    const res = await k(['apply', '-f', '-'], broken);
    expect(res.code).not.toBe(0);
    expect(res.stderr).toContain('spec.validations[0].expression');
    expect(res.stderr).toContain('compilation failed');
    expect((await k(['get', 'validatingadmissionpolicy', 'broken-policy.example.com'])).code).not.toBe(0);
  });
});
