export {
  canonicalQuotaName,
  COMPUTE_RESOURCES,
  countName,
  missingCompute,
  OBJECT_COUNT_NAMES,
  podHoldsQuota,
  STORAGE_CLASS_SUFFIX,
  totalUsage,
  typeCounted,
  usageOf,
  type CountedType,
  type Usage,
  type UsageOptions,
} from './usage.js';
export { isQuotaScope, QUOTA_SCOPES, quotaTracks, scopeLimits, scopeRequirements, type QuotaScope, type ScopeRequirement } from './scopes.js';
export {
  hardOf,
  inQuotaNames,
  observedUsage,
  quotaStatusOf,
  recordedUsage,
  statusWithUsage,
  typesCountedBy,
  withUsage,
  type ObservedUsageOptions,
  type QuotaObjectLister,
  type QuotaStatus,
} from './quota-status.js';
export { resourceQuotaStrategy } from './quota-validation.js';
