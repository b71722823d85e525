export {
  base64Schema,
  conditionSchema,
  intOrStringSchema,
  kindSchema,
  labelSelectorRequirementSchema,
  labelSelectorSchema,
  localObjectReferenceSchema,
  objectReferenceSchema,
  quantitySchema,
  resourceListSchema,
} from './common.js';
export {
  containerSchema,
  podSchema,
  podSpecSchema,
  podStatusSchema,
  podTemplateSpecSchema,
  type Container,
  type Pod,
  type PodSpec,
  type PodStatus,
  type PodTemplateSpec,
} from './pod.js';
export {
  configMapSchema,
  coreEventSchema,
  limitRangeSchema,
  namespaceSchema,
  replicationControllerSchema,
  resourceQuotaSchema,
  secretSchema,
  serviceAccountSchema,
  type ConfigMap,
  type CoreEvent,
  type LimitRange,
  type Namespace,
  type ReplicationController,
  type ResourceQuota,
  type Secret,
  type ServiceAccount,
} from './core.js';
export { nodeSchema, taintSchema, type Node, type NodeSpec, type NodeStatus, type Taint } from './node.js';
export {
  endpointsSchema,
  servicePortSchema,
  serviceSchema,
  serviceSpecSchema,
  type Endpoints,
  type Service,
  type ServicePort,
  type ServiceSpec,
} from './service.js';
export {
  persistentVolumeClaimSchema,
  persistentVolumeSchema,
  type PersistentVolume,
  type PersistentVolumeClaim,
} from './volumes.js';
export { storageClassSchema, volumeAttachmentSchema, volumeBindingModeSchema, type StorageClass, type VolumeAttachment } from './storage.js';
export {
  controllerRevisionSchema,
  daemonSetSchema,
  deploymentSchema,
  deploymentSpecSchema,
  replicaSetSchema,
  statefulSetSchema,
  type ControllerRevision,
  type DaemonSet,
  type Deployment,
  type DeploymentSpec,
  type ReplicaSet,
  type StatefulSet,
} from './apps.js';
export { cronJobSchema, jobSchema, jobSpecSchema, type CronJob, type Job, type JobSpec } from './batch.js';
export { horizontalPodAutoscalerSchema, horizontalPodAutoscalerV1Schema, type HorizontalPodAutoscaler, type HorizontalPodAutoscalerV1 } from './autoscaling.js';
export { containerMetricsSchema, nodeMetricsSchema, podMetricsSchema, type ContainerMetrics, type NodeMetrics, type PodMetrics } from './metrics.js';
export { podDisruptionBudgetSchema, type PodDisruptionBudget } from './policy.js';
export { leaseSchema, leaseSpecSchema, type Lease, type LeaseSpec } from './coordination.js';
export { endpointSliceSchema, type EndpointSlice } from './discovery.js';
export {
  clusterRoleBindingSchema,
  clusterRoleSchema,
  policyRuleSchema,
  roleBindingSchema,
  roleSchema,
  subjectSchema,
  type ClusterRole,
  type ClusterRoleBinding,
  type PolicyRule,
  type Role,
  type RoleBinding,
  type Subject,
} from './rbac.js';
export { certificateSigningRequestSchema, type CertificateSigningRequest } from './certificates.js';
export { eventSchema, type Event } from './events.js';
export {
  localSubjectAccessReviewSchema,
  nonResourceAttributesSchema,
  resourceAttributesSchema,
  selfSubjectAccessReviewSchema,
  selfSubjectRulesReviewSchema,
  subjectAccessReviewSchema,
  subjectAccessReviewStatusSchema,
  type LocalSubjectAccessReview,
  type NonResourceAttributes,
  type NonResourceRule,
  type ResourceAttributes,
  type ResourceRule,
  type SelfSubjectAccessReview,
  type SelfSubjectRulesReview,
  type SubjectAccessReview,
  type SubjectAccessReviewStatus,
} from './authorization.js';
export { tokenReviewSchema, userInfoSchema, type ReviewUserInfo, type TokenReview } from './authentication.js';
export {
  customResourceDefinitionSchema,
  jsonSchemaPropsSchema,
  type CustomResourceColumn,
  type CustomResourceDefinition,
  type CustomResourceDefinitionNames,
  type CustomResourceDefinitionSpec,
  type CustomResourceDefinitionStatus,
  type CustomResourceDefinitionVersion,
} from './apiextensions.js';
export {
  mutatingWebhookConfigurationSchema,
  validatingWebhookConfigurationSchema,
  type MutatingWebhook,
  type MutatingWebhookConfiguration,
  type RuleWithOperations,
  type ValidatingWebhook,
  type ValidatingWebhookConfiguration,
  type WebhookClientConfig,
  validatingAdmissionPolicySchema,
  validatingAdmissionPolicyBindingSchema,
  type AuditAnnotation,
  type MatchResources,
  type NamedRuleWithOperations,
  type ParamRef,
  type PolicyValidation,
  type PolicyVariable,
  type ValidatingAdmissionPolicy,
  type ValidatingAdmissionPolicyBinding,
  type ValidationAction,
} from './admissionregistration.js';
export {
  apiServiceConditionSchema,
  apiServiceReferenceSchema,
  apiServiceSchema,
  apiServiceSpecSchema,
  type APIService,
  type APIServiceCondition,
  type APIServiceSpec,
} from './apiregistration.js';
