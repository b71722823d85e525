import { ADMISSIONREGISTRATION_GROUP, STORAGE_GROUP, CERTIFICATES_GROUP, COORDINATION_GROUP, DISCOVERY_GROUP, EVENTS_GROUP, RBAC_GROUP } from '../groups.js';
import {
  certificateSigningRequestSchema,
  clusterRoleBindingSchema,
  clusterRoleSchema,
  endpointSliceSchema,
  eventSchema,
  leaseSchema,
  mutatingWebhookConfigurationSchema,
  roleBindingSchema,
  roleSchema,
  storageClassSchema,
  volumeAttachmentSchema,
  validatingWebhookConfigurationSchema,
  validatingAdmissionPolicySchema,
  validatingAdmissionPolicyBindingSchema,
} from '../kinds/index.js';
import { defineResourceType, stringAt, type ResourceType } from '../resource-type.js';
import { policyExpressionCauses } from '../cel/index.js';

/** The groups Kubernetes suffixes `.k8s.io`, served here as `.svc.io`. */

const rbac = { group: RBAC_GROUP, version: 'v1', nameValidation: 'pathSegment' } as const;

export const eventsTypes: readonly ResourceType[] = [
  defineResourceType({
    group: EVENTS_GROUP,
    version: 'v1',
    namespaced: true,
    kind: 'Event',
    resource: 'events',
    // No short name: `ev` is the core group's Event (kubectl would warn that it matches both).
    schema: eventSchema,
    fieldSelectors: {
      ...Object.fromEntries(
        ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath'].map((f) => [`regarding.${f}`, stringAt(`regarding.${f}`)]),
      ),
      reason: stringAt('reason'),
      reportingController: stringAt('reportingController'),
      type: stringAt('type'),
    },
  }),
];

export const certificatesTypes: readonly ResourceType[] = [
  defineResourceType({
    group: CERTIFICATES_GROUP,
    version: 'v1',
    namespaced: false,
    kind: 'CertificateSigningRequest',
    resource: 'certificatesigningrequests',
    shortNames: ['csr'],
    schema: certificateSigningRequestSchema,
    subresources: ['approval', 'status'],
    fieldSelectors: { 'spec.signerName': stringAt('spec.signerName') },
  }),
];

export const rbacTypes: readonly ResourceType[] = [
  defineResourceType({ ...rbac, kind: 'ClusterRoleBinding', resource: 'clusterrolebindings', namespaced: false, schema: clusterRoleBindingSchema }),
  defineResourceType({ ...rbac, kind: 'ClusterRole', resource: 'clusterroles', namespaced: false, schema: clusterRoleSchema }),
  defineResourceType({ ...rbac, kind: 'RoleBinding', resource: 'rolebindings', namespaced: true, schema: roleBindingSchema }),
  defineResourceType({ ...rbac, kind: 'Role', resource: 'roles', namespaced: true, schema: roleSchema }),
];

export const coordinationTypes: readonly ResourceType[] = [
  defineResourceType({ group: COORDINATION_GROUP, version: 'v1', namespaced: true, kind: 'Lease', resource: 'leases', schema: leaseSchema }),
];

export const discoveryTypes: readonly ResourceType[] = [
  defineResourceType({
    group: DISCOVERY_GROUP,
    version: 'v1',
    namespaced: true,
    kind: 'EndpointSlice',
    resource: 'endpointslices',
    schema: endpointSliceSchema,
  }),
];

const admission = { group: ADMISSIONREGISTRATION_GROUP, version: 'v1', namespaced: false, categories: ['api-extensions'] } as const;

export const admissionregistrationTypes: readonly ResourceType[] = [
  defineResourceType({ ...admission, kind: 'MutatingWebhookConfiguration', resource: 'mutatingwebhookconfigurations', schema: mutatingWebhookConfigurationSchema }),
  defineResourceType({ ...admission, kind: 'ValidatingWebhookConfiguration', resource: 'validatingwebhookconfigurations', schema: validatingWebhookConfigurationSchema }),
  defineResourceType({
    ...admission,
    kind: 'ValidatingAdmissionPolicy',
    resource: 'validatingadmissionpolicies',
    schema: validatingAdmissionPolicySchema,
    subresources: ['status'],
    // Upstream compiles a policy's CEL when it is written: an expression that cannot compile is a 422.
    strategy: { validate: (object) => policyExpressionCauses(object) },
  }),
  defineResourceType({ ...admission, kind: 'ValidatingAdmissionPolicyBinding', resource: 'validatingadmissionpolicybindings', schema: validatingAdmissionPolicyBindingSchema }),
];

export const storageTypes: readonly ResourceType[] = [
  defineResourceType({ group: STORAGE_GROUP, version: 'v1', namespaced: false, kind: 'StorageClass', resource: 'storageclasses', shortNames: ['sc'], schema: storageClassSchema }),
  defineResourceType({ group: STORAGE_GROUP, version: 'v1', namespaced: false, kind: 'VolumeAttachment', resource: 'volumeattachments', schema: volumeAttachmentSchema }),
];
