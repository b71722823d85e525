import { describe, expect, it } from 'vitest';
import {
  ALL_VERBS,
  builtinRegistry,
  defineResourceType,
  podSchema,
  ResourceRegistry,
  upstreamGroupAlias,
  upstreamGroupName,
} from '../../src/api/index.js';

const registry = builtinRegistry();

// group/version, Kind, plural, namespaced, short names — as Kubernetes serves them.
const EXPECTED: [string, string, string, boolean, string[]][] = [
  ['v1', 'Namespace', 'namespaces', false, ['ns']],
  ['v1', 'Pod', 'pods', true, ['po']],
  ['v1', 'Node', 'nodes', false, ['no']],
  ['v1', 'Service', 'services', true, ['svc']],
  ['v1', 'ConfigMap', 'configmaps', true, ['cm']],
  ['v1', 'Secret', 'secrets', true, []],
  ['v1', 'ServiceAccount', 'serviceaccounts', true, ['sa']],
  ['v1', 'Endpoints', 'endpoints', true, ['ep']],
  ['v1', 'Event', 'events', true, ['ev']],
  ['v1', 'ReplicationController', 'replicationcontrollers', true, ['rc']],
  ['v1', 'ResourceQuota', 'resourcequotas', true, ['quota']],
  ['v1', 'LimitRange', 'limitranges', true, ['limits']],
  ['v1', 'PersistentVolume', 'persistentvolumes', false, ['pv']],
  ['v1', 'PersistentVolumeClaim', 'persistentvolumeclaims', true, ['pvc']],
  ['apps/v1', 'Deployment', 'deployments', true, ['deploy']],
  ['apps/v1', 'ReplicaSet', 'replicasets', true, ['rs']],
  ['apps/v1', 'StatefulSet', 'statefulsets', true, ['sts']],
  ['apps/v1', 'DaemonSet', 'daemonsets', true, ['ds']],
  ['apps/v1', 'ControllerRevision', 'controllerrevisions', true, []],
  ['batch/v1', 'Job', 'jobs', true, []],
  ['batch/v1', 'CronJob', 'cronjobs', true, ['cj']],
  ['autoscaling/v2', 'HorizontalPodAutoscaler', 'horizontalpodautoscalers', true, ['hpa']],
  ['autoscaling/v1', 'HorizontalPodAutoscaler', 'horizontalpodautoscalers', true, ['hpa']],
  ['policy/v1', 'PodDisruptionBudget', 'poddisruptionbudgets', true, ['pdb']],
  ['coordination.svc.io/v1', 'Lease', 'leases', true, []],
  ['discovery.svc.io/v1', 'EndpointSlice', 'endpointslices', true, []],
  ['rbac.authorization.svc.io/v1', 'Role', 'roles', true, []],
  ['rbac.authorization.svc.io/v1', 'ClusterRole', 'clusterroles', false, []],
  ['rbac.authorization.svc.io/v1', 'RoleBinding', 'rolebindings', true, []],
  ['rbac.authorization.svc.io/v1', 'ClusterRoleBinding', 'clusterrolebindings', false, []],
  ['admissionregistration.svc.io/v1', 'MutatingWebhookConfiguration', 'mutatingwebhookconfigurations', false, []],
  ['admissionregistration.svc.io/v1', 'ValidatingWebhookConfiguration', 'validatingwebhookconfigurations', false, []],
  ['admissionregistration.svc.io/v1', 'ValidatingAdmissionPolicy', 'validatingadmissionpolicies', false, []],
  ['admissionregistration.svc.io/v1', 'ValidatingAdmissionPolicyBinding', 'validatingadmissionpolicybindings', false, []],
  ['certificates.svc.io/v1', 'CertificateSigningRequest', 'certificatesigningrequests', false, ['csr']],
  ['events.svc.io/v1', 'Event', 'events', true, []],
  ['authentication.svc.io/v1', 'TokenReview', 'tokenreviews', false, []],
  ['authorization.svc.io/v1', 'LocalSubjectAccessReview', 'localsubjectaccessreviews', true, []],
  ['authorization.svc.io/v1', 'SelfSubjectAccessReview', 'selfsubjectaccessreviews', false, []],
  ['authorization.svc.io/v1', 'SelfSubjectRulesReview', 'selfsubjectrulesreviews', false, []],
  ['authorization.svc.io/v1', 'SubjectAccessReview', 'subjectaccessreviews', false, []],
  ['apiregistration.svc.io/v1', 'APIService', 'apiservices', false, []],
  ['metrics.svc.io/v1beta1', 'NodeMetrics', 'nodes', false, []],
  ['metrics.svc.io/v1beta1', 'PodMetrics', 'pods', true, []],
  ['storage.svc.io/v1', 'StorageClass', 'storageclasses', false, ['sc']],
  ['storage.svc.io/v1', 'VolumeAttachment', 'volumeattachments', false, []],
];

