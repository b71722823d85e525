import type { Deployment } from '../../src/api/index.js';

/**
 * An int-or-percent (`3`, `'25%'`) as a number of pods out of `total`, as upstream's
 * GetScaledValueFromIntOrPercent: a percentage is rounded up (surge) or down (unavailable).
 * Throws RangeError on a string that is no percentage (the API server refuses those).
 */
export function scaledValue(value: number | string | undefined, total: number, roundUp: boolean): number {
  if (value === undefined) return 0;
  if (typeof value === 'number') return value;
  const match = /^(\d+)%$/.exec(value);
  if (!match) throw new RangeError(`invalid value for IntOrString: ${JSON.stringify(value)}`);
  const share = (Number(match[1]) * total) / 100;
  return roundUp ? Math.ceil(share) : Math.floor(share);
}

export const isRollingUpdate = (d: Deployment): boolean => (d.spec.strategy?.type ?? 'RollingUpdate') === 'RollingUpdate';
export const desiredReplicas = (d: Deployment): number => d.spec.replicas ?? 1;

/**
 * maxSurge and maxUnavailable as pod counts (upstream's ResolveFenceposts): surge rounded up,
 * unavailable down, and when both come to 0 one pod may be unavailable (rounding can make a
 * non-zero percentage 0; validation refuses both zero as written).
 */
export function resolveFenceposts(d: Deployment): { readonly surge: number; readonly unavailable: number } {
  const rolling = d.spec.strategy?.rollingUpdate;
  const desired = desiredReplicas(d);
  const surge = scaledValue(rolling?.maxSurge ?? 0, desired, true);
  const unavailable = scaledValue(rolling?.maxUnavailable ?? 0, desired, false);
  return surge === 0 && unavailable === 0 ? { surge, unavailable: 1 } : { surge, unavailable };
}

/** Pods the rollout may run above `replicas` (0 for Recreate). */
export const maxSurge = (d: Deployment): number => (isRollingUpdate(d) ? resolveFenceposts(d).surge : 0);

/** Pods of `replicas` that may be unavailable during the rollout (0 for Recreate or no replicas), at most `replicas`. */
export function maxUnavailable(d: Deployment): number {
  const desired = desiredReplicas(d);
  if (!isRollingUpdate(d) || desired === 0) return 0;
  return Math.min(resolveFenceposts(d).unavailable, desired);
}
