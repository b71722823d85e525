import {
  budgetPodReady,
  countHealthyPods,
  disruptionsAllowed,
  labelSelectorFromSpec,
  matchesLabels,
  scaledBudgetValue,
  standingDisruptions,
  withDisruptionAllowed,
  type BudgetCondition,
  type BudgetPod,
  rfc3339,
  type LabelSelectorSpec,
} from '../../api/index.js';
import type { ApiObject } from '../api-object.js';

/**
 * PodDisruptionBudget arithmetic, as the eviction subresource needs it: which budgets guard a
 * pod, and — while no disruption controller keeps their status — the status computed from the
 * pods at the time of the eviction (the disruption controller's rules).
 */

export type Condition = BudgetCondition;

export interface BudgetStatus {
  observedGeneration?: number;
  disruptionsAllowed: number;
  currentHealthy: number;
  desiredHealthy: number;
  expectedPods: number;
  disruptedPods?: Record<string, string>;
  conditions?: Condition[];
  [field: string]: unknown;
}

interface BudgetSpec {
  readonly minAvailable?: number | string;
  readonly maxUnavailable?: number | string;
  readonly selector?: LabelSelectorSpec | null;
  readonly unhealthyPodEvictionPolicy?: 'IfHealthyBudget' | 'AlwaysAllow';
}

export const specOf = (pdb: ApiObject): BudgetSpec => (pdb['spec'] ?? {}) as BudgetSpec;

/**
 * Whether `pdb` selects `pod`. policy/v1: a null selector selects nothing and an empty one every
 * pod of the namespace; a selector that does not parse selects nothing.
 */
export function selects(pdb: ApiObject, pod: ApiObject): boolean {
  if (pdb.metadata.namespace !== pod.metadata.namespace) return false;
  const selector = specOf(pdb).selector;
  if (selector === undefined || selector === null) return false;
  try {
    return matchesLabels(labelSelectorFromSpec(selector), pod.metadata.labels ?? {});
  } catch {
    return false;
  }
}

/** Ready: the pod's Ready condition is True (Kubernetes' IsPodReady, its notion of healthy). */
export const isReady = (pod: ApiObject): boolean => budgetPodReady(pod as BudgetPod);

/** A status no controller has computed for the budget's current spec. */
export function isStale(pdb: ApiObject): boolean {
  const observed = (pdb['status'] as { observedGeneration?: number } | undefined)?.observedGeneration;
  return observed === undefined || observed < (pdb.metadata.generation ?? 1);
}

/**
 * The budget's status from `pods` (its namespace's pods) at `now`, as the disruption controller
 * computes it. Expected pods are the selected pods, terminating ones included: they stand for the
 * replicas their controller keeps, and a pod on its way out must not make room for another
 * eviction. Healthy pods are Ready, not terminating, and not recently evicted. An unreadable
 * minAvailable/maxUnavailable allows nothing.
 */
export function computeStatus(pdb: ApiObject, pods: readonly ApiObject[], now: Date): BudgetStatus {
  const spec = specOf(pdb);
  const selected = pods.filter((pod) => selects(pdb, pod)) as unknown as BudgetPod[];
  const previous = ((pdb['status'] as { disruptedPods?: Record<string, string> } | undefined)?.disruptedPods ?? {}) as Record<string, string>;
  const { disruptedPods } = standingDisruptions(previous, selected, now.getTime());
  const expectedPods = selected.length;
  const currentHealthy = countHealthyPods(selected, disruptedPods);
  let desiredHealthy: number;
  if (spec.maxUnavailable !== undefined) {
    const max = scaledBudgetValue(spec.maxUnavailable, expectedPods);
    desiredHealthy = max === undefined ? Number.POSITIVE_INFINITY : Math.max(0, expectedPods - max);
  } else if (spec.minAvailable !== undefined) {
    desiredHealthy = scaledBudgetValue(spec.minAvailable, expectedPods) ?? Number.POSITIVE_INFINITY;
  } else {
    desiredHealthy = 0;
  }
  const allowed = Number.isFinite(desiredHealthy) ? disruptionsAllowed(currentHealthy, desiredHealthy, expectedPods) : 0;
  const status: BudgetStatus = {
    ...((pdb['status'] as object | undefined) ?? {}),
    observedGeneration: pdb.metadata.generation ?? 1,
    disruptionsAllowed: allowed,
    currentHealthy,
    desiredHealthy: Number.isFinite(desiredHealthy) ? desiredHealthy : expectedPods,
    expectedPods,
  };
  if (Object.keys(disruptedPods).length > 0) status.disruptedPods = disruptedPods;
  else delete status.disruptedPods;
  return withAllowedCondition(status, pdb.metadata.generation ?? 1, now);
}

/** The DisruptionAllowed condition that goes with `disruptionsAllowed` (Kubernetes' reasons). */
export function withAllowedCondition(status: BudgetStatus, generation: number, now: Date): BudgetStatus {
  return { ...status, conditions: withDisruptionAllowed(status.conditions, status.disruptionsAllowed, generation, now.getTime()) };
}
