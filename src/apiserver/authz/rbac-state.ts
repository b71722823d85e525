import type { Subscription } from 'rxjs';
import {
  labelSelectorFromSpec,
  matchesLabels,
  RBAC_GROUP,
  type ClusterRole,
  type ClusterRoleBinding,
  type LabelSelector,
  type PolicyRule,
  type ResourceRegistry,
  type Role,
  type RoleBinding,
  type Subject,
} from '../../api/index.js';
import type { ResourceCaches } from '../resource-caches.js';
import type { CacheEvent } from '../../watch-cache/index.js';
import type { ServedObject } from '../served-object.js';

/** A binding as the authorizer walks it: one entry per subject, so the index can point at it. */
export interface BoundSubject {
  readonly bindingKind: 'ClusterRoleBinding' | 'RoleBinding';
  readonly bindingName: string;
  /** `''` for a ClusterRoleBinding. */
  readonly bindingNamespace: string;
  readonly roleKind: 'ClusterRole' | 'Role';
  readonly roleName: string;
  readonly subject: Subject;
}

interface ClusterRoleEntry {
  readonly rules: readonly PolicyRule[];
  readonly labels: Readonly<Record<string, string>>;
  /** Compiled selectors of an aggregated role; undefined for a plain one. */
  readonly aggregate: readonly LabelSelector[] | undefined;
}

const NO_RULES: readonly PolicyRule[] = Object.freeze([]);
const SERVICE_ACCOUNT_PREFIX = 'system:serviceaccount:';

/** The user name a ServiceAccount subject stands for (its namespace defaults to the binding's). */
export const serviceAccountUser = (namespace: string, name: string) => `${SERVICE_ACCOUNT_PREFIX}${namespace}:${name}`;

/**
 * The four RBAC types held in memory, fed by the server's own watch caches: every role's rules
 * and every binding, indexed by subject (a user name, or a group name; a ServiceAccount subject is
 * indexed as the user `system:serviceaccount:<ns>:<name>` it authenticates as). Aggregated
 * ClusterRoles get their rules from the roles their selectors pick, computed when first asked
 * after a change. `generation` moves on every change, which is what decision caches key on.
 */
export class RbacState {
  #generation = 0;
  readonly #roles = new Map<string, readonly PolicyRule[]>(); // `${ns}/${name}`
  readonly #clusterRoles = new Map<string, ClusterRoleEntry>();
  readonly #bindings = new Map<string, readonly BoundSubject[]>(); // by store key
  #byUser: Map<string, BoundSubject[]> | undefined;
  #byGroup: Map<string, BoundSubject[]> | undefined;
  #aggregated = new Map<string, readonly PolicyRule[]>();
  readonly #subscriptions: Subscription[] = [];
  readonly #listeners = new Set<() => void>();

