import type { Pod } from '../../src/api/index.js';

type PodCondition = NonNullable<NonNullable<Pod['status']>['conditions']>[number];

/** The pod's `Ready` condition, if it has one. */
export const podReadyCondition = (pod: Pod): PodCondition | undefined => pod.status?.conditions?.find((condition) => condition.type === 'Ready');

/** Whether the pod's `Ready` condition is `True` (upstream's IsPodReady). */
export const isPodReady = (pod: Pod): boolean => podReadyCondition(pod)?.status === 'True';

/** When the pod last became ready (ms), or undefined when it is not ready or the time is unknown. */
export function podReadySince(pod: Pod): number | undefined {
  const condition = podReadyCondition(pod);
  if (condition?.status !== 'True' || !condition.lastTransitionTime) return undefined;
  const at = Date.parse(condition.lastTransitionTime);
  return Number.isNaN(at) ? undefined : at;
}

/**
 * Whether the pod is available: ready for at least `minReadySeconds` at `nowMs` (upstream's
 * IsPodAvailable). A ready pod whose condition has no transition time is available only when
 * `minReadySeconds` is 0.
 */
export function isPodAvailable(pod: Pod, minReadySeconds: number, nowMs: number): boolean {
  if (!isPodReady(pod)) return false;
  if (minReadySeconds <= 0) return true;
  const since = podReadySince(pod);
  return since !== undefined && since + minReadySeconds * 1000 <= nowMs;
}

/**
 * When a ready pod that is not available yet becomes available (ms), or undefined when it is not
 * ready (a readiness change will trigger its owner) or available already.
 */
export function podAvailableAt(pod: Pod, minReadySeconds: number, nowMs: number): number | undefined {
  if (minReadySeconds <= 0) return undefined;
  const since = podReadySince(pod);
  if (since === undefined) return undefined;
  const at = since + minReadySeconds * 1000;
  return at > nowMs ? at : undefined;
}

/** Not finished (phase neither Succeeded nor Failed) and not being deleted: the pods a workload counts (upstream's IsPodActive). */
export const isPodActive = (pod: Pod): boolean =>
  pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed' && pod.metadata.deletionTimestamp === undefined;

/** Being deleted and not finished: counted as `terminatingReplicas`. */
export const isPodTerminating = (pod: Pod): boolean =>
  pod.metadata.deletionTimestamp !== undefined && pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed';
