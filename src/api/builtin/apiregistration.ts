import { APIREGISTRATION_GROUP } from '../groups.js';
import { apiServiceSchema, type APIService } from '../kinds/index.js';
import type { KubeObject } from '../meta.js';
import { defineResourceType, type ResourceType, type WriteStrategy } from '../resource-type.js';
import type { FieldCause } from '../status-error.js';
import { fieldForbidden, fieldInvalid, fieldRequired } from '../validation/causes.js';
import { validateDns1035Label, validateDns1123Subdomain } from '../validation/names.js';

/**
 * The checks of an APIService that span fields (kube-aggregator's validation): its name is
 * `<version>.<group>` (`v1.` for the core group), the priorities are positive, and a remote one
 * either trusts a CA bundle or skips verification, never both.
 */
function validateApiService(object: KubeObject): FieldCause[] {
  const { metadata, spec } = object as APIService;
  const causes: FieldCause[] = [];
  const group = spec.group ?? '';
  const wanted = `${spec.version}.${group}`;
  if (metadata.name !== wanted) causes.push(fieldInvalid('metadata.name', metadata.name, `must be ${JSON.stringify(wanted)}: <spec.version>.<spec.group>`));
  if (group !== '') for (const message of validateDns1123Subdomain(group)) causes.push(fieldInvalid('spec.group', group, message));
  for (const message of validateDns1035Label(spec.version)) causes.push(fieldInvalid('spec.version', spec.version, message));
  if (spec.groupPriorityMinimum === undefined) causes.push(fieldRequired('spec.groupPriorityMinimum'));
  else if (spec.groupPriorityMinimum <= 0) causes.push(fieldInvalid('spec.groupPriorityMinimum', spec.groupPriorityMinimum, 'must be positive and less than 20000'));
  if (spec.versionPriority === undefined) causes.push(fieldRequired('spec.versionPriority'));
  else if (spec.versionPriority <= 0) causes.push(fieldInvalid('spec.versionPriority', spec.versionPriority, 'must be positive and less than 1000'));
  if (spec.service) {
    if (spec.insecureSkipTLSVerify && spec.caBundle) causes.push(fieldForbidden('spec.insecureSkipTLSVerify', 'may not be true if caBundle is present'));
  } else if (spec.caBundle || spec.insecureSkipTLSVerify) {
    causes.push(fieldForbidden(spec.caBundle ? 'spec.caBundle' : 'spec.insecureSkipTLSVerify', 'only a remote APIService (with spec.service) has TLS settings'));
  }
  return causes;
}

const apiServiceStrategy: WriteStrategy = { validate: validateApiService };

/** APIService: which server serves each group-version (the aggregation layer, docs/aggregation.md). */
export const apiServiceType: ResourceType = defineResourceType({
  group: APIREGISTRATION_GROUP,
  version: 'v1',
  namespaced: false,
  kind: 'APIService',
  resource: 'apiservices',
  categories: ['api-extensions'],
  subresources: ['status'],
  // `v1.` (the core group) is no DNS name: Kubernetes checks these names as path segments.
  nameValidation: 'pathSegment',
  schema: apiServiceSchema,
  strategy: apiServiceStrategy,
});

export const apiregistrationTypes: readonly ResourceType[] = [apiServiceType];
