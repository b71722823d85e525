import { describe, expect, it } from 'vitest';
import { builtinRegistry, validateObject, type FieldCause, type KubeObject, type ResourceType } from '../../src/api/index.js';

const registry = builtinRegistry();
const type = (group: string, resource: string): ResourceType => registry.lookup(group, group === '' ? 'v1' : registry.groups().find((g) => g.name === group)!.preferredVersion, resource)!;

const pods = type('', 'pods');
const goodPod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'default', labels: { app: 'web' } },
  spec: {
    containers: [
      {
        name: 'web',
        image: 'nginx:1.27',
        command: ['nginx'],
        args: ['-g', 'daemon off;'],
        env: [{ name: 'MODE', value: 'prod' }],
        ports: [{ name: 'http', containerPort: 80, protocol: 'TCP' }],
        resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: 1 } },
        volumeMounts: [{ name: 'data', mountPath: '/data' }],
        imagePullPolicy: 'IfNotPresent',
      },
    ],
    volumes: [{ name: 'data', emptyDir: {} }],
    restartPolicy: 'Always',
    nodeSelector: { disk: 'ssd' },
    tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule' }],
    affinity: { nodeAffinity: { anything: ['goes'] } },
  },
};

const objectOf = (result: ReturnType<typeof validateObject>): KubeObject => {
  if (!('object' in result)) throw new Error(`expected a valid object, got ${JSON.stringify(result.causes)}`);
  return result.object;
};
const causesOf = (result: ReturnType<typeof validateObject>): FieldCause[] => {
  if (!('causes' in result)) throw new Error('expected causes');
  return result.causes;
};

describe('validateObject', () => {
  it('accepts a good Pod and returns it unchanged', () => {
    expect(objectOf(validateObject(pods, goodPod))).toEqual(goodPod);
  });

  it('keeps fields it does not model, at every level', () => {
    const body = {
      ...goodPod,
      topLevelExtra: { a: 1 },
      spec: {
        ...goodPod.spec,
        futureField: 'kept',
        containers: [{ ...goodPod.spec.containers[0], notModeled: [1, 2] }],
      },
      status: { phase: 'Running', extraStatus: true },
    };
    expect(objectOf(validateObject(pods, body))).toEqual(body);
  });

  it('drops null fields, which Kubernetes reads as unset', () => {
    const object = objectOf(validateObject(pods, { ...goodPod, metadata: { ...goodPod.metadata, creationTimestamp: null }, status: null }));
    expect(object.metadata).not.toHaveProperty('creationTimestamp');
    expect(object).not.toHaveProperty('status');
  });

  it('reports a Pod without containers as FieldValueRequired at spec.containers', () => {
    expect(causesOf(validateObject(pods, { metadata: { name: 'p' }, spec: {} }))).toEqual([
      { reason: 'FieldValueRequired', field: 'spec.containers', message: 'Required value' },
    ]);
    expect(causesOf(validateObject(pods, { metadata: { name: 'p' } }))).toEqual([
      { reason: 'FieldValueRequired', field: 'spec.containers', message: 'Required value' },
    ]);
    expect(causesOf(validateObject(pods, { metadata: { name: 'p' }, spec: { containers: [] } }))[0]?.reason).toBe('FieldValueRequired');
  });

  it('requires the name and image of each container', () => {
    const causes = causesOf(validateObject(pods, { metadata: { name: 'p' }, spec: { containers: [{ name: 'a' }, { image: 'i' }] } }));
    expect(causes.map((c) => [c.reason, c.field])).toEqual([
      ['FieldValueRequired', 'spec.containers[0].image'],
      ['FieldValueRequired', 'spec.containers[1].name'],
    ]);
  });

  it('reports wrong JSON types as FieldValueTypeInvalid', () => {
    const causes = causesOf(
      validateObject(pods, {
        metadata: { name: 'p', labels: 'not-a-map' },
        spec: { containers: [{ name: 'c', image: 'i', ports: [{ containerPort: '80' }] }], hostNetwork: 'yes' },
      }),
    );
    expect(causes.map((c) => [c.reason, c.field])).toEqual([
      ['FieldValueTypeInvalid', 'metadata.labels'],
      ['FieldValueTypeInvalid', 'spec.containers[0].ports[0].containerPort'],
      ['FieldValueTypeInvalid', 'spec.hostNetwork'],
    ]);
    expect(causes[2]?.message).toBe('Invalid value: "string": must be of type boolean');
  });

  it('reports a list given as a string', () => {
    expect(causesOf(validateObject(pods, { metadata: { name: 'p' }, spec: { containers: 'not-a-list' } }))).toEqual([
      { reason: 'FieldValueTypeInvalid', field: 'spec.containers', message: 'Invalid value: "string": must be of type array' },
    ]);
  });

  it('rejects a non-integer where Kubernetes has an integer', () => {
    const body = { ...goodPod, spec: { ...goodPod.spec, terminationGracePeriodSeconds: 1.5 } };
    expect(causesOf(validateObject(pods, body))).toMatchObject([{ reason: 'FieldValueTypeInvalid', field: 'spec.terminationGracePeriodSeconds' }]);
  });

  it('reports values outside an enumeration as FieldValueNotSupported, listing the allowed ones', () => {
    const body = {
      metadata: { name: 'p' },
      spec: { containers: [{ name: 'c', image: 'i', ports: [{ containerPort: 80, protocol: 'HTTP' }] }], restartPolicy: 'Sometimes' },
    };
    expect(causesOf(validateObject(pods, body))).toEqual([
      {
        reason: 'FieldValueNotSupported',
        field: 'spec.containers[0].ports[0].protocol',
        message: 'Unsupported value: "HTTP": supported values: "TCP", "UDP", "SCTP"',
      },
      {
        reason: 'FieldValueNotSupported',
        field: 'spec.restartPolicy',
        message: 'Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"',
      },
    ]);
  });

  it('writes map keys in brackets', () => {
    const body = { ...goodPod, spec: { ...goodPod.spec, nodeSelector: { disk: 1 } } };
    expect(causesOf(validateObject(pods, body))[0]?.field).toBe('spec.nodeSelector[disk]');
  });

  it('checks resource quantities', () => {
    const container = { name: 'c', image: 'i', resources: { limits: { cpu: 'lots' } } };
    expect(causesOf(validateObject(pods, { metadata: { name: 'p' }, spec: { containers: [container] } }))).toMatchObject([
      { reason: 'FieldValueInvalid', field: 'spec.containers[0].resources.limits[cpu]' },
    ]);
  });

  it('reports a body that is not an object', () => {
    expect(causesOf(validateObject(pods, 'x'))[0]?.reason).toBe('FieldValueTypeInvalid');
  });

  it('fills in empty metadata when none is sent, leaving its rules to validateObjectMeta', () => {
    expect(objectOf(validateObject(type('', 'configmaps'), { data: { a: 'b' } })).metadata).toEqual({});
  });
});

