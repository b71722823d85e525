import type { KubeObject } from '../meta.js';
import { milliQuantity } from '../../browser-safe/index.js';
import type { WriteStrategy } from '../resource-type.js';
import type { FieldCause } from '../status-error.js';
import { fieldInvalid, fieldNotSupported, fieldRequired } from '../validation/causes.js';
import { validateQualifiedName } from '../validation/labels.js';
import { CONFLICTING_SCOPES, isQuotaScope, QUOTA_SCOPES, scopeLimits, type QuotaScope, type ScopeRequirement } from './scopes.js';
import { OBJECT_COUNT_NAMES } from './usage.js';

/**
 * The checks of a ResourceQuota a schema cannot express (kube-apiserver's ValidateResourceQuota):
 * every limited resource a standard quota name or a qualified one, every amount at least 0 and
 * whole where the resource counts things, scopes svc knows, never two that exclude each other,
 * never one that cannot limit a resource the quota names; a scope selector's operators and values.
 * Each problem is a 422 cause naming its field; nothing is stored.
 */

const STANDARD_NAMES = new Set([
  ...OBJECT_COUNT_NAMES,
  'services.nodeports',
  'services.loadbalancers',
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.storage',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
]);
const INTEGER_NAMES = new Set([...OBJECT_COUNT_NAMES, 'services.nodeports', 'services.loadbalancers']);

const isStandardName = (name: string) => STANDARD_NAMES.has(name) || /^(requests\.)?hugepages-/.test(name);
/** A name with a domain outside kubernetes.io (`count/pods`, `example.com/gpu`): counted in whole units. */
const isExtendedName = (name: string) => name.includes('/') && !name.startsWith('requests.') && !/(^|\.)kubernetes\.io\//.test(name);

function validateHard(hard: Record<string, unknown>, path: string): FieldCause[] {
  const causes: FieldCause[] = [];
  for (const [name, value] of Object.entries(hard)) {
    const at = `${path}[${name}]`;
    if (name.includes('/')) for (const problem of validateQualifiedName(name)) causes.push(fieldInvalid(at, name, problem));
    else if (!isStandardName(name)) causes.push(fieldInvalid(at, name, 'must be a standard resource for quota'));
    const milli = milliQuantity(value);
    if (milli === undefined) continue; // the schema has refused it already
    if (milli < 0) causes.push(fieldInvalid(at, value, 'must be greater than or equal to 0'));
    else if ((INTEGER_NAMES.has(name) || isExtendedName(name)) && milli % 1000 !== 0) causes.push(fieldInvalid(at, value, 'must be an integer'));
  }
  return causes;
}

/** Scopes that exclude each other, or cannot limit one of the standard resources named. */
function scopeConflicts(scopes: readonly QuotaScope[], hard: Record<string, unknown>, path: string, shown: unknown): FieldCause[] {
  const causes: FieldCause[] = [];
  for (const scope of scopes) {
    if (Object.keys(hard).some((name) => isStandardName(name) && !scopeLimits(scope, name))) causes.push(fieldInvalid(path, shown, 'unsupported scope applied to resource'));
  }
  for (const [a, b] of CONFLICTING_SCOPES) if (scopes.includes(a) && scopes.includes(b)) causes.push(fieldInvalid(path, shown, 'conflicting scopes'));
  return causes;
}

function validateScopeSelector(expressions: readonly ScopeRequirement[], hard: Record<string, unknown>, path: string): FieldCause[] {
  const causes: FieldCause[] = [];
  const known: QuotaScope[] = [];
  expressions.forEach((e, i) => {
    const at = `${path}.matchExpressions[${i}]`;
    const scope = e.scopeName ?? '';
    if (!isQuotaScope(scope)) {
      causes.push(fieldInvalid(`${at}.scopeName`, scope, 'unsupported scope'));
      return;
    }
    known.push(scope);
    const operator = e.operator ?? '';
    const values = e.values ?? [];
    if (!['In', 'NotIn', 'Exists', 'DoesNotExist'].includes(operator)) {
      causes.push(fieldNotSupported(`${at}.operator`, operator, ['In', 'NotIn', 'Exists', 'DoesNotExist']));
      return;
    }
    if ((operator === 'In' || operator === 'NotIn') && values.length === 0) {
      causes.push(fieldRequired(`${at}.values`, "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"));
    }
    if ((operator === 'Exists' || operator === 'DoesNotExist') && values.length > 0) {
      causes.push(fieldInvalid(`${at}.values`, values, "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector"));
    }
    if (scope !== 'PriorityClass' && operator !== 'Exists') {
      causes.push(fieldInvalid(`${at}.operator`, operator, `must be 'Exists' when scope is any of ${QUOTA_SCOPES.filter((s) => s !== 'PriorityClass').join(', ')}`));
    }
  });
  return [...causes, ...scopeConflicts(known, hard, path, expressions)];
}

function validateResourceQuota(object: KubeObject): readonly FieldCause[] {
  const spec = (object['spec'] ?? {}) as { hard?: Record<string, unknown>; scopes?: string[]; scopeSelector?: { matchExpressions?: ScopeRequirement[] } };
  const hard = spec.hard ?? {};
  const causes = validateHard(hard, 'spec.hard');
  const scopes = spec.scopes ?? [];
  for (const scope of scopes) if (!isQuotaScope(scope)) causes.push(fieldInvalid('spec.scopes', scopes, 'unsupported scope'));
  causes.push(...scopeConflicts(scopes.filter(isQuotaScope), hard, 'spec.scopes', scopes));
  if (spec.scopeSelector) causes.push(...validateScopeSelector(spec.scopeSelector.matchExpressions ?? [], hard, 'spec.scopeSelector'));
  return [...causes, ...validateResourceQuotaStatus(object)];
}

/** A quota's status rules (upstream's ValidateResourceQuotaStatusUpdate): no negative amount. */
function validateResourceQuotaStatus(object: KubeObject): FieldCause[] {
  const causes: FieldCause[] = [];
  const status = (object['status'] ?? {}) as { hard?: Record<string, unknown>; used?: Record<string, unknown> };
  for (const field of ['hard', 'used'] as const) {
    for (const [name, value] of Object.entries(status[field] ?? {})) {
      if ((milliQuantity(value) ?? 0) < 0) causes.push(fieldInvalid(`status.${field}[${name}]`, value, 'must be greater than or equal to 0'));
    }
  }
  return causes;
}

export const resourceQuotaStrategy: WriteStrategy = { validate: validateResourceQuota, validateStatus: validateResourceQuotaStatus };

