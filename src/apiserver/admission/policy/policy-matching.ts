import type { MatchResources, NamedRuleWithOperations } from '../../../api/index.js';
import type { ApiObject } from '../../api-object.js';
import type { AdmissionAttributes } from '../attributes.js';
import { namespaceSelected, objectSelected, ruleMatches } from '../webhook/matching.js';

/** A named rule: the webhook rule, narrowed to `resourceNames` when it lists any. */
function namedRuleMatches(rule: NamedRuleWithOperations, attrs: AdmissionAttributes): boolean {
  if (!ruleMatches(rule, attrs)) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(attrs.name);
}

/**
 * Whether a policy's `matchConstraints` or a binding's `matchResources` select a request: the
 * namespace and object selectors, one resource rule, no exclude rule. `matchPolicy` Equivalent
 * and Exact select alike: svc serves each resource in one version under one group (its upstream
 * name is an alias the rules already compare), so there is no other version to convert from.
 * `namespace` is the request's Namespace object (undefined for cluster-scoped requests).
 */
export function resourcesMatch(match: MatchResources, attrs: AdmissionAttributes, namespace: ApiObject | undefined, requireRules: boolean): boolean {
  const rules = match.resourceRules ?? [];
  if (rules.length > 0 ? !rules.some((rule) => namedRuleMatches(rule, attrs)) : requireRules) return false;
  if ((match.excludeResourceRules ?? []).some((rule) => namedRuleMatches(rule, attrs))) return false;
  if (!objectSelected(match.objectSelector, attrs)) return false;
  return namespaceSelected(match.namespaceSelector, attrs, namespace);
}
