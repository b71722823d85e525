import { RBAC_GROUP, type ClusterRole, type ClusterRoleBinding, type PolicyRule, type ResourceRegistry, type Subject } from '../../api/index.js';
import { isStorageError, type Store } from '../../storage/index.js';
import { decodeStored, encodeForStorage } from '../storage-codec.js';
import { objectKey } from '../object-keys.js';
import { prepareForCreate } from '../writes/prepare.js';
import { type ApiObject } from '../api-object.js';
import { AUTOUPDATE_ANNOTATION, BOOTSTRAP_CLUSTER_ROLE_BINDINGS, BOOTSTRAP_CLUSTER_ROLES } from './bootstrap-policy.js';

/** What one start did to one default object. */
export type ReconcileResult = 'created' | 'updated' | 'unchanged' | 'skipped';

/** A lost race with another API server starting on the same etcd: read again and redo. */
const ATTEMPTS = 5;

/**
 * Creates the default ClusterRoles and ClusterRoleBindings, and brings existing ones up to date
 * on every start, as kube-apiserver's RBAC bootstrap does: missing rules, aggregation selectors,
 * labels, annotations and subjects are added, and what users added is kept. An object whose
 * `rbac.authorization.kubernetes.io/autoupdate` annotation is "false" is left as it is. A binding
 * whose roleRef was changed gets its default roleRef back (roleRef cannot be edited in place in
 * Kubernetes, where the binding is recreated). Returns what happened to each, by `<kind>/<name>`.
 */
export async function reconcileBootstrapPolicy(store: Store, registry: ResourceRegistry): Promise<Map<string, ReconcileResult>> {
  const results = new Map<string, ReconcileResult>();
  const roles = registry.lookup(RBAC_GROUP, 'v1', 'clusterroles');
  const bindings = registry.lookup(RBAC_GROUP, 'v1', 'clusterrolebindings');
  if (!roles || !bindings) return results;
  for (const role of BOOTSTRAP_CLUSTER_ROLES) {
    const key = objectKey(store, roles, undefined, role.metadata.name!);
    results.set(`ClusterRole/${role.metadata.name}`, await reconcile(store, key, role as ApiObject, reconcileRole));
  }
  for (const binding of BOOTSTRAP_CLUSTER_ROLE_BINDINGS) {
    const key = objectKey(store, bindings, undefined, binding.metadata.name!);
    results.set(`ClusterRoleBinding/${binding.metadata.name}`, await reconcile(store, key, binding as ApiObject, reconcileBinding));
  }
  return results;
}

type Merge = (existing: ApiObject, wanted: ApiObject) => ApiObject;

async function reconcile(store: Store, key: string, wanted: ApiObject, merge: Merge): Promise<ReconcileResult> {
  for (let attempt = 1; ; attempt++) {
    const kv = await store.get(key);
    try {
      if (!kv) {
        await store.create(key, encodeForStorage(prepareForCreate(wanted)));
        return 'created';
      }
      const existing = decodeStored(kv);
      if (existing.metadata.annotations?.[AUTOUPDATE_ANNOTATION] === 'false') return 'skipped';
      const next = withMetadata(merge(existing, wanted), wanted);
      const { resourceVersion: _a, ...before } = existing.metadata;
      const { resourceVersion: _b, ...after } = next.metadata;
      if (JSON.stringify({ ...existing, metadata: before }) === JSON.stringify({ ...next, metadata: after })) return 'unchanged';
      await store.update(key, encodeForStorage(next), kv.modRevision);
      return 'updated';
    } catch (error) {
      const raced = isStorageError(error, 'AlreadyExists') || isStorageError(error, 'Conflict') || isStorageError(error, 'NotFound');
      if (!raced || attempt >= ATTEMPTS) throw error;
    }
  }
}

/** The default labels and annotations are added; others the user set stay. */
function withMetadata(object: ApiObject, wanted: ApiObject): ApiObject {
  return {
    ...object,
    metadata: {
      ...object.metadata,
      labels: { ...object.metadata.labels, ...wanted.metadata.labels },
      annotations: { ...object.metadata.annotations, ...wanted.metadata.annotations },
    },
  };
}

const reconcileRole: Merge = (existing, wanted) => {
  const have = existing as ClusterRole;
  const want = wanted as ClusterRole;
  const rules = [...(have.rules ?? [])] as PolicyRule[];
  for (const rule of want.rules ?? []) if (!rules.some((r) => covers(r, rule))) rules.push(rule);
  const next: ApiObject = { ...existing, rules };
  if (want.aggregationRule) {
    const selectors = [...(have.aggregationRule?.clusterRoleSelectors ?? [])];
    for (const s of want.aggregationRule.clusterRoleSelectors ?? []) {
      if (!selectors.some((x) => JSON.stringify(x) === JSON.stringify(s))) selectors.push(s);
    }
    next['aggregationRule'] = { ...have.aggregationRule, clusterRoleSelectors: selectors };
  }
  return next;
};

const reconcileBinding: Merge = (existing, wanted) => {
  const have = existing as ClusterRoleBinding;
  const want = wanted as ClusterRoleBinding;
  const subjects = [...(have.subjects ?? [])] as Subject[];
  for (const s of want.subjects ?? []) if (!subjects.some((x) => x.kind === s.kind && x.name === s.name && (x.namespace ?? '') === (s.namespace ?? ''))) subjects.push(s);
  return { ...existing, roleRef: want.roleRef, subjects };
};

/** Whether rule `have` grants at least what `want` does (same or wider lists, field by field). */
function covers(have: PolicyRule, want: PolicyRule): boolean {
  const superset = (a: readonly string[] | undefined, b: readonly string[] | undefined) =>
    (b ?? []).every((x) => (a ?? []).includes(x) || (a ?? []).includes('*'));
  const sameNames = (have.resourceNames ?? []).length === 0 || superset(have.resourceNames, want.resourceNames);
  return (
    superset(have.verbs, want.verbs) &&
    superset(have.apiGroups, want.apiGroups) &&
    superset(have.resources, want.resources) &&
    superset(have.nonResourceURLs, want.nonResourceURLs) &&
    sameNames &&
    ((want.resourceNames ?? []).length > 0 || (have.resourceNames ?? []).length === 0)
  );
}
