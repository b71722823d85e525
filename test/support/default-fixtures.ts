import { FIXTURE_CSR } from './pem-fixtures.js';
// One minimal object of every built-in kind, and the fields Kubernetes answers it with that the
// body did not carry: its kind's defaults and the fields Go's JSON encoder always writes.
// Read from k8s.io/api (types.go json tags, SetDefaults_*) and kube-apiserver's answers.


export interface DefaultsCase {
  /** `<group>/<Kind>`, svc's group names ('' for core). */
  readonly key: string;
  readonly resource: string;
  readonly namespaced: boolean;
  /** A body that passes validation (metadata.name is added by the tests). */
  readonly body: Record<string, unknown>;
  /** What the created object carries beyond the body (toMatchObject). */
  readonly expected: Record<string, unknown>;
  /** The name to create it under, where the kind dictates one. */
  readonly name?: string;
  /**
   * For kinds a controller inside the API server updates right after the create (quota usage,
   * a definition's conditions): true once it has, and the object stays as it is.
   */
  readonly settled?: (object: any) => boolean;
}

const containers = [{ name: 'c', image: 'busybox' }];
const podTemplate = { metadata: { labels: { app: 'x' } }, spec: { containers } };
const podSpecDefaults = {
  restartPolicy: 'Always',
  terminationGracePeriodSeconds: 30,
  dnsPolicy: 'ClusterFirst',
  securityContext: {},
  schedulerName: 'default-scheduler',
  enableServiceLinks: true,
  containers: [{ name: 'c', image: 'busybox', terminationMessagePath: '/dev/termination-log', terminationMessagePolicy: 'File', imagePullPolicy: 'Always', resources: {} }],
};
const selector = { matchLabels: { app: 'x' } };

