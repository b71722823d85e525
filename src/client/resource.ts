import type { z } from 'zod';
import {
  APPS_GROUP,
  AUTOSCALING_GROUP,
  BATCH_GROUP,
  CERTIFICATES_GROUP,
  COORDINATION_GROUP,
  CORE_GROUP,
  DISCOVERY_GROUP,
  EVENTS_GROUP,
  POLICY_GROUP,
  RBAC_GROUP,
  STORAGE_GROUP,
  type KubeObject,
  type ResourceType,
} from '../api/index.js';
// Types only: the schemas name each built-in's object type, and nothing of them is loaded here.
import type {
  certificateSigningRequestSchema,
  clusterRoleBindingSchema,
  clusterRoleSchema,
  configMapSchema,
  controllerRevisionSchema,
  coreEventSchema,
  cronJobSchema,
  daemonSetSchema,
  deploymentSchema,
  endpointSliceSchema,
  endpointsSchema,
  eventSchema,
  horizontalPodAutoscalerSchema,
  jobSchema,
  leaseSchema,
  limitRangeSchema,
  namespaceSchema,
  nodeSchema,
  persistentVolumeClaimSchema,
  persistentVolumeSchema,
  podDisruptionBudgetSchema,
  podSchema,
  replicaSetSchema,
  replicationControllerSchema,
  resourceQuotaSchema,
  roleBindingSchema,
  roleSchema,
  secretSchema,
  serviceAccountSchema,
  serviceSchema,
  storageClassSchema,
  volumeAttachmentSchema,
  statefulSetSchema,
} from '../api/index.js';

/**
 * What the client needs to address a resource: group, version, plural and scope. `T` is the type
 * of its objects; it exists only for the compiler (`Resource<Pod>` makes `client.get` return a Pod).
 * A ResourceType from the registry is a `Resource<KubeObject>` as it is.
 */
export interface Resource<T extends KubeObject = KubeObject> {
  /** `''` for the core group. */
  readonly group: string;
  readonly version: string;
  /** The plural, lowercase name in URLs. */
  readonly resource: string;
  readonly namespaced: boolean;
  /** Optional: used for messages only. */
  readonly kind?: string;
  /** Phantom: never set, only carries `T`. */
  readonly __object?: T;
}

/** Any type, by group/version/resource: objects are typed `KubeObject` unless you say otherwise. */
export function resource<T extends KubeObject = KubeObject>(init: {
  group: string;
  version: string;
  resource: string;
  namespaced: boolean;
  kind?: string;
}): Resource<T> {
  return Object.freeze({ ...init });
}

/** A registry type, typed by the zod schema its objects follow (`z.infer<typeof schema>`). */
export function typedResource<S extends z.ZodType<KubeObject>>(type: ResourceType, _schema: S): Resource<z.infer<S>> {
  return Object.freeze({ group: type.group, version: type.version, resource: type.resource, namespaced: type.namespaced, kind: type.kind });
}

/**
 * A built-in type's address, typed by its schema. Written out rather than looked up in the
 * registry, so that a process using the client (the node agent) loads no kind schema it does not
 * validate with; test/client/builtin-resources.test.ts holds each to its registry entry.
 */
function builtinOf<S extends z.ZodType<KubeObject>>(group: string, version: string, resource: string, kind: string, namespaced = true): Resource<z.infer<S>> {
  return Object.freeze({ group, version, resource, namespaced, kind });
}

