import {
  ADMISSIONREGISTRATION_GROUP,
  APIEXTENSIONS_GROUP,
  APIREGISTRATION_GROUP,
  APPS_GROUP,
  AUTOSCALING_GROUP,
  BATCH_GROUP,
  CERTIFICATES_GROUP,
  COORDINATION_GROUP,
  CORE_GROUP,
  DISCOVERY_GROUP,
  EVENTS_GROUP,
  POLICY_GROUP,
  STORAGE_GROUP,
} from '../groups.js';
import { eachItem, fill, ifPresent, pipe, when, within, type Edit, type JsonMap } from './json-fill.js';
import { podSpecDefaults, podStatusDefaults, podTemplateDefaults } from './pod.js';

/**
 * Each built-in kind's defaults, as kube-apiserver applies them (k8s.io/api `SetDefaults_*`), and
 * the fields Go's JSON encoder always writes: a struct-typed field is written even when empty
 * (`omitempty` does not omit structs: `"status":{"loadBalancer":{}}`), as is a scalar field
 * without `omitempty` (`"status":{"replicas":0}`). Generated clients read a missing field as null
 * and some refuse it (Python's models demand a Node's `nodeInfo.systemUUID`). JSON nulls (Go's
 * nil slices and zero times) are not written: svc drops nulls, and a client reads absent and null
 * alike.
 */

const spec = (edit: Edit = (s) => s): Edit => within('spec', edit);
const status = (edit: Edit = (s) => s): Edit => within('status', edit);

/** A workload's pod template. */
const template: Edit = within('template', podTemplateDefaults);

const rollingUpdate = (type: string, fields: () => JsonMap): Edit =>
  pipe(
    fill(() => ({ type })),
    when((s) => (s['type'] === type ? within('rollingUpdate', fill(fields)) : undefined)),
  );

/** A ReplicationController's selector and labels default to its template's labels. */
const replicationControllerSelector: Edit = when((rc) => {
  const labels = ((rc['spec'] as JsonMap | undefined)?.['template'] as { metadata?: { labels?: JsonMap } } | undefined)?.metadata?.labels;
  if (!labels) return undefined;
  return pipe(
    spec(fill(() => ({ selector: { ...labels } }))),
    within('metadata', fill(() => ({ labels: { ...labels } }))),
  );
});

const jobSpec: Edit = pipe(
  // Both unset: one pod to completion; completions unset with parallelism set: a work queue.
  when((s) => (s['completions'] === undefined && s['parallelism'] === undefined ? fill(() => ({ completions: 1 })) : undefined)),
  fill(() => ({ parallelism: 1, completionMode: 'NonIndexed', suspend: false })),
  when((s) => (s['backoffLimitPerIndex'] === undefined ? fill(() => ({ backoffLimit: 6 })) : undefined)),
  when((s) => (s['podFailurePolicy'] === undefined ? fill(() => ({ podReplacementPolicy: 'TerminatingOrFailed' })) : undefined)),
  template,
);

const webhook = (mutating: boolean): Edit =>
  pipe(
    fill(() => ({
      failurePolicy: 'Fail',
      matchPolicy: 'Equivalent',
      namespaceSelector: {},
      objectSelector: {},
      timeoutSeconds: 10,
      ...(mutating ? { reinvocationPolicy: 'Never' } : {}),
    })),
    eachItem('rules', fill(() => ({ scope: '*' }))),
    within('clientConfig', ifPresent('service', fill(() => ({ port: 443 })))),
  );

/** A policy's matchConstraints and a binding's matchResources (v1 defaults). */
const matchResources: Edit = pipe(
  fill(() => ({ matchPolicy: 'Equivalent', namespaceSelector: {}, objectSelector: {} })),
  eachItem('resourceRules', fill(() => ({ scope: '*' }))),
  eachItem('excludeResourceRules', fill(() => ({ scope: '*' }))),
);

const NODE_INFO = ['machineID', 'systemUUID', 'bootID', 'kernelVersion', 'osImage', 'containerRuntimeVersion', 'kubeletVersion', 'kubeProxyVersion', 'operatingSystem', 'architecture'];