const split = (gv: string) => (gv.includes('/') ? gv.split('/') : ['', gv]) as [string, string];

describe('builtinRegistry', () => {
  for (const [gv, kind, resource, namespaced, shortNames] of EXPECTED) {
    const [group, version] = split(gv);
    it(`serves ${kind} as ${gv} ${resource}, ${namespaced ? 'namespaced' : 'cluster-scoped'}`, () => {
      const type = registry.lookup(group, version, resource);
      expect(type).toBeDefined();
      expect(type).toMatchObject({ group, version, kind, resource, namespaced, listKind: `${kind}List`, singular: kind.toLowerCase() });
      expect(type!.shortNames).toEqual(shortNames);
      // A kind served in two versions is found in its preferred one (autoscaling/v1 HPAs: v2).
      const preferred = registry.groups().find((g) => g.name === group)!.preferredVersion;
      if (version === preferred) expect(registry.byKind(group, kind)).toBe(type);
      else expect(registry.byKind(group, kind)?.version).toBe(preferred);
    });
  }

  it('serves nothing beyond that list', () => {
    expect(registry.all()).toHaveLength(EXPECTED.length);
  });

  it('lists the groups with their versions, core first', () => {
    const groups = registry.groups();
    expect(groups[0]).toEqual({ name: '', versions: ['v1'], preferredVersion: 'v1' });
    expect(groups.map((g) => g.name).sort()).toEqual(
      ['', 'admissionregistration.svc.io', 'apiregistration.svc.io', 'apps', 'authentication.svc.io', 'authorization.svc.io', 'autoscaling', 'batch', 'certificates.svc.io', 'coordination.svc.io', 'discovery.svc.io', 'events.svc.io', 'metrics.svc.io', 'policy', 'rbac.authorization.svc.io', 'storage.svc.io'].sort(),
    );
    expect(groups.find((g) => g.name === 'autoscaling')).toEqual({ name: 'autoscaling', versions: ['v2', 'v1'], preferredVersion: 'v2' });
  });

  it('lists the resources of one group version', () => {
    expect(registry.resourcesOf('apps', 'v1').map((t) => t.resource).sort()).toEqual(
      ['controllerrevisions', 'daemonsets', 'deployments', 'replicasets', 'statefulsets'],
    );
    expect(registry.resourcesOf('apps', 'v2')).toEqual([]);
  });

  it('answers lookups made with the upstream group names', () => {
    expect(registry.lookup('coordination.k8s.io', 'v1', 'leases')?.group).toBe('coordination.svc.io');
    expect(registry.byKind('rbac.authorization.k8s.io', 'ClusterRole')?.resource).toBe('clusterroles');
    expect(registry.resourcesOf('events.k8s.io', 'v1').map((t) => t.kind)).toEqual(['Event']);
  });

  it('finds nothing for unknown resources and versions', () => {
    expect(registry.lookup('', 'v1', 'widgets')).toBeUndefined();
    expect(registry.lookup('', 'v2', 'pods')).toBeUndefined();
    expect(registry.lookup('apps', 'v1', 'pods')).toBeUndefined();
    expect(registry.byKind('', 'Deployment')).toBeUndefined();
  });

  it('gives every type all verbs except deletecollection on namespaces, the virtual review types only create, the resource metrics get and list', () => {
    for (const type of registry.all()) {
      const expected =
        type.group === 'metrics.svc.io' ? ['get', 'list'] : type.virtual ? ['create'] : type.resource === 'namespaces' ? ALL_VERBS.filter((v) => v !== 'deletecollection') : ALL_VERBS;
      expect(type.verbs, type.resource).toEqual(expected);
    }
  });

  it('puts the workloads in the all category', () => {
    const all = [...new Set(registry.all().filter((t) => t.categories?.includes('all')).map((t) => t.resource))].sort();
    expect(all).toEqual(
      ['cronjobs', 'daemonsets', 'deployments', 'horizontalpodautoscalers', 'jobs', 'pods', 'replicasets', 'replicationcontrollers', 'services', 'statefulsets'],
    );
  });

  it('declares the subresources clients address', () => {
    const sub = (group: string, resource: string) => registry.lookup(group, registry.groups().find((g) => g.name === group)!.preferredVersion, resource)!.subresources;
    expect(sub('', 'pods')).toEqual(expect.arrayContaining(['status', 'binding', 'eviction', 'log', 'exec', 'attach', 'portforward', 'ephemeralcontainers']));
    for (const [group, resource] of [['apps', 'deployments'], ['apps', 'replicasets'], ['apps', 'statefulsets'], ['', 'replicationcontrollers']] as const) {
      expect(sub(group, resource)).toEqual(expect.arrayContaining(['status', 'scale']));
    }
    expect(sub('', 'nodes')).toEqual(expect.arrayContaining(['status', 'proxy']));
    expect(sub('', 'namespaces')).toEqual(expect.arrayContaining(['status', 'finalize']));
    expect(sub('', 'services')).toEqual(expect.arrayContaining(['status', 'proxy']));
    expect(sub('certificates.svc.io', 'certificatesigningrequests')).toEqual(expect.arrayContaining(['status', 'approval']));
    for (const [group, resource] of [['batch', 'jobs'], ['batch', 'cronjobs'], ['autoscaling', 'horizontalpodautoscalers'], ['policy', 'poddisruptionbudgets'], ['apps', 'daemonsets']] as const) {
      expect(sub(group, resource)).toContain('status');
    }
    expect(sub('', 'configmaps')).toEqual([]);
  });

  it('offers metadata.name everywhere and metadata.namespace on namespaced types only', () => {
    for (const type of registry.all()) {
      expect(Object.keys(type.fieldSelectors)).toContain('metadata.name');
      expect('metadata.namespace' in type.fieldSelectors, type.resource).toBe(type.namespaced);
    }
  });

  it('offers the per-kind field selectors of Kubernetes', () => {
    const fields = (group: string, version: string, resource: string) => Object.keys(registry.lookup(group, version, resource)!.fieldSelectors);
    expect(fields('', 'v1', 'pods')).toEqual(
      expect.arrayContaining(['spec.nodeName', 'spec.restartPolicy', 'spec.schedulerName', 'spec.serviceAccountName', 'spec.hostNetwork', 'status.phase', 'status.podIP', 'status.nominatedNodeName']),
    );
    expect(fields('', 'v1', 'nodes')).toContain('spec.unschedulable');
    expect(fields('', 'v1', 'namespaces')).toContain('status.phase');
    expect(fields('', 'v1', 'secrets')).toContain('type');
    expect(fields('', 'v1', 'events')).toEqual(
      expect.arrayContaining(['involvedObject.kind', 'involvedObject.namespace', 'involvedObject.name', 'involvedObject.uid', 'involvedObject.apiVersion', 'involvedObject.resourceVersion', 'involvedObject.fieldPath', 'reason', 'reportingComponent', 'source', 'type']),
    );
    expect(fields('apps', 'v1', 'replicasets')).toContain('status.replicas');
    expect(fields('', 'v1', 'replicationcontrollers')).toContain('status.replicas');
    expect(fields('batch', 'v1', 'jobs')).toContain('status.successful');
    expect(fields('certificates.svc.io', 'v1', 'certificatesigningrequests')).toContain('spec.signerName');
    expect(fields('', 'v1', 'services')).toEqual(expect.arrayContaining(['spec.clusterIP', 'spec.type']));
  });

  it('checks names by the rule of each kind', () => {
    const rule = (group: string, version: string, resource: string) => registry.lookup(group, version, resource)!.nameValidation;
    expect(rule('', 'v1', 'namespaces')).toBe('label');
    expect(rule('', 'v1', 'services')).toBe('dns1035');
    for (const resource of ['roles', 'clusterroles', 'rolebindings', 'clusterrolebindings']) {
      expect(rule('rbac.authorization.svc.io', 'v1', resource)).toBe('pathSegment');
    }
    expect(rule('', 'v1', 'pods')).toBe('subdomain');
    expect(rule('apps', 'v1', 'deployments')).toBe('subdomain');
  });
});

