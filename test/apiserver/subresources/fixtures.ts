import { FIXTURE_CERTIFICATES, FIXTURE_CSR } from '../../support/pem-fixtures.js';
import type { ResourceType } from '../../../src/api/index.js';

/** Objects and statuses of the built-in kinds that have a status subresource, for the subresource suites. */

const template = { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } };
const selector = { matchLabels: { app: 'x' } };
const jobTemplate = { spec: { restartPolicy: 'Never', containers: [{ name: 'c', image: 'busybox' }] } };

/** What each kind needs beyond a name to be valid. */
export const REQUIRED: Readonly<Record<string, Record<string, unknown>>> = {
  Namespace: {},
  Node: { spec: { unschedulable: false } },
  PersistentVolumeClaim: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
  PersistentVolume: { spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp' } } },
  Pod: { spec: { containers: [{ name: 'c', image: 'busybox' }] } },
  ReplicationController: { spec: { replicas: 1, selector: { app: 'x' }, template } },
  ResourceQuota: { spec: { hard: { pods: '10' } } },
  Service: { spec: { ports: [{ port: 80 }] } },
  DaemonSet: { spec: { selector, template } },
  Deployment: { spec: { replicas: 1, selector, template } },
  ReplicaSet: { spec: { replicas: 1, selector, template } },
  StatefulSet: { spec: { replicas: 1, selector, template, serviceName: 'x' } },
  HorizontalPodAutoscaler: { spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'x' }, maxReplicas: 3 } },
  CronJob: { spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: jobTemplate } } } },
  Job: { spec: { template: jobTemplate } },
  PodDisruptionBudget: { spec: { minAvailable: 1, selector } },
  APIService: { spec: { group: 'status.example.com', version: 'v1', groupPriorityMinimum: 100, versionPriority: 10 } },
  ValidatingAdmissionPolicy: {
    spec: { matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'] }] }, validations: [{ expression: 'true' }] },
  },
  CertificateSigningRequest: {
    spec: {
      request: FIXTURE_CSR,
      signerName: 'svc.io/kube-apiserver-client',
      usages: ['client auth'],
    },
  },
};

/** Two different, valid statuses per kind. */
export const STATUSES: Readonly<Record<string, readonly [Record<string, unknown>, Record<string, unknown>]>> = {
  Namespace: [{ phase: 'Active', conditions: [{ type: 'A', status: 'False' }] }, { phase: 'Active', conditions: [{ type: 'A', status: 'True' }] }],
  Node: [{ capacity: { cpu: '4' } }, { capacity: { cpu: '8' } }],
  PersistentVolumeClaim: [{ phase: 'Bound' }, { phase: 'Lost' }],
  PersistentVolume: [{ phase: 'Available' }, { phase: 'Released' }],
  Pod: [{ phase: 'Running', podIP: '10.0.0.1' }, { phase: 'Failed', podIP: '10.0.0.2' }],
  ReplicationController: [{ replicas: 2 }, { replicas: 3 }],
  ResourceQuota: [{ used: { pods: '1' } }, { used: { pods: '2' } }],
  Service: [{ loadBalancer: { ingress: [{ ip: '192.0.2.1' }] } }, { loadBalancer: { ingress: [{ ip: '192.0.2.2' }] } }],
  DaemonSet: [
    { currentNumberScheduled: 1, numberMisscheduled: 0, desiredNumberScheduled: 1, numberReady: 1 },
    { currentNumberScheduled: 2, numberMisscheduled: 0, desiredNumberScheduled: 2, numberReady: 2 },
  ],
  Deployment: [{ replicas: 2, readyReplicas: 1 }, { replicas: 3, readyReplicas: 2 }],
  ReplicaSet: [{ replicas: 2, readyReplicas: 1 }, { replicas: 3, readyReplicas: 2 }],
  StatefulSet: [{ replicas: 2, readyReplicas: 1 }, { replicas: 3, readyReplicas: 2 }],
  HorizontalPodAutoscaler: [{ currentReplicas: 1, desiredReplicas: 2 }, { currentReplicas: 2, desiredReplicas: 3 }],
  ValidatingAdmissionPolicy: [{ observedGeneration: 1 }, { observedGeneration: 1, typeChecking: { expressionWarnings: [] } }],
  CronJob: [{ lastScheduleTime: '2026-01-01T00:00:00Z' }, { lastScheduleTime: '2026-01-02T00:00:00Z' }],
  // Not counters: a Job's succeeded and failed never go down (the suites write `first` after `second`).
  Job: [{ active: 1, ready: 0 }, { active: 2, ready: 1 }],
  PodDisruptionBudget: [
    { disruptionsAllowed: 1, currentHealthy: 2, desiredHealthy: 1, expectedPods: 2 },
    { disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 1, expectedPods: 2 },
  ],
  CertificateSigningRequest: [{ certificate: FIXTURE_CERTIFICATES[0] }, { certificate: FIXTURE_CERTIFICATES[1] }],
  // With an Available condition present, the server's availability checks leave a local APIService's status alone.
  APIService: [
    { conditions: [{ type: 'Available', status: 'True', reason: 'Local', message: 'one' }] },
    { conditions: [{ type: 'Available', status: 'False', reason: 'Elsewhere', message: 'two' }] },
  ],
};

/** Kinds whose objects' names are dictated by their content. */
export const NAMES: Readonly<Record<string, string>> = { APIService: 'v1.status.example.com' };

export const apiVersionOf = (t: ResourceType) => (t.group ? `${t.group}/${t.version}` : t.version);

export const collectionOf = (t: ResourceType, namespace = 'default') =>
  `${t.group ? `/apis/${t.group}/${t.version}` : `/api/${t.version}`}${t.namespaced ? `/namespaces/${namespace}` : ''}/${t.resource}`;

export const objectOf = (t: ResourceType, name: string, extra: Record<string, unknown> = {}) => ({
  apiVersion: apiVersionOf(t),
  kind: t.kind,
  metadata: { name },
  ...REQUIRED[t.kind],
  ...extra,
});
