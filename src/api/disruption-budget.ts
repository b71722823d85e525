import type { KubeObject } from './meta.js';
import { rfc3339 } from './timestamps.js';

/**
 * PodDisruptionBudget arithmetic shared by the disruption controller (which keeps a budget's
 * status) and the eviction subresource (which spends it, and computes it itself for a budget no
 * controller has looked at yet): Kubernetes' rules for healthy pods, recently evicted pods and
 * the DisruptionAllowed condition.
 */

/** How long an eviction's entry in `disruptedPods` keeps the pod out of the healthy count (Kubernetes' DeletionTimeout). */
export const DISRUPTED_POD_TIMEOUT_MS = 2 * 60 * 1000;

/** What the arithmetic reads of a pod. */
export interface BudgetPod {
  readonly metadata: Pick<KubeObject['metadata'], 'name' | 'deletionTimestamp'>;
  readonly status?: { readonly conditions?: readonly { readonly type?: string; readonly status?: string }[] } | undefined;
}

/** Ready: the pod's Ready condition is True (Kubernetes' IsPodReady, its notion of healthy). */
export const budgetPodReady = (pod: BudgetPod): boolean => (pod.status?.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');

/**
 * `n` or `"n%"` of `total`, rounded up (intstr.GetScaledValueFromIntOrPercent with roundUp, as
 * the disruption controller calls it); undefined when it is neither.
 */
export function scaledBudgetValue(value: number | string, total: number): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 0 ? value : undefined;
  const match = /^(\d+)%$/.exec(value);
  if (match) return Math.ceil((Number(match[1]) * total) / 100);
  return /^\d+$/.test(value) ? Number(value) : undefined;
}

/**
 * The entries of `disruptedPods` still standing: pods evicted less than the timeout ago that are
 * not being deleted yet (upstream's buildDisruptedPodMap), and when the first of them runs out.
 */
export function standingDisruptions(previous: Readonly<Record<string, string>>, pods: readonly BudgetPod[], nowMs: number): { disruptedPods: Record<string, string>; recheckAtMs?: number } {
  const disruptedPods: Record<string, string> = {};
  let recheckAtMs: number | undefined;
  for (const pod of pods) {
    const name = pod.metadata.name!;
    const at = Object.hasOwn(previous, name) ? previous[name] : undefined;
    if (at === undefined || pod.metadata.deletionTimestamp) continue;
    const expires = Date.parse(at) + DISRUPTED_POD_TIMEOUT_MS;
    if (!(expires > nowMs)) continue;
    disruptedPods[name] = at;
    recheckAtMs = Math.min(recheckAtMs ?? expires, expires);
  }
  return recheckAtMs === undefined ? { disruptedPods } : { disruptedPods, recheckAtMs };
}

/** Pods that count as healthy: Ready, not being deleted, not just evicted (upstream's countHealthyPods). */
export function countHealthyPods(pods: readonly BudgetPod[], disruptedPods: Readonly<Record<string, string>>): number {
  return pods.filter((pod) => !pod.metadata.deletionTimestamp && !Object.hasOwn(disruptedPods, pod.metadata.name!) && budgetPodReady(pod)).length;
}

/** `currentHealthy - desiredHealthy`, and nothing when no pod is expected (upstream's updatePdbStatus). */
export const disruptionsAllowed = (currentHealthy: number, desiredHealthy: number, expectedPods: number): number =>
  expectedPods <= 0 ? 0 : Math.max(0, currentHealthy - desiredHealthy);

export interface BudgetCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  observedGeneration?: number;
  [field: string]: unknown;
}

/**
 * The conditions with DisruptionAllowed set: True/SufficientPods when a disruption is allowed,
 * else False/InsufficientPods — or False/SyncFailed with `failure` as its message when the status
 * could not be computed. The transition time stays while the status does.
 */
export function withDisruptionAllowed(conditions: readonly BudgetCondition[] | undefined, allowed: number, generation: number, nowMs: number, failure?: string): BudgetCondition[] {
  const wanted =
    failure !== undefined
      ? { status: 'False', reason: 'SyncFailed', message: failure }
      : allowed > 0
        ? { status: 'True', reason: 'SufficientPods', message: '' }
        : { status: 'False', reason: 'InsufficientPods', message: '' };
  const before = (conditions ?? []).find((c) => c.type === 'DisruptionAllowed');
  const others = (conditions ?? []).filter((c) => c.type !== 'DisruptionAllowed');
  const lastTransitionTime = before && before.status === wanted.status && before.lastTransitionTime ? before.lastTransitionTime : rfc3339(nowMs);
  return [...others, { type: 'DisruptionAllowed', ...wanted, lastTransitionTime, observedGeneration: generation }];
}
