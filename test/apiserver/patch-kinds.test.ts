import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_CSR } from '../support/pem-fixtures.js';
import { builtinRegistry, type ResourceType } from '../../src/api/index.js';
import { startTestServer, type TestServer } from './harness.js';

const template = { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } };
const selector = { matchLabels: { app: 'x' } };

/** What each built-in kind needs beyond a name to be valid. */
const REQUIRED: Readonly<Record<string, Record<string, unknown>>> = {
  Event: { involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' } },
  'events.svc.io/Event': { eventTime: '2026-11-23T10:00:00.000000Z', reportingController: 'svc.io/test', reportingInstance: 'i', action: 'Test', reason: 'Test' },
  // A default within the max: LimitRanger admission gives the golden Pod (in the same namespace) a valid limit.
  LimitRange: { spec: { limits: [{ type: 'Container', max: { cpu: '1' }, default: { cpu: '1' } }] } },
  PersistentVolumeClaim: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
  PersistentVolume: { spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp' } } },
  Pod: { spec: { containers: [{ name: 'c', image: 'busybox' }] } },
  ControllerRevision: { revision: 1 },
  DaemonSet: { spec: { selector, template } },
  Deployment: { spec: { selector, template } },
  ReplicaSet: { spec: { selector, template } },
  ReplicationController: { spec: { template } },
  StatefulSet: { spec: { selector, template, serviceName: 'x' } },
  HorizontalPodAutoscaler: { spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'x' }, maxReplicas: 3 } },
  CronJob: { spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } } } } },
  Job: { spec: { template: { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } } } },
  CertificateSigningRequest: { spec: { request: FIXTURE_CSR, signerName: 'svc.io/kube-apiserver-client', usages: ['client auth'] } },
  ClusterRoleBinding: { roleRef: { apiGroup: 'rbac.authorization.svc.io', kind: 'ClusterRole', name: 'view' } },
  RoleBinding: { roleRef: { apiGroup: 'rbac.authorization.svc.io', kind: 'Role', name: 'view' } },
  EndpointSlice: { addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'] }] },
  StorageClass: { provisioner: 'svc.io/host-path' },
  VolumeAttachment: { spec: { attacher: 'disk.example.com', nodeName: 'n1', source: { persistentVolumeName: 'pv' } } },
  APIService: { spec: { group: 'golden.example.com', version: 'v1', groupPriorityMinimum: 100, versionPriority: 10 } },
  ValidatingAdmissionPolicy: {
    spec: { matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] }, validations: [{ expression: 'true' }] },
  },
  ValidatingAdmissionPolicyBinding: { spec: { policyName: 'golden', validationActions: ['Deny'] } },
};

/** Kinds whose objects' names are dictated by their content. */
const NAMES: Readonly<Record<string, string>> = { APIService: 'v1.golden.example.com' };

const apiVersion = (t: ResourceType) => (t.group ? `${t.group}/${t.version}` : t.version);
const collection = (t: ResourceType) => `${t.group ? `/apis/${t.group}/${t.version}` : `/api/${t.version}`}${t.namespaced ? '/namespaces/default' : ''}/${t.resource}`;
const fixture = (t: ResourceType) => REQUIRED[t.group ? `${t.group}/${t.kind}` : t.kind] ?? REQUIRED[t.kind] ?? {};
/** The object without the fields the server owns or the patches below change. */
const body = (object: Record<string, unknown>) => {
  const { metadata: _m, status: _s, ...rest } = object;
  return rest;
};

describe('every patch type on every built-in kind', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('memory');
  });
  afterAll(async () => {
    await s.close();
  });

  // Virtual types (the reviews) are create-only: they have nothing to patch.
  // Each kind in its preferred version (autoscaling/v1 HPAs, the same objects: test/apiserver/autoscaling-v1.test.ts patches them).
  it.each(builtinRegistry().all().filter((t) => !t.virtual && !t.conversion).map((t) => [`${t.kind}${t.group ? `.${t.group}` : ''}`, t] as const))('%s', async (_name, type) => {
    const name = NAMES[type.kind] ?? `golden-${type.resource}`;
    const url = `${collection(type)}/${name}`;
    const created = await s.call('POST', collection(type), { apiVersion: apiVersion(type), kind: type.kind, metadata: { name }, ...fixture(type) });
    expect(created.status, JSON.stringify(created.body)).toBe(201);

    const patches: [string, unknown][] = [
      ['application/merge-patch+json', { metadata: { labels: { merge: '1' } } }],
      ['application/json-patch+json', [{ op: 'add', path: '/metadata/annotations', value: { json: '2' } }]],
      ['application/strategic-merge-patch+json', { metadata: { labels: { strategic: '3' } } }],
    ];
    for (const [contentType, patch] of patches) {
      const res = await s.call('PATCH', url, patch, { headers: { 'content-type': contentType } });
      expect(res.status, `${contentType}: ${JSON.stringify(res.body)}`).toBe(200);
    }
    const applied = await s.call(
      'PATCH',
      `${url}?fieldManager=golden`,
      JSON.stringify({ apiVersion: apiVersion(type), kind: type.kind, metadata: { name, labels: { applied: '4' } } }),
      { headers: { 'content-type': 'application/apply-patch+yaml' } },
    );
    expect(applied.status, JSON.stringify(applied.body)).toBe(200);

    const got = await s.call('GET', url);
    // Labels the kind defaults at creation (a ReplicationController's, from its template) stay.
    expect(got.body.metadata.labels).toEqual({ ...created.body.metadata.labels, merge: '1', strategic: '3', applied: '4' });
    expect(got.body.metadata.annotations).toEqual({ json: '2' });
    expect(body(got.body)).toEqual(body(created.body));
    expect(got.body.metadata.managedFields.map((m: { manager: string; operation: string }) => `${m.manager}/${m.operation}`)).toContain('golden/Apply');
  });
});