describe('validateObject on other kinds', () => {
  const valid = (group: string, resource: string, body: object) => objectOf(validateObject(type(group, resource), { metadata: { name: 'x' }, ...body }));
  const fields = (group: string, resource: string, body: object) =>
    causesOf(validateObject(type(group, resource), { metadata: { name: 'x' }, ...body })).map((c) => `${c.reason} ${c.field}`);
  const template = { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'c', image: 'i' }] } };

  it('requires a Deployment selector and template', () => {
    expect(fields('apps', 'deployments', {})).toEqual(['FieldValueRequired spec.selector', 'FieldValueRequired spec.template']);
    valid('apps', 'deployments', { spec: { replicas: 2, selector: { matchLabels: { app: 'a' } }, template, strategy: { type: 'Recreate' } } });
  });

  it('rejects negative replicas', () => {
    expect(fields('apps', 'replicasets', { spec: { replicas: -1, selector: {}, template } })).toEqual(['FieldValueInvalid spec.replicas']);
  });

  it('checks the pod template inside workloads', () => {
    expect(fields('apps', 'statefulsets', { spec: { selector: {}, template: { spec: { containers: [{ name: 'c' }] } } } })).toEqual([
      'FieldValueRequired spec.template.spec.containers[0].image',
    ]);
    expect(fields('apps', 'daemonsets', { spec: { selector: {}, template: { spec: {} } } })).toEqual([
      'FieldValueRequired spec.template.spec.containers',
    ]);
  });

  it('requires a Job pod template to say OnFailure or Never', () => {
    expect(fields('batch', 'jobs', { spec: { template } })).toEqual(['FieldValueRequired spec.template.spec.restartPolicy']);
    const always = { ...template, spec: { ...template.spec, restartPolicy: 'Always' } };
    expect(fields('batch', 'jobs', { spec: { template: always } })).toEqual(['FieldValueNotSupported spec.template.spec.restartPolicy']);
    valid('batch', 'jobs', { spec: { template: { ...template, spec: { ...template.spec, restartPolicy: 'Never' } } } });
  });

  it('requires a CronJob schedule and job template', () => {
    expect(fields('batch', 'cronjobs', {})).toEqual(['FieldValueRequired spec.schedule', 'FieldValueRequired spec.jobTemplate']);
  });

  it('accepts a Service targetPort as a number or a port name, and checks its type enum', () => {
    valid('', 'services', { spec: { type: 'NodePort', selector: { app: 'a' }, ports: [{ port: 80, targetPort: 8080 }, { port: 81, targetPort: 'http' }] } });
    expect(fields('', 'services', { spec: { type: 'Magic', ports: [{ port: 80, targetPort: true }] } })).toEqual([
      'FieldValueNotSupported spec.type',
      'FieldValueTypeInvalid spec.ports[0].targetPort',
    ]);
  });

  it('checks ConfigMap keys and base64 binary data', () => {
    valid('', 'configmaps', { data: { 'app.conf': 'x' }, binaryData: { blob: 'aGVsbG8=' } });
    expect(fields('', 'configmaps', { data: { 'bad key': 'x' }, binaryData: { blob: 'not base64!' } })).toEqual([
      'FieldValueInvalid data[bad key]',
      'FieldValueInvalid binaryData[blob]',
    ]);
  });

  it('checks Secret data is base64 while stringData is plain', () => {
    valid('', 'secrets', { type: 'Opaque', data: { password: 'c2VjcmV0' }, stringData: { user: 'plain text!' } });
    expect(fields('', 'secrets', { data: { password: 'secret!' } })).toEqual(['FieldValueInvalid data[password]']);
  });

  it('checks Node taints and a Namespace phase', () => {
    expect(fields('', 'nodes', { spec: { taints: [{ key: 'k', effect: 'Sometimes' }], unschedulable: 'no' } }).sort()).toEqual([
      'FieldValueNotSupported spec.taints[0].effect',
      'FieldValueTypeInvalid spec.unschedulable',
    ]);
    expect(fields('', 'namespaces', { status: { phase: 'Gone' } })).toEqual(['FieldValueNotSupported status.phase']);
  });

  it('requires a RoleBinding roleRef and allows only ClusterRoles in ClusterRoleBindings', () => {
    const rbac = 'rbac.authorization.svc.io';
    expect(fields(rbac, 'rolebindings', {})).toEqual(['FieldValueRequired roleRef']);
    const roleRef = { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' };
    valid(rbac, 'rolebindings', { roleRef, subjects: [{ kind: 'User', name: 'u' }] });
    expect(fields(rbac, 'clusterrolebindings', { roleRef })).toEqual(['FieldValueNotSupported roleRef.kind']);
    expect(fields(rbac, 'roles', { rules: [{ resources: ['pods'] }] })).toEqual(['FieldValueRequired rules[0].verbs']);
  });

  it('checks Lease spec types', () => {
    valid('coordination.svc.io', 'leases', { spec: { holderIdentity: 'me', leaseDurationSeconds: 15, renewTime: '2024-01-01T00:00:00.000000Z', leaseTransitions: 0 } });
    expect(fields('coordination.svc.io', 'leases', { spec: { leaseDurationSeconds: '15' } })).toEqual(['FieldValueTypeInvalid spec.leaseDurationSeconds']);
  });

  it('does not allow both minAvailable and maxUnavailable on a PodDisruptionBudget', () => {
    expect(fields('policy', 'poddisruptionbudgets', { spec: { minAvailable: 1, maxUnavailable: '10%' } })).toEqual([
      'FieldValueInvalid spec.minAvailable',
    ]);
  });

  it('requires the CSR request and signer, the HPA bounds and target, the events.svc.io eventTime', () => {
    expect(fields('certificates.svc.io', 'certificatesigningrequests', {})).toEqual(['FieldValueRequired spec.request', 'FieldValueRequired spec.signerName']);
    expect(fields('autoscaling', 'horizontalpodautoscalers', {})).toEqual(['FieldValueRequired spec.scaleTargetRef', 'FieldValueRequired spec.maxReplicas']);
    expect(fields('events.svc.io', 'events', {})).toEqual(['FieldValueRequired eventTime']);
  });

  it('requires PVC access modes and a storage request', () => {
    expect(fields('', 'persistentvolumeclaims', {})).toEqual(['FieldValueRequired spec.accessModes', 'FieldValueRequired spec.resources.requests']);
    valid('', 'persistentvolumeclaims', { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } });
  });

  it('requires EndpointSlice address type and endpoints', () => {
    expect(fields('discovery.svc.io', 'endpointslices', {})).toEqual(['FieldValueRequired addressType', 'FieldValueRequired endpoints']);
    valid('discovery.svc.io', 'endpointslices', { addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: true } }] });
  });

  it('accepts every kind with only a name where Kubernetes would', () => {
    for (const [group, resource] of [
      ['', 'namespaces'], ['', 'configmaps'], ['', 'secrets'], ['', 'serviceaccounts'], ['', 'services'], ['', 'endpoints'],
      ['', 'nodes'], ['', 'resourcequotas'], ['', 'replicationcontrollers'], ['coordination.svc.io', 'leases'],
      ['rbac.authorization.svc.io', 'roles'], ['rbac.authorization.svc.io', 'clusterroles'],
    ] as const) {
      valid(group, resource, {});
    }
  });
});
