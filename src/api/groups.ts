/**
 * The API groups svc serves. Groups Kubernetes names `*.k8s.io` are `*.svc.io` here; the groups
 * Kubernetes leaves unsuffixed (apps, batch, autoscaling, policy) keep their names.
 */

export const CORE_GROUP = '';
export const APPS_GROUP = 'apps';
export const BATCH_GROUP = 'batch';
export const AUTOSCALING_GROUP = 'autoscaling';
export const POLICY_GROUP = 'policy';
export const COORDINATION_GROUP = 'coordination.svc.io';
export const DISCOVERY_GROUP = 'discovery.svc.io';
export const RBAC_GROUP = 'rbac.authorization.svc.io';
export const CERTIFICATES_GROUP = 'certificates.svc.io';
export const EVENTS_GROUP = 'events.svc.io';
export const STORAGE_GROUP = 'storage.svc.io';
/** The virtual review types: access reviews, and token reviews. */
export const AUTHORIZATION_GROUP = 'authorization.svc.io';
export const AUTHENTICATION_GROUP = 'authentication.svc.io';
export const APIEXTENSIONS_GROUP = 'apiextensions.svc.io';
export const ADMISSIONREGISTRATION_GROUP = 'admissionregistration.svc.io';
/** APIService: which server serves each group-version (the aggregation layer). */
export const APIREGISTRATION_GROUP = 'apiregistration.svc.io';
/** The resource metrics API (upstream `metrics.k8s.io`): NodeMetrics and PodMetrics, computed, never stored. */
export const METRICS_GROUP = 'metrics.svc.io';
/** The group of the Table and PartialObjectMetadata views. */
export const META_GROUP = 'meta.svc.io';

const UPSTREAM_SUFFIX = '.k8s.io';
const SVC_SUFFIX = '.svc.io';

/**
 * svc's name for a group a real client names the upstream way (`coordination.k8s.io` →
 * `coordination.svc.io`); any other group is returned unchanged.
 */
export function upstreamGroupAlias(group: string): string {
  return group.endsWith(UPSTREAM_SUFFIX) ? group.slice(0, -UPSTREAM_SUFFIX.length) + SVC_SUFFIX : group;
}

/** The reverse, for answering a client in the group name it used. */
export function upstreamGroupName(group: string): string {
  return group.endsWith(SVC_SUFFIX) ? group.slice(0, -SVC_SUFFIX.length) + UPSTREAM_SUFFIX : group;
}
