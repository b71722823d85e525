import type { NonResourceRule, PolicyRule, ResourceRule } from '../../api/index.js';
import type { UserInfo } from '../authn/user.js';
import { PRIVILEGED_GROUP } from './modes.js';
import type { RbacState } from './rbac-state.js';

export interface RulesReview {
  readonly resourceRules: ResourceRule[];
  readonly nonResourceRules: NonResourceRule[];
  readonly incomplete: boolean;
  readonly evaluationError?: string;
}

/**
 * What a user may do in a namespace, as RBAC grants it (SelfSubjectRulesReview): the rules of the
 * roles its cluster bindings and the namespace's bindings give it, deduplicated. Members of
 * system:masters get the wildcard rules. Roles that are missing make the answer `incomplete`.
 */
export function rulesReview(state: RbacState | undefined, user: UserInfo, namespace: string): RulesReview {
  if (user.groups.includes(PRIVILEGED_GROUP) || !state) {
    // Without RBAC (AlwaysAllow) everything is allowed; say so the way a wildcard role would.
    return { resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }], incomplete: false };
  }
  const bound = [...state.bindingsOfUser(user.name), ...user.groups.flatMap((g) => state.bindingsOfGroup(g))];
  const seen = new Set<string>();
  const resourceRules: ResourceRule[] = [];
  const nonResourceRules: NonResourceRule[] = [];
  const missing: string[] = [];
  for (const b of bound) {
    if (b.bindingKind === 'RoleBinding' && b.bindingNamespace !== namespace) continue;
    const rules = state.rulesOf(b.roleKind, b.bindingNamespace, b.roleName);
    if (!rules) {
      missing.push(`${b.roleKind.toLowerCase()} ${JSON.stringify(b.roleName)} not found`);
      continue;
    }
    for (const rule of rules) {
      const key = JSON.stringify(rule);
      if (seen.has(key)) continue;
      seen.add(key);
      if (rule.nonResourceURLs?.length) nonResourceRules.push({ verbs: rule.verbs, nonResourceURLs: rule.nonResourceURLs });
      else resourceRules.push(resourceRule(rule));
    }
  }
  return {
    resourceRules,
    nonResourceRules,
    incomplete: missing.length > 0,
    ...(missing.length ? { evaluationError: missing.join(', ') } : {}),
  };
}

function resourceRule(rule: PolicyRule): ResourceRule {
  return {
    verbs: rule.verbs,
    ...(rule.apiGroups ? { apiGroups: rule.apiGroups } : {}),
    ...(rule.resources ? { resources: rule.resources } : {}),
    ...(rule.resourceNames ? { resourceNames: rule.resourceNames } : {}),
  };
}