/** Keyed `<group>/<Kind>` (svc's group names). */
export const KIND_DEFAULTS: Readonly<Record<string, Edit>> = {
  [`${CORE_GROUP}/Pod`]: pipe(spec(podSpecDefaults), status(podStatusDefaults)),
  [`${CORE_GROUP}/Service`]: pipe(
    spec(
      pipe(
        fill(() => ({ type: 'ClusterIP', sessionAffinity: 'None' })),
        when((s) => (s['type'] === 'ExternalName' ? undefined : fill(() => ({ internalTrafficPolicy: 'Cluster' })))),
        when((s) => (s['type'] === 'NodePort' || s['type'] === 'LoadBalancer' ? fill(() => ({ externalTrafficPolicy: 'Cluster' })) : undefined)),
        eachItem('ports', (p) => fill(() => ({ protocol: 'TCP', ...(p['port'] !== undefined ? { targetPort: p['port'] } : {}) }))(p)),
      ),
    ),
    status(within('loadBalancer', (lb) => lb)),
  ),
  [`${CORE_GROUP}/Endpoints`]: eachItem('subsets', eachItem('ports', fill(() => ({ protocol: 'TCP' })))),
  [`${CORE_GROUP}/Namespace`]: pipe(spec(), status(fill(() => ({ phase: 'Active' })))),
  [`${CORE_GROUP}/Node`]: pipe(
    spec(),
    status(
      pipe(
        within('daemonEndpoints', within('kubeletEndpoint', fill(() => ({ Port: 0 })))),
        within('nodeInfo', fill(() => Object.fromEntries(NODE_INFO.map((field) => [field, ''])))),
        // Kubernetes: allocatable defaults to capacity.
        when((s) => (s['capacity'] !== undefined ? fill(() => ({ allocatable: { ...(s['capacity'] as JsonMap) } })) : undefined)),
      ),
    ),
  ),
  [`${CORE_GROUP}/Secret`]: fill(() => ({ type: 'Opaque' })),
  [`${CORE_GROUP}/Event`]: pipe(
    within('involvedObject', (o) => o),
    within('source', (s) => s),
    fill(() => ({ reportingComponent: '', reportingInstance: '' })),
  ),
  [`${CORE_GROUP}/LimitRange`]: spec(),
  [`${CORE_GROUP}/ResourceQuota`]: pipe(spec(), status()),
  [`${CORE_GROUP}/PersistentVolumeClaim`]: pipe(
    spec(pipe(within('resources', (r) => r), fill(() => ({ volumeMode: 'Filesystem' })))),
    status(fill(() => ({ phase: 'Pending' }))),
  ),
  [`${CORE_GROUP}/PersistentVolume`]: pipe(
    spec(pipe(fill(() => ({ persistentVolumeReclaimPolicy: 'Retain', volumeMode: 'Filesystem' })), ifPresent('hostPath', fill(() => ({ type: '' }))))),
    status(fill(() => ({ phase: 'Pending' }))),
  ),
  [`${CORE_GROUP}/ReplicationController`]: pipe(
    replicationControllerSelector,
    // Its template is a pointer in Go (absent stays absent), unlike the apps workloads'.
    spec(pipe(fill(() => ({ replicas: 1 })), ifPresent('template', podTemplateDefaults))),
    status(fill(() => ({ replicas: 0 }))),
  ),
  [`${APPS_GROUP}/Deployment`]: pipe(
    spec(
      pipe(
        fill(() => ({ replicas: 1, revisionHistoryLimit: 10, progressDeadlineSeconds: 600 })),
        within('strategy', rollingUpdate('RollingUpdate', () => ({ maxUnavailable: '25%', maxSurge: '25%' }))),
        template,
      ),
    ),
    status(),
  ),
  [`${APPS_GROUP}/ReplicaSet`]: pipe(spec(pipe(fill(() => ({ replicas: 1 })), template)), status(fill(() => ({ replicas: 0 })))),
  [`${APPS_GROUP}/StatefulSet`]: pipe(
    spec(
      pipe(
        fill(() => ({
          replicas: 1,
          podManagementPolicy: 'OrderedReady',
          revisionHistoryLimit: 10,
          persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
        })),
        within('updateStrategy', rollingUpdate('RollingUpdate', () => ({ partition: 0 }))),
        eachItem('volumeClaimTemplates', spec(pipe(within('resources', (r) => r), fill(() => ({ volumeMode: 'Filesystem' }))))),
        template,
      ),
    ),
    status(fill(() => ({ replicas: 0, availableReplicas: 0 }))),
  ),
  [`${APPS_GROUP}/DaemonSet`]: pipe(
    spec(
      pipe(
        fill(() => ({ revisionHistoryLimit: 10 })),
        within('updateStrategy', rollingUpdate('RollingUpdate', () => ({ maxUnavailable: 1, maxSurge: 0 }))),
        template,
      ),
    ),
    status(fill(() => ({ currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 }))),
  ),
  [`${APPS_GROUP}/ControllerRevision`]: fill(() => ({ revision: 0 })),
  [`${BATCH_GROUP}/Job`]: pipe(spec(jobSpec), status()),
  [`${BATCH_GROUP}/CronJob`]: pipe(
    spec(
      pipe(
        fill(() => ({ concurrencyPolicy: 'Allow', suspend: false, successfulJobsHistoryLimit: 3, failedJobsHistoryLimit: 1 })),
        // The template's job spec gets the pod defaults only (Kubernetes defaults a Job's own fields when the Job is made).
        within('jobTemplate', pipe(within('metadata', (m) => m), spec(template))),
      ),
    ),
    status(),
  ),
  [`${AUTOSCALING_GROUP}/HorizontalPodAutoscaler`]: pipe(
    spec(
      pipe(
        fill(() => ({ minReplicas: 1 })),
        when((s) =>
          Array.isArray(s['metrics']) && s['metrics'].length > 0
            ? undefined
            : (v) => ({ ...v, metrics: [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }] }),
        ),
      ),
    ),
    status(fill(() => ({ desiredReplicas: 0 }))),
  ),
  [`${POLICY_GROUP}/PodDisruptionBudget`]: pipe(spec(), status(fill(() => ({ disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 })))),
  [`${COORDINATION_GROUP}/Lease`]: spec(),
  [`${STORAGE_GROUP}/StorageClass`]: fill(() => ({ reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' })),
  [`${DISCOVERY_GROUP}/EndpointSlice`]: pipe(
    eachItem('endpoints', within('conditions', (c) => c)),
    eachItem('ports', fill(() => ({ name: '', protocol: 'TCP' }))),
  ),
  [`${EVENTS_GROUP}/Event`]: pipe(
    within('regarding', (r) => r),
    within('deprecatedSource', (s) => s),
  ),
  [`${CERTIFICATES_GROUP}/CertificateSigningRequest`]: pipe(spec(), status()),
  [`${ADMISSIONREGISTRATION_GROUP}/MutatingWebhookConfiguration`]: eachItem('webhooks', webhook(true)),
  [`${ADMISSIONREGISTRATION_GROUP}/ValidatingWebhookConfiguration`]: eachItem('webhooks', webhook(false)),
  [`${ADMISSIONREGISTRATION_GROUP}/ValidatingAdmissionPolicy`]: spec(pipe(fill(() => ({ failurePolicy: 'Fail' })), ifPresent('matchConstraints', matchResources))),
  [`${ADMISSIONREGISTRATION_GROUP}/ValidatingAdmissionPolicyBinding`]: spec(ifPresent('matchResources', matchResources)),
  [`${APIEXTENSIONS_GROUP}/CustomResourceDefinition`]: spec(fill(() => ({ conversion: { strategy: 'None' } }))),
  // The Service is a pointer (absent on a local APIService); its port defaults to 443. The priorities are required, not defaulted.
  [`${APIREGISTRATION_GROUP}/APIService`]: pipe(spec(ifPresent('service', fill(() => ({ port: 443 })))), status()),
};