/** Every built-in type, typed by its schema: `client.get(builtin.pods, 'web-0')` is a `Pod`. */
export const builtin = Object.freeze({
  pods: builtinOf<typeof podSchema>(CORE_GROUP, 'v1', 'pods', 'Pod'),
  configMaps: builtinOf<typeof configMapSchema>(CORE_GROUP, 'v1', 'configmaps', 'ConfigMap'),
  secrets: builtinOf<typeof secretSchema>(CORE_GROUP, 'v1', 'secrets', 'Secret'),
  namespaces: builtinOf<typeof namespaceSchema>(CORE_GROUP, 'v1', 'namespaces', 'Namespace', false),
  nodes: builtinOf<typeof nodeSchema>(CORE_GROUP, 'v1', 'nodes', 'Node', false),
  services: builtinOf<typeof serviceSchema>(CORE_GROUP, 'v1', 'services', 'Service'),
  endpoints: builtinOf<typeof endpointsSchema>(CORE_GROUP, 'v1', 'endpoints', 'Endpoints'),
  serviceAccounts: builtinOf<typeof serviceAccountSchema>(CORE_GROUP, 'v1', 'serviceaccounts', 'ServiceAccount'),
  coreEvents: builtinOf<typeof coreEventSchema>(CORE_GROUP, 'v1', 'events', 'Event'),
  limitRanges: builtinOf<typeof limitRangeSchema>(CORE_GROUP, 'v1', 'limitranges', 'LimitRange'),
  resourceQuotas: builtinOf<typeof resourceQuotaSchema>(CORE_GROUP, 'v1', 'resourcequotas', 'ResourceQuota'),
  replicationControllers: builtinOf<typeof replicationControllerSchema>(CORE_GROUP, 'v1', 'replicationcontrollers', 'ReplicationController'),
  persistentVolumes: builtinOf<typeof persistentVolumeSchema>(CORE_GROUP, 'v1', 'persistentvolumes', 'PersistentVolume', false),
  persistentVolumeClaims: builtinOf<typeof persistentVolumeClaimSchema>(CORE_GROUP, 'v1', 'persistentvolumeclaims', 'PersistentVolumeClaim'),
  deployments: builtinOf<typeof deploymentSchema>(APPS_GROUP, 'v1', 'deployments', 'Deployment'),
  replicaSets: builtinOf<typeof replicaSetSchema>(APPS_GROUP, 'v1', 'replicasets', 'ReplicaSet'),
  statefulSets: builtinOf<typeof statefulSetSchema>(APPS_GROUP, 'v1', 'statefulsets', 'StatefulSet'),
  daemonSets: builtinOf<typeof daemonSetSchema>(APPS_GROUP, 'v1', 'daemonsets', 'DaemonSet'),
  controllerRevisions: builtinOf<typeof controllerRevisionSchema>(APPS_GROUP, 'v1', 'controllerrevisions', 'ControllerRevision'),
  jobs: builtinOf<typeof jobSchema>(BATCH_GROUP, 'v1', 'jobs', 'Job'),
  cronJobs: builtinOf<typeof cronJobSchema>(BATCH_GROUP, 'v1', 'cronjobs', 'CronJob'),
  horizontalPodAutoscalers: builtinOf<typeof horizontalPodAutoscalerSchema>(AUTOSCALING_GROUP, 'v2', 'horizontalpodautoscalers', 'HorizontalPodAutoscaler'),
  podDisruptionBudgets: builtinOf<typeof podDisruptionBudgetSchema>(POLICY_GROUP, 'v1', 'poddisruptionbudgets', 'PodDisruptionBudget'),
  events: builtinOf<typeof eventSchema>(EVENTS_GROUP, 'v1', 'events', 'Event'),
  leases: builtinOf<typeof leaseSchema>(COORDINATION_GROUP, 'v1', 'leases', 'Lease'),
  endpointSlices: builtinOf<typeof endpointSliceSchema>(DISCOVERY_GROUP, 'v1', 'endpointslices', 'EndpointSlice'),
  roles: builtinOf<typeof roleSchema>(RBAC_GROUP, 'v1', 'roles', 'Role'),
  roleBindings: builtinOf<typeof roleBindingSchema>(RBAC_GROUP, 'v1', 'rolebindings', 'RoleBinding'),
  clusterRoles: builtinOf<typeof clusterRoleSchema>(RBAC_GROUP, 'v1', 'clusterroles', 'ClusterRole', false),
  clusterRoleBindings: builtinOf<typeof clusterRoleBindingSchema>(RBAC_GROUP, 'v1', 'clusterrolebindings', 'ClusterRoleBinding', false),
  storageClasses: builtinOf<typeof storageClassSchema>(STORAGE_GROUP, 'v1', 'storageclasses', 'StorageClass', false),
  volumeAttachments: builtinOf<typeof volumeAttachmentSchema>(STORAGE_GROUP, 'v1', 'volumeattachments', 'VolumeAttachment', false),
  certificateSigningRequests: builtinOf<typeof certificateSigningRequestSchema>(CERTIFICATES_GROUP, 'v1', 'certificatesigningrequests', 'CertificateSigningRequest', false),
});

/** The object type a Resource carries. */
export type ObjectOf<R> = R extends Resource<infer T> ? T : never;

/**
 * The URL path of a collection (`name` undefined) or of one object. A namespaced resource without
 * a namespace is addressed across all namespaces (lists and watches only).
 */
export function resourcePath(res: Resource<KubeObject>, namespace: string | undefined, name?: string): string {
  const base = res.group === '' ? `/api/${res.version}` : `/apis/${res.group}/${res.version}`;
  const scope = res.namespaced && namespace !== undefined ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  return `${base}${scope}/${res.resource}${name !== undefined ? `/${encodeURIComponent(name)}` : ''}`;
}

/** `namespace/name` for namespaced objects, `name` otherwise: the key of caches and indexes. */
export function objectKey(object: KubeObject): string {
  const { namespace, name } = object.metadata;
  return namespace ? `${namespace}/${name ?? ''}` : (name ?? '');
}