export const DEFAULTS_CASES: readonly DefaultsCase[] = [
  { key: '/Pod', resource: 'pods', namespaced: true, body: { spec: { containers } }, expected: { spec: podSpecDefaults, status: { phase: 'Pending' } } },
  {
    key: '/Service',
    resource: 'services',
    namespaced: true,
    body: { spec: { ports: [{ port: 80 }], selector: { app: 'x' } } },
    expected: { spec: { type: 'ClusterIP', sessionAffinity: 'None', internalTrafficPolicy: 'Cluster', ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }] }, status: { loadBalancer: {} } },
  },
  { key: '/Endpoints', resource: 'endpoints', namespaced: true, body: { subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }] }] }, expected: { subsets: [{ ports: [{ port: 80, protocol: 'TCP' }] }] } },
  { key: '/Namespace', resource: 'namespaces', namespaced: false, body: {}, expected: { spec: {}, status: { phase: 'Active' } } },
  {
    key: '/Node',
    resource: 'nodes',
    namespaced: false,
    body: { status: { capacity: { cpu: '2' } } },
    expected: {
      spec: {},
      status: {
        capacity: { cpu: '2' },
        allocatable: { cpu: '2' },
        daemonEndpoints: { kubeletEndpoint: { Port: 0 } },
        nodeInfo: { machineID: '', systemUUID: '', bootID: '', kernelVersion: '', osImage: '', containerRuntimeVersion: '', kubeletVersion: '', kubeProxyVersion: '', operatingSystem: '', architecture: '' },
      },
    },
  },
  { key: '/ConfigMap', resource: 'configmaps', namespaced: true, body: { data: { a: 'b' } }, expected: {} },
  { key: '/Secret', resource: 'secrets', namespaced: true, body: {}, expected: { type: 'Opaque' } },
  { key: '/ServiceAccount', resource: 'serviceaccounts', namespaced: true, body: {}, expected: {} },
  {
    key: '/Event',
    resource: 'events',
    namespaced: true,
    body: { involvedObject: { kind: 'Pod', name: 'p', namespace: 'default' }, reason: 'R', message: 'm' },
    expected: { source: {}, reportingComponent: '', reportingInstance: '' },
  },
  // A minimum only: LimitRanger's defaults do not touch the pods the other cases create (none are created after it).
  { key: '/LimitRange', resource: 'limitranges', namespaced: true, body: { spec: { limits: [{ type: 'Container', min: { cpu: '1m' } }] } }, expected: { spec: {} } },
  {
    key: '/ResourceQuota',
    resource: 'resourcequotas',
    namespaced: true,
    body: { spec: { hard: { pods: '10' } } },
    expected: { status: {} },
    settled: (quota) => quota.status?.used !== undefined,
  },
  {
    key: '/PersistentVolumeClaim',
    resource: 'persistentvolumeclaims',
    namespaced: true,
    body: { spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } },
    expected: { spec: { volumeMode: 'Filesystem' }, status: { phase: 'Pending' } },
  },
  {
    key: '/PersistentVolume',
    resource: 'persistentvolumes',
    namespaced: false,
    body: { spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/pv' } } },
    expected: { spec: { persistentVolumeReclaimPolicy: 'Retain', volumeMode: 'Filesystem', hostPath: { path: '/tmp/pv', type: '' } }, status: { phase: 'Pending' } },
  },
  {
    key: '/ReplicationController',
    resource: 'replicationcontrollers',
    namespaced: true,
    body: { spec: { template: podTemplate } },
    expected: { metadata: { labels: { app: 'x' } }, spec: { replicas: 1, selector: { app: 'x' }, template: { spec: podSpecDefaults } }, status: { replicas: 0 } },
  },
  {
    key: 'apps/Deployment',
    resource: 'deployments',
    namespaced: true,
    body: { spec: { selector, template: podTemplate } },
    expected: {
      spec: {
        replicas: 1,
        revisionHistoryLimit: 10,
        progressDeadlineSeconds: 600,
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
        template: { spec: podSpecDefaults },
      },
      status: {},
    },
  },
  { key: 'apps/ReplicaSet', resource: 'replicasets', namespaced: true, body: { spec: { selector, template: podTemplate } }, expected: { spec: { replicas: 1, template: { spec: podSpecDefaults } }, status: { replicas: 0 } } },
  {
    key: 'apps/StatefulSet',
    resource: 'statefulsets',
    namespaced: true,
    body: { spec: { selector, serviceName: 's', template: podTemplate } },
    expected: {
      spec: {
        replicas: 1,
        podManagementPolicy: 'OrderedReady',
        revisionHistoryLimit: 10,
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
        persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
        template: { spec: podSpecDefaults },
      },
      status: { replicas: 0, availableReplicas: 0 },
    },
  },
  {
    key: 'apps/DaemonSet',
    resource: 'daemonsets',
    namespaced: true,
    body: { spec: { selector, template: podTemplate } },
    expected: {
      spec: { revisionHistoryLimit: 10, updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } }, template: { spec: podSpecDefaults } },
      status: { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 },
    },
  },
  { key: 'apps/ControllerRevision', resource: 'controllerrevisions', namespaced: true, body: { revision: 1, data: {} }, expected: { revision: 1 } },
  {
    key: 'batch/Job',
    resource: 'jobs',
    namespaced: true,
    body: { spec: { template: { spec: { containers, restartPolicy: 'Never' } } } },
    expected: {
      spec: { completions: 1, parallelism: 1, backoffLimit: 6, completionMode: 'NonIndexed', suspend: false, podReplacementPolicy: 'TerminatingOrFailed', template: { metadata: {}, spec: { ...podSpecDefaults, restartPolicy: 'Never' } } },
      status: {},
    },
  },
  {
    key: 'batch/CronJob',
    resource: 'cronjobs',
    namespaced: true,
    body: { spec: { schedule: '*/5 * * * *', jobTemplate: { spec: { template: { spec: { containers, restartPolicy: 'OnFailure' } } } } } },
    expected: {
      spec: {
        concurrencyPolicy: 'Allow',
        suspend: false,
        successfulJobsHistoryLimit: 3,
        failedJobsHistoryLimit: 1,
        jobTemplate: { metadata: {}, spec: { template: { spec: { ...podSpecDefaults, restartPolicy: 'OnFailure' } } } },
      },
      status: {},
    },
  },
  {
    key: 'autoscaling/HorizontalPodAutoscaler',
    resource: 'horizontalpodautoscalers',
    namespaced: true,
    body: { spec: { scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'd' }, maxReplicas: 3 } },
    expected: {
      spec: { minReplicas: 1, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }] },
      status: { desiredReplicas: 0 },
    },
  },
  {
    key: 'policy/PodDisruptionBudget',
    resource: 'poddisruptionbudgets',
    namespaced: true,
    body: { spec: { minAvailable: 1, selector } },
    expected: { status: { disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 } },
  },
  { key: 'coordination.svc.io/Lease', resource: 'leases', namespaced: true, body: {}, expected: { spec: {} } },
  { key: 'storage.svc.io/StorageClass', resource: 'storageclasses', namespaced: false, body: { provisioner: 'svc.io/host-path' }, expected: { reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' } },
  {
    key: 'storage.svc.io/VolumeAttachment',
    resource: 'volumeattachments',
    namespaced: false,
    body: { spec: { attacher: 'disk.example.com', nodeName: 'n1', source: { persistentVolumeName: 'pv' } } },
    expected: {},
  },
  {
    key: 'discovery.svc.io/EndpointSlice',
    resource: 'endpointslices',
    namespaced: true,
    body: { addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'] }], ports: [{ port: 80 }] },
    expected: { endpoints: [{ addresses: ['10.0.0.1'], conditions: {} }], ports: [{ port: 80, name: '', protocol: 'TCP' }] },
  },
  {
    key: 'events.svc.io/Event',
    resource: 'events',
    namespaced: true,
    body: { eventTime: '2024-01-01T00:00:00.000000Z', reportingController: 'x/y', reportingInstance: 'i', action: 'A', reason: 'R', type: 'Normal', regarding: { kind: 'Pod', name: 'p' } },
    expected: { deprecatedSource: {} },
  },
  {
    key: 'certificates.svc.io/CertificateSigningRequest',
    resource: 'certificatesigningrequests',
    namespaced: false,
    // A real PEM request (the API server checks that it parses and verifies): CN=fixture, ECDSA P-256.
    body: { spec: { request: FIXTURE_CSR, signerName: 'example.com/signer', usages: ['client auth'] } },
    expected: { status: {} },
  },
  { key: 'rbac.authorization.svc.io/Role', resource: 'roles', namespaced: true, body: { rules: [] }, expected: {} },
  { key: 'rbac.authorization.svc.io/ClusterRole', resource: 'clusterroles', namespaced: false, body: { rules: [] }, expected: {} },
  {
    key: 'rbac.authorization.svc.io/RoleBinding',
    resource: 'rolebindings',
    namespaced: true,
    body: { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'r' }, subjects: [{ kind: 'User', name: 'u' }] },
    expected: {},
  },
  {
    key: 'rbac.authorization.svc.io/ClusterRoleBinding',
    resource: 'clusterrolebindings',
    namespaced: false,
    body: { roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'r' }, subjects: [{ kind: 'User', name: 'u' }] },
    expected: {},
  },
  {
    key: 'admissionregistration.svc.io/MutatingWebhookConfiguration',
    resource: 'mutatingwebhookconfigurations',
    namespaced: false,
    body: {
      webhooks: [
        {
          name: 'm.example.com',
          clientConfig: { service: { namespace: 'default', name: 'hook' } },
          rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          // Fail-closed would send this suite's writes to a webhook that is not there.
          failurePolicy: 'Ignore',
          objectSelector: { matchLabels: { 'never-matched': 'true' } },
        },
      ],
    },
    expected: {
      webhooks: [{ failurePolicy: 'Ignore', matchPolicy: 'Equivalent', namespaceSelector: {}, timeoutSeconds: 10, reinvocationPolicy: 'Never', rules: [{ scope: '*' }], clientConfig: { service: { port: 443 } } }],
    },
  },
  {
    key: 'admissionregistration.svc.io/ValidatingWebhookConfiguration',
    resource: 'validatingwebhookconfigurations',
    namespaced: false,
    body: {
      webhooks: [
        {
          name: 'v.example.com',
          clientConfig: { url: 'https://127.0.0.1:1/hook' },
          rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          failurePolicy: 'Ignore',
          objectSelector: { matchLabels: { 'never-matched': 'true' } },
        },
      ],
    },
    expected: { webhooks: [{ failurePolicy: 'Ignore', matchPolicy: 'Equivalent', namespaceSelector: {}, timeoutSeconds: 10, rules: [{ scope: '*' }] }] },
  },
  {
    key: 'admissionregistration.svc.io/ValidatingAdmissionPolicy',
    resource: 'validatingadmissionpolicies',
    namespaced: false,
    body: {
      spec: {
        matchConstraints: { resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] },
        validations: [{ expression: 'true' }],
      },
    },
    expected: { spec: { failurePolicy: 'Fail', matchConstraints: { matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {}, resourceRules: [{ scope: '*' }] } } },
  },
  {
    key: 'admissionregistration.svc.io/ValidatingAdmissionPolicyBinding',
    resource: 'validatingadmissionpolicybindings',
    namespaced: false,
    // Bound to a policy that does not exist: this suite's writes are not judged by it.
    body: { spec: { policyName: 'absent', validationActions: ['Deny'], matchResources: { resourceRules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }] } } },
    expected: { spec: { matchResources: { matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {}, resourceRules: [{ scope: '*' }] } } },
  },
  {
    key: 'apiextensions.svc.io/CustomResourceDefinition',
    resource: 'customresourcedefinitions',
    namespaced: false,
    body: {
      spec: {
        group: 'defaults.example.com',
        scope: 'Namespaced',
        names: { plural: 'things', singular: 'thing', kind: 'Thing' },
        versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
      },
    },
    expected: { spec: { conversion: { strategy: 'None' } } },
    name: 'things.defaults.example.com',
    settled: (crd) => (crd.status?.conditions ?? []).some((c: { type: string; status: string }) => c.type === 'Established' && c.status === 'True'),
  },
  {
    key: 'apiregistration.svc.io/APIService',
    resource: 'apiservices',
    namespaced: false,
    body: {
      spec: { group: 'aggregated.example.com', version: 'v1', service: { namespace: 'default', name: 'nowhere' }, insecureSkipTLSVerify: true, groupPriorityMinimum: 100, versionPriority: 10 },
    },
    expected: { spec: { service: { namespace: 'default', name: 'nowhere', port: 443 } }, status: {} },
    // Not the CRD case's group, whose local APIService the server writes itself.
    name: 'v1.aggregated.example.com',
    // The availability check writes its condition (ServiceNotFound here).
    settled: (apiService) => (apiService.status?.conditions ?? []).some((c: { type: string }) => c.type === 'Available'),
  },
];

/** Operations answered by a function and never stored: nothing to default. */
export const VIRTUAL_KINDS = [
  'authentication.svc.io/TokenReview',
  'authorization.svc.io/SubjectAccessReview',
  'authorization.svc.io/LocalSubjectAccessReview',
  'authorization.svc.io/SelfSubjectAccessReview',
  'authorization.svc.io/SelfSubjectRulesReview',
  // The resource metrics API: computed from the node agents' figures, never stored or defaulted.
  'metrics.svc.io/NodeMetrics',
  'metrics.svc.io/PodMetrics',
];
