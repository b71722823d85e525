import { labelSelectorFromSpec, matchesLabels, rfc3339, type LabelSelectorSpec } from '../../api/index.js';
import type { ApiObject } from '../objects.js';

/**
 * PodDisruptionBudget arithmetic, as the eviction subresource needs it: which budgets guard a
 * pod, and — while no disruption controller keeps their status — the status computed from the
 * pods at the time of the eviction (the disruption controller's rules).
 */

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  observedGeneration?: number;
}

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

/** How long an eviction's entry in `disruptedPods` keeps the pod out of the healthy count (Kubernetes' DeletionTimeout). */
export const DISRUPTED_POD_TIMEOUT_MS = 2 * 60 * 1000;

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
export function isReady(pod: ApiObject): boolean {
  const conditions = (pod['status'] as { conditions?: { type?: string; status?: string }[] } | undefined)?.conditions ?? [];
  return conditions.some((c) => c.type === 'Ready' && c.status === 'True');
}

/** A status no controller has computed for the budget's current spec. */
export function isStale(pdb: ApiObject): boolean {
  const observed = (pdb['status'] as { observedGeneration?: number } | undefined)?.observedGeneration;
  return observed === undefined || observed < (pdb.metadata.generation ?? 1);
}

/** `n` or `"n%"` of `total`, rounded up; undefined when it is neither. */
function scaled(value: number | string, total: number): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 0 ? value : undefined;
  const match = /^(\d+)%$/.exec(value);
  if (match) return Math.ceil((Number(match[1]) * total) / 100);
  return /^\d+$/.test(value) ? Number(value) : undefined;
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
  const selected = pods.filter((pod) => selects(pdb, pod));
  const previous = ((pdb['status'] as { disruptedPods?: Record<string, string> } | undefined)?.disruptedPods ?? {}) as Record<string, string>;
  const disruptedPods: Record<string, string> = {};
  for (const pod of selected) {
    const name = pod.metadata.name!;
    const at = previous[name];
    if (at !== undefined && !pod.metadata.deletionTimestamp && Date.parse(at) + DISRUPTED_POD_TIMEOUT_MS > now.getTime()) disruptedPods[name] = at;
  }
  const expectedPods = selected.length;
  const currentHealthy = selected.filter((pod) => !pod.metadata.deletionTimestamp && isReady(pod) && disruptedPods[pod.metadata.name!] === undefined).length;
  let desiredHealthy: number;
  if (spec.maxUnavailable !== undefined) {
    const max = scaled(spec.maxUnavailable, expectedPods);
    desiredHealthy = max === undefined ? Number.POSITIVE_INFINITY : Math.max(0, expectedPods - max);
  } else if (spec.minAvailable !== undefined) {
    desiredHealthy = scaled(spec.minAvailable, expectedPods) ?? Number.POSITIVE_INFINITY;
  } else {
    desiredHealthy = 0;
  }
  const allowed = Number.isFinite(desiredHealthy) ? Math.max(0, currentHealthy - desiredHealthy) : 0;
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
  const allowed = status.disruptionsAllowed > 0;
  const wanted = allowed ? { status: 'True', reason: 'SufficientPods', message: '' } : { status: 'False', reason: 'InsufficientPods', message: '' };
  const others = (status.conditions ?? []).filter((c) => c.type !== 'DisruptionAllowed');
  const before = (status.conditions ?? []).find((c) => c.type === 'DisruptionAllowed');
  const lastTransitionTime = before && before.status === wanted.status && before.lastTransitionTime ? before.lastTransitionTime : rfc3339(now);
  return { ...status, conditions: [...others, { type: 'DisruptionAllowed', ...wanted, lastTransitionTime, observedGeneration: generation }] };
}
