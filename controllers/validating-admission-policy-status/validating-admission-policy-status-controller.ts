import { from, mergeMap, type Observable } from 'rxjs';
import { ADMISSIONREGISTRATION_GROUP, typeCheckPolicy, type ExpressionWarning, type ValidatingAdmissionPolicy } from '../../src/api/index.js';
import { customResourceDefinitions, resource } from '../../src/client/index.js';
import type { ControllerContext } from '../context.js';
import { controller, type ControllerResult } from '../controller.js';
import { matchedKinds, paramsSchema } from './matched-kinds.js';

// Kubernetes' canonical controller name (`--controllers` also accepts its aliases).
const NAME = 'validatingadmissionpolicy-status-controller';

export const validatingAdmissionPolicies = resource<ValidatingAdmissionPolicy>({
  group: ADMISSIONREGISTRATION_GROUP,
  version: 'v1',
  resource: 'validatingadmissionpolicies',
  namespaced: false,
  kind: 'ValidatingAdmissionPolicy',
});

const sameWarnings = (a: readonly ExpressionWarning[], b: readonly ExpressionWarning[]) =>
  a.length === b.length && a.every((w, i) => w.fieldRef === b[i]!.fieldRef && w.warning === b[i]!.warning);

/**
 * validatingadmissionpolicy-status: type-checks each ValidatingAdmissionPolicy's expressions
 * against the kinds its matchConstraints name (and `params` against its paramKind) and writes
 * `status.typeChecking.expressionWarnings` and `status.observedGeneration`. A warning changes
 * nothing in admission: the policy is enforced as written, and an expression that fails at run
 * time meets the policy's failurePolicy. Triggers: policies, and CRDs (a custom kind's schema
 * changes what its policies are checked against).
 */
export function validatingAdmissionPolicyStatusController(ctx: ControllerContext, options: { readonly concurrency?: number } = {}): Observable<ControllerResult<unknown>> {
  const policies = ctx.informers.informer(validatingAdmissionPolicies);
  const crds = ctx.informers.informer(customResourceDefinitions);
  return controller<unknown>({
    ...ctx.controllerDefaults(NAME),
    name: NAME,
    concurrency: options.concurrency ?? 5,
    for: policies,
    watches: [
      {
        // A CRD's change may change any policy's result: every policy is looked at again (few of both).
        events$: crds.events$.pipe(mergeMap(() => from(policies.store.list().map((p) => p.metadata.name ?? '')))),
        synced$: crds.synced$,
      },
    ],
    reconcile: async (name) => {
      const policy = policies.store.get(name);
      if (!policy || policy.metadata.deletionTimestamp) return;
      const known = crds.store.list();
      const warnings = typeCheckPolicy(policy.spec, matchedKinds(policy, known), paramsSchema(policy, known));
      const generation = policy.metadata.generation ?? 1;
      const status = policy.status ?? {};
      if (status.observedGeneration === generation && sameWarnings(status.typeChecking?.expressionWarnings ?? [], warnings)) return;
      await ctx.client.updateStatus(validatingAdmissionPolicies, {
        ...policy,
        status: { ...status, observedGeneration: generation, typeChecking: { ...(warnings.length > 0 ? { expressionWarnings: warnings.map((w) => ({ fieldRef: w.fieldRef, warning: w.warning })) } : {}) } },
      });
    },
  });
}