  /**
   * Follows the four types' caches, which must be started: the initial state arrives before this
   * returns, every later change as the cache applies it.
   */
  follow(caches: ResourceCaches, registry: ResourceRegistry): void {
    const follow = (resource: string, apply: (e: CacheEvent<ServedObject>) => void) => {
      const type = registry.lookup(RBAC_GROUP, 'v1', resource);
      if (!type) return;
      this.#subscriptions.push(caches.of(type).watch({ initialEvents: true }).subscribe((e) => (apply(e), this.#changed())));
    };
    follow('roles', (e) => this.#applyRole(e));
    follow('clusterroles', (e) => this.#applyClusterRole(e));
    follow('rolebindings', (e) => this.#applyBinding(e, 'RoleBinding'));
    follow('clusterrolebindings', (e) => this.#applyBinding(e, 'ClusterRoleBinding'));
  }

  stop(): void {
    for (const s of this.#subscriptions) s.unsubscribe();
  }

  get generation(): number {
    return this.#generation;
  }

  /** Called after every change (the decision caches clear themselves on it). */
  onChange(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The bindings naming this user (directly, or as the ServiceAccount it is). */
  bindingsOfUser(name: string): readonly BoundSubject[] {
    return this.#index().byUser.get(name) ?? NO_BINDINGS;
  }

  bindingsOfGroup(name: string): readonly BoundSubject[] {
    return this.#index().byGroup.get(name) ?? NO_BINDINGS;
  }

  /** A role's rules, or undefined when it does not exist (a binding may name a missing role). */
  rulesOf(kind: 'ClusterRole' | 'Role', namespace: string, name: string): readonly PolicyRule[] | undefined {
    if (kind === 'Role') return this.#roles.get(`${namespace}/${name}`);
    return this.clusterRoleRules(name);
  }

  clusterRoleRules(name: string): readonly PolicyRule[] | undefined {
    const entry = this.#clusterRoles.get(name);
    if (!entry) return undefined;
    if (!entry.aggregate) return entry.rules;
    let rules = this.#aggregated.get(name);
    if (!rules) {
      rules = this.#aggregate(name, new Set());
      this.#aggregated.set(name, rules);
    }
    return rules;
  }

  /**
   * An aggregated role's rules: those of every ClusterRole its selectors pick (aggregated ones
   * included, each once), as Kubernetes' aggregation controller writes them into the role.
   */
  #aggregate(name: string, seen: Set<string>): readonly PolicyRule[] {
    seen.add(name);
    const entry = this.#clusterRoles.get(name)!;
    if (!entry.aggregate) return entry.rules;
    const rules: PolicyRule[] = [];
    const keys = new Set<string>();
    for (const [other, candidate] of this.#clusterRoles) {
      if (seen.has(other) || !entry.aggregate.some((s) => matchesLabels(s, candidate.labels))) continue;
      for (const rule of this.#aggregate(other, seen)) {
        const key = JSON.stringify(rule);
        if (keys.has(key)) continue;
        keys.add(key);
        rules.push(rule);
      }
    }
    return Object.freeze(rules);
  }

  #changed(): void {
    this.#generation++;
    this.#aggregated = new Map();
    for (const listener of this.#listeners) listener();
  }

  #applyRole(e: CacheEvent<ServedObject>): void {
    const key = `${e.object.object.namespace}/${e.object.object.name}`;
    if (e.type === 'DELETED') this.#roles.delete(key);
    else this.#roles.set(key, Object.freeze((parse<Role>(e).rules ?? []) as PolicyRule[]));
  }

  #applyClusterRole(e: CacheEvent<ServedObject>): void {
    const name = e.object.object.name;
    if (e.type === 'DELETED') {
      this.#clusterRoles.delete(name);
      return;
    }
    const role = parse<ClusterRole>(e);
    const selectors = role.aggregationRule?.clusterRoleSelectors;
    this.#clusterRoles.set(name, {
      rules: Object.freeze((role.rules ?? []) as PolicyRule[]),
      labels: role.metadata.labels ?? {},
      aggregate: selectors ? selectors.map((s) => labelSelectorFromSpec(s)) : undefined,
    });
  }

  #applyBinding(e: CacheEvent<ServedObject>, bindingKind: BoundSubject['bindingKind']): void {
    this.#byUser = this.#byGroup = undefined;
    if (e.type === 'DELETED') {
      this.#bindings.delete(e.object.key);
      return;
    }
    const binding = parse<RoleBinding | ClusterRoleBinding>(e);
    const bindingNamespace = bindingKind === 'RoleBinding' ? (binding.metadata.namespace ?? '') : '';
    const entries = (binding.subjects ?? []).map(
      (subject): BoundSubject => ({
        bindingKind,
        bindingName: binding.metadata.name ?? '',
        bindingNamespace,
        roleKind: binding.roleRef.kind === 'Role' ? 'Role' : 'ClusterRole',
        roleName: binding.roleRef.name,
        subject,
      }),
    );
    this.#bindings.set(e.object.key, entries);
  }

  #index(): { byUser: Map<string, BoundSubject[]>; byGroup: Map<string, BoundSubject[]> } {
    if (this.#byUser && this.#byGroup) return { byUser: this.#byUser, byGroup: this.#byGroup };
    const byUser = new Map<string, BoundSubject[]>();
    const byGroup = new Map<string, BoundSubject[]>();
    const add = (map: Map<string, BoundSubject[]>, key: string, entry: BoundSubject) => {
      const list = map.get(key);
      if (list) list.push(entry);
      else map.set(key, [entry]);
    };
    for (const entries of this.#bindings.values()) {
      for (const entry of entries) {
        const { subject } = entry;
        if (subject.kind === 'User') add(byUser, subject.name, entry);
        else if (subject.kind === 'Group') add(byGroup, subject.name, entry);
        else {
          // A ServiceAccount subject without a namespace means the binding's; a cluster binding has none to lend.
          const namespace = subject.namespace || entry.bindingNamespace;
          if (namespace) add(byUser, serviceAccountUser(namespace, subject.name), entry);
        }
      }
    }
    this.#byUser = byUser;
    this.#byGroup = byGroup;
    return { byUser, byGroup };
  }
}

const NO_BINDINGS: readonly BoundSubject[] = Object.freeze([]);

/** The cached object's JSON, parsed: RBAC objects are few and change rarely. */
function parse<T>(e: CacheEvent<ServedObject>): T {
  return JSON.parse(e.object.object.json.toString('utf8')) as T;
}
