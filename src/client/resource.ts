import type { z } from 'zod';
import {
  builtinTypes,
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
  statefulSetSchema,
  type KubeObject,
  type ResourceType,
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

function builtinOf<S extends z.ZodType<KubeObject>>(schema: S): Resource<z.infer<S>> {
  const type = builtinTypes.find((t) => t.schema === schema);
  if (!type) throw new Error('a built-in schema without a built-in type');
  return typedResource(type, schema);
}

/** Every built-in type, typed by its schema: `client.get(builtin.pods, 'web-0')` is a `Pod`. */
export const builtin = Object.freeze({
  pods: builtinOf(podSchema),
  configMaps: builtinOf(configMapSchema),
  secrets: builtinOf(secretSchema),
  namespaces: builtinOf(namespaceSchema),
  nodes: builtinOf(nodeSchema),
  services: builtinOf(serviceSchema),
  endpoints: builtinOf(endpointsSchema),
  serviceAccounts: builtinOf(serviceAccountSchema),
  coreEvents: builtinOf(coreEventSchema),
  limitRanges: builtinOf(limitRangeSchema),
  resourceQuotas: builtinOf(resourceQuotaSchema),
  replicationControllers: builtinOf(replicationControllerSchema),
  persistentVolumes: builtinOf(persistentVolumeSchema),
  persistentVolumeClaims: builtinOf(persistentVolumeClaimSchema),
  deployments: builtinOf(deploymentSchema),
  replicaSets: builtinOf(replicaSetSchema),
  statefulSets: builtinOf(statefulSetSchema),
  daemonSets: builtinOf(daemonSetSchema),
  controllerRevisions: builtinOf(controllerRevisionSchema),
  jobs: builtinOf(jobSchema),
  cronJobs: builtinOf(cronJobSchema),
  horizontalPodAutoscalers: builtinOf(horizontalPodAutoscalerSchema),
  podDisruptionBudgets: builtinOf(podDisruptionBudgetSchema),
  events: builtinOf(eventSchema),
  leases: builtinOf(leaseSchema),
  endpointSlices: builtinOf(endpointSliceSchema),
  roles: builtinOf(roleSchema),
  roleBindings: builtinOf(roleBindingSchema),
  clusterRoles: builtinOf(clusterRoleSchema),
  clusterRoleBindings: builtinOf(clusterRoleBindingSchema),
  certificateSigningRequests: builtinOf(certificateSigningRequestSchema),
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
