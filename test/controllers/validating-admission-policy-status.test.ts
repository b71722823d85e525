// The validatingadmissionpolicy-status loop: each policy's expressions type-checked against the
// kinds it matches (svc's schemas, a CRD's openAPIV3Schema) and its paramKind, written to
// status.typeChecking with status.observedGeneration; a warning enforces nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtin, customResourceDefinitions, type Client } from '../../src/client/index.js';
import { validatingAdmissionPolicies } from '../../controllers/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { eventually } from './support.js';

let cluster: TestCluster;
let client: Client;

beforeAll(async () => {
  cluster = await startTestCluster({ controllers: { controllers: ['validatingadmissionpolicy-status-controller'] } });
  client = cluster.client;
});
afterAll(async () => {
  await cluster?.stop();
});

const rules = (group: string, resource: string, version = 'v1') => ({ resourceRules: [{ apiGroups: [group], apiVersions: [version], operations: ['CREATE', 'UPDATE'], resources: [resource] }] });

const policy = (name: string, spec: Record<string, unknown>) =>
  ({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicy', metadata: { name }, spec }) as never;

const statusOf = async (name: string) => (await client.get(validatingAdmissionPolicies, name)).status;

/** The status once the loop has observed `generation`. */
async function observed(name: string, generation: number) {
  let status: Awaited<ReturnType<typeof statusOf>>;
  await eventually(async () => {
    status = await statusOf(name);
    return status?.observedGeneration === generation;
  }, `${name} observed at generation ${generation}`);
  return status!;
}

describe('validatingadmissionpolicy-status', () => {
  it('warns about a field the matched kind does not have, and not about a correct one', async () => {
    await client.create(
      validatingAdmissionPolicies,
      policy('typo.example.com', {
        matchConstraints: rules('apps', 'deployments'),
        validations: [{ expression: 'object.replicas > 1' }, { expression: 'object.spec.replicas <= 5' }, { expression: "object.spec.replicas == 'five'" }],
      }),
    );
    const status = await observed('typo.example.com', 1);
    const warnings = status.typeChecking?.expressionWarnings ?? [];
    expect(warnings.map((w) => w.fieldRef)).toEqual(['spec.validations[0].expression', 'spec.validations[2].expression']);
    expect(warnings[0]!.warning).toMatch(/^apps\/v1, Kind=Deployment: ERROR: .*replicas/);
    expect(warnings[1]!.warning).toContain('apps/v1, Kind=Deployment');

    // Fixed: a new generation, no warnings.
    const current = await client.get(validatingAdmissionPolicies, 'typo.example.com');
    await client.update(validatingAdmissionPolicies, { ...current, spec: { ...current.spec, validations: [{ expression: 'object.spec.replicas > 1' }] } } as never);
    const fixed = await observed('typo.example.com', 2);
    expect(fixed.typeChecking?.expressionWarnings ?? []).toEqual([]);
  });

  it('checks params against the param kind, and names every matched kind a warning holds for', async () => {
    await client.create(
      validatingAdmissionPolicies,
      policy('params.example.com', {
        paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
        matchConstraints: { resourceRules: [{ apiGroups: ['apps'], apiVersions: ['v1'], operations: ['CREATE'], resources: ['deployments', 'statefulsets'] }] },
        validations: [{ expression: 'object.spec.replicas <= int(params.data.maxReplicas)' }, { expression: 'object.spec.replicas <= params.maxReplicas' }, { expression: 'object.spec.strategy.type == "Recreate"' }],
      }),
    );
    const status = await observed('params.example.com', 1);
    const warnings = status.typeChecking?.expressionWarnings ?? [];
    expect(warnings.map((w) => w.fieldRef)).toEqual(['spec.validations[1].expression', 'spec.validations[2].expression']);
    // ConfigMaps have no maxReplicas: both kinds are named.
    expect(warnings[0]!.warning).toContain('apps/v1, Kind=Deployment');
    expect(warnings[0]!.warning).toContain('apps/v1, Kind=StatefulSet');
    // Deployments have spec.strategy; StatefulSets do not (theirs is updateStrategy).
    expect(warnings[1]!.warning).toContain('apps/v1, Kind=StatefulSet');
    expect(warnings[1]!.warning).not.toContain('Kind=Deployment');
  });

  it("checks a custom resource against its CRD's schema", async () => {
    await client.create(customResourceDefinitions, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'widgets.vap.example.com' },
      spec: {
        group: 'vap.example.com',
        scope: 'Namespaced',
        names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } } } } }],
      },
    } as never);
    await client.create(
      validatingAdmissionPolicies,
      policy('widgets.example.com', { matchConstraints: rules('vap.example.com', 'widgets'), validations: [{ expression: 'object.spec.size < 10' }, { expression: 'object.spec.colour == "red"' }] }),
    );
    const status = await observed('widgets.example.com', 1);
    expect((status.typeChecking?.expressionWarnings ?? []).map((w) => w.fieldRef)).toEqual(['spec.validations[1].expression']);
    expect(status.typeChecking!.expressionWarnings![0]!.warning).toMatch(/^vap\.example\.com\/v1, Kind=Widget: ERROR/);
  });

  it('enforces nothing because of a warning: a policy with a type error denies only by its failurePolicy at run time', async () => {
    const ns = await client.create(builtin.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'vap-loop', labels: { suite: 'vap-loop' } } });
    expect(ns.metadata.name).toBe('vap-loop');
    await client.create(
      validatingAdmissionPolicies,
      policy('ignored-typo.example.com', {
        failurePolicy: 'Ignore',
        matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }], namespaceSelector: { matchLabels: { suite: 'vap-loop' } } },
        validations: [{ expression: 'object.datum.size() == 0' }],
      }),
    );
    await client.create(
      { group: 'admissionregistration.svc.io', version: 'v1', resource: 'validatingadmissionpolicybindings', namespaced: false },
      { apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingAdmissionPolicyBinding', metadata: { name: 'ignored-typo-binding' }, spec: { policyName: 'ignored-typo.example.com', validationActions: ['Deny'] } } as never,
    );
    const status = await observed('ignored-typo.example.com', 1);
    expect(status.typeChecking?.expressionWarnings?.[0]?.fieldRef).toBe('spec.validations[0].expression');
    const made = await client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'fine', namespace: 'vap-loop' }, data: { a: 'b' } }, { namespace: 'vap-loop' });
    expect(made.metadata.name).toBe('fine');
  });
});
