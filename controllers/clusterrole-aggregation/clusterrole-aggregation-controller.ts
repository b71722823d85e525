import { filter, mergeMap, type Observable } from 'rxjs';
import { canonicalJson, isStatusError, labelSelectorFromSpec, matchesLabels, type ClusterRole, type LabelSelector, type PolicyRule } from '../../src/api/index.js';
import { builtin } from '../../src/client/index.js';
import type { ControllerContext } from '../context.js';
import { controller, type ControllerResult } from '../controller.js';

// Kubernetes' canonical controller name (`--controllers` also accepts `clusterrole-aggregation`).
const NAME = 'clusterrole-aggregation-controller';

/** A role's selectors compiled; undefined for a role that does not aggregate, or whose selectors are not valid. */
function selectorsOf(role: ClusterRole): LabelSelector[] | undefined {
  const specs = role.aggregationRule?.clusterRoleSelectors;
  if (!specs) return undefined;
  try {
    return specs.map((spec) => labelSelectorFromSpec(spec));
  } catch {
    return undefined;
  }
}

/**
 * The rules an aggregated ClusterRole should hold (Kubernetes' aggregation controller): the stored
 * rules of every other ClusterRole one of its selectors picks, in name order, each distinct rule
 * once. An aggregated role picked by another contributes the rules it holds itself, so `admin`
 * gets `edit`'s (and, through it, `view`'s) once this loop has filled `edit`.
 */
export function aggregatedRules(role: ClusterRole, all: readonly ClusterRole[]): PolicyRule[] {
  const selectors = selectorsOf(role) ?? [];
  const rules: PolicyRule[] = [];
  const seen = new Set<string>();
  const picked = all
    .filter((other) => other.metadata.name !== role.metadata.name && selectors.some((s) => matchesLabels(s, other.metadata.labels)))
    .sort((a, b) => (a.metadata.name! < b.metadata.name! ? -1 : a.metadata.name! > b.metadata.name! ? 1 : 0));
  for (const other of picked) {
    for (const rule of other.rules ?? []) {
      // Field order is the codec's (protobuf's differs from JSON's): rules are compared as values.
      const key = canonicalJson(rule);
      if (seen.has(key)) continue;
      seen.add(key);
      rules.push(rule);
    }
  }
  return rules;
}

/**
 * Fills the `rules` of every ClusterRole that has an `aggregationRule` from the ClusterRoles its
 * selectors pick (the built-in `admin`, `edit` and `view` pick the roles labelled
 * `rbac.authorization.k8s.io/aggregate-to-<name>: "true"`). Any ClusterRole's change (a label, a
 * rule, a new or deleted role) looks at every aggregated role again; a role already holding its
 * rules is not written.
 */
export function clusterRoleAggregationController(ctx: ControllerContext): Observable<ControllerResult<unknown>> {
  const roles = ctx.informers.informer(builtin.clusterRoles);
  const aggregated = () => roles.store.list().filter((role) => role.aggregationRule !== undefined);
  return controller<unknown>({
    ...ctx.controllerDefaults(NAME),
    name: NAME,
    for: { events$: roles.events$.pipe(filter((event) => event.type !== 'deleted' && event.object.aggregationRule !== undefined)), synced$: roles.synced$ },
    // Whatever changed may be picked by (or have left) any aggregated role's selectors.
    watches: [{ events$: roles.events$.pipe(mergeMap(() => aggregated().map((role) => role.metadata.name!))), synced$: roles.synced$ }],
    stop$: ctx.stop$,
    reconcile: async (name) => {
      const role = roles.store.get(name);
      if (!role || !role.aggregationRule || role.metadata.deletionTimestamp) return;
      const rules = aggregatedRules(role, roles.store.list());
      if (canonicalJson(rules) === canonicalJson(role.rules ?? [])) return;
      try {
        // At the cached resourceVersion: a role changed meanwhile (409) is looked at on its own event.
        await ctx.client.update(builtin.clusterRoles, { ...role, rules });
      } catch (error) {
        if (isStatusError(error) && (error.code === 404 || error.code === 409)) return;
        throw error;
      }
    },
  });
}
