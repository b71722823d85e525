import type { PolicyRule } from '../../api/index.js';
import { decisionKey, type Attributes } from './attributes.js';
import { NO_OPINION, type Authorizer, type Decision } from './decision.js';
import type { BoundSubject, RbacState } from './rbac-state.js';
import { ruleAllows } from './rule-matching.js';

/** Decisions remembered before the memo starts over (it also starts over on any RBAC change). */
const MEMO_LIMIT = 10_000;

/**
 * RBAC: a request is allowed when a ClusterRoleBinding, or a RoleBinding in the request's
 * namespace, binds the user (by name, by one of its groups, or as a ServiceAccount) to a role
 * with a rule that grants it. It never denies: no grant is "no opinion". The answer names the
 * binding that allowed it, in Kubernetes' words (`RBAC: allowed by ClusterRoleBinding "x" of
 * ClusterRole "y" to User "z"`); a refusal names the missing roles the user's bindings point at.
 *
 * Decisions are remembered per (user, groups, attributes) until the RBAC objects change, so a
 * client repeating one request pays one map lookup.
 */
export class RbacAuthorizer implements Authorizer {
  readonly #state: RbacState;
  #memo = new Map<string, Decision>();

  constructor(state: RbacState) {
    this.#state = state;
    state.onChange(() => (this.#memo = new Map()));
  }

  authorize(a: Attributes): Decision {
    const key = decisionKey(a);
    let decision = this.#memo.get(key);
    if (decision) return decision;
    decision = this.#evaluate(a);
    if (this.#memo.size >= MEMO_LIMIT) this.#memo = new Map();
    this.#memo.set(key, decision);
    return decision;
  }

  #evaluate(a: Attributes): Decision {
    const state = this.#state;
    const candidates: BoundSubject[] = [...state.bindingsOfUser(a.user.name)];
    for (const group of a.user.groups) candidates.push(...state.bindingsOfGroup(group));
    const namespace = a.kind === 'resource' ? a.namespace : '';
    const errors: string[] = [];
    // Cluster bindings first, then the namespace's, as Kubernetes walks them.
    for (const pass of ['ClusterRoleBinding', 'RoleBinding'] as const) {
      for (const bound of candidates) {
        if (bound.bindingKind !== pass) continue;
        if (pass === 'RoleBinding' && (namespace === '' || bound.bindingNamespace !== namespace)) continue;
        const rules = state.rulesOf(bound.roleKind, bound.bindingNamespace, bound.roleName);
        if (!rules) {
          errors.push(missingRole(bound));
          continue;
        }
        if (anyRuleAllows(rules, a)) return { decision: 'allow', reason: `RBAC: allowed by ${describe(bound)}` };
      }
    }
    return errors.length ? { decision: 'noOpinion', reason: `RBAC: [${[...new Set(errors)].join(', ')}]` } : NO_OPINION;
  }
}

function anyRuleAllows(rules: readonly PolicyRule[], a: Attributes): boolean {
  for (const rule of rules) if (ruleAllows(rule, a)) return true;
  return false;
}

const quote = (text: string) => JSON.stringify(text);

/** Kubernetes' description of the binding that granted a request. */
function describe(b: BoundSubject): string {
  const { subject } = b;
  const who =
    subject.kind === 'ServiceAccount'
      ? `${subject.kind} ${quote(`${subject.name}/${subject.namespace || b.bindingNamespace}`)}`
      : `${subject.kind} ${quote(subject.name)}`;
  const binding = b.bindingKind === 'RoleBinding' ? `${b.bindingName}/${b.bindingNamespace}` : b.bindingName;
  return `${b.bindingKind} ${quote(binding)} of ${b.roleKind} ${quote(b.roleName)} to ${who}`;
}

function missingRole(b: BoundSubject): string {
  return b.roleKind === 'Role'
    ? `role.rbac.authorization.k8s.io ${quote(b.roleName)} not found`
    : `clusterrole.rbac.authorization.k8s.io ${quote(b.roleName)} not found`;
}