describe('ResourceRegistry', () => {
  const pods = (version: string) =>
    defineResourceType({ group: 'example.com', version, kind: 'Thing', resource: 'things', namespaced: true, schema: podSchema });

  it('takes the first version registered for a group as preferred', () => {
    const custom = new ResourceRegistry([pods('v2'), pods('v1')]);
    expect(custom.groups()).toEqual([{ name: 'example.com', versions: ['v2', 'v1'], preferredVersion: 'v2' }]);
    expect(custom.byKind('example.com', 'Thing')?.version).toBe('v2');
  });

  it('refuses a resource registered twice', () => {
    expect(() => new ResourceRegistry([pods('v1'), pods('v1')])).toThrow(/registered twice/);
  });
});

describe('upstream group names', () => {
  it('maps *.k8s.io groups to *.svc.io and back', () => {
    expect(upstreamGroupAlias('coordination.k8s.io')).toBe('coordination.svc.io');
    expect(upstreamGroupAlias('rbac.authorization.k8s.io')).toBe('rbac.authorization.svc.io');
    expect(upstreamGroupAlias('meta.k8s.io')).toBe('meta.svc.io');
    expect(upstreamGroupName('events.svc.io')).toBe('events.k8s.io');
  });

  it('leaves the unsuffixed groups and svc names alone', () => {
    for (const group of ['', 'apps', 'batch', 'autoscaling', 'policy', 'coordination.svc.io', 'example.com']) {
      expect(upstreamGroupAlias(group)).toBe(group);
    }
    expect(upstreamGroupName('apps')).toBe('apps');
  });
});
