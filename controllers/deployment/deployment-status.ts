import { rfc3339, type Deployment, type ReplicaSet } from '../../src/api/index.js';
import { findCondition, removeCondition, type WorkloadCondition } from '../workload/index.js';
import { desiredReplicas, maxUnavailable } from './fenceposts.js';

export type DeploymentStatus = NonNullable<Deployment['status']>;
type Condition = WorkloadCondition;

// The condition reasons kubectl and users read (upstream's deployment util).
export const REASON = {
  newRSAvailable: 'NewReplicaSetAvailable',
  replicaSetUpdated: 'ReplicaSetUpdated',
  timedOut: 'ProgressDeadlineExceeded',
  paused: 'DeploymentPaused',
  resumed: 'DeploymentResumed',
  foundNewRS: 'FoundNewReplicaSet',
  newRSCreated: 'NewReplicaSetCreated',
  failedRSCreate: 'ReplicaSetCreateError',
  minimumAvailable: 'MinimumReplicasAvailable',
  minimumUnavailable: 'MinimumReplicasUnavailable',
} as const;

/** A condition as upstream's NewDeploymentCondition: both times now. */
export const newCondition = (type: string, status: string, reason: string, message: string, nowMs: number): Condition => ({
  type,
  status,
  lastUpdateTime: rfc3339(nowMs),
  lastTransitionTime: rfc3339(nowMs),
  reason,
  message,
});

/**
 * Upstream's SetDeploymentCondition: a condition of the same status and reason is left as it is
 * (message and times too); one of the same status keeps its transition time.
 */
export function setDeploymentCondition(status: DeploymentStatus, condition: Condition): DeploymentStatus {
  const current = findCondition(status.conditions as Condition[] | undefined, condition.type);
  if (current && current.status === condition.status && current.reason === condition.reason) return status;
  const next = current && current.status === condition.status ? { ...condition, lastTransitionTime: current.lastTransitionTime } : condition;
  return { ...status, conditions: [...removeCondition(status.conditions as Condition[] | undefined, condition.type), next] as DeploymentStatus['conditions'] };
}

export const removeDeploymentCondition = (status: DeploymentStatus, type: string): DeploymentStatus => {
  const conditions = removeCondition(status.conditions as Condition[] | undefined, type);
  return { ...status, conditions: conditions.length > 0 ? (conditions as DeploymentStatus['conditions']) : undefined };
};

export const deploymentCondition = (status: DeploymentStatus | undefined, type: string): Condition | undefined => findCondition(status?.conditions as Condition[] | undefined, type);

const sum = (sets: readonly (ReplicaSet | undefined)[], count: (rs: ReplicaSet) => number | undefined): number => sets.reduce((total, rs) => total + (rs ? (count(rs) ?? 0) : 0), 0);
export const specReplicas = (sets: readonly (ReplicaSet | undefined)[]): number => sum(sets, (rs) => rs.spec.replicas ?? 1);
export const actualReplicas = (sets: readonly (ReplicaSet | undefined)[]): number => sum(sets, (rs) => rs.status?.replicas);
export const availableReplicas = (sets: readonly (ReplicaSet | undefined)[]): number => sum(sets, (rs) => rs.status?.availableReplicas);
export const readyReplicas = (sets: readonly (ReplicaSet | undefined)[]): number => sum(sets, (rs) => rs.status?.readyReplicas);

/**
 * The counts of the Deployment's status from its ReplicaSets (upstream's calculateStatus), and
 * the Available condition: True once at least `replicas - maxUnavailable` pods are available.
 */
export function calculateDeploymentStatus(d: Deployment, all: readonly (ReplicaSet | undefined)[], newRS: ReplicaSet | undefined, nowMs: number): DeploymentStatus {
  const available = availableReplicas(all);
  const total = specReplicas(all);
  let status: DeploymentStatus = {
    observedGeneration: d.metadata.generation,
    replicas: actualReplicas(all),
    updatedReplicas: actualReplicas([newRS]),
    readyReplicas: readyReplicas(all),
    availableReplicas: available,
    unavailableReplicas: Math.max(0, total - available),
    ...(d.status?.collisionCount !== undefined ? { collisionCount: d.status.collisionCount } : {}),
    ...(d.status?.conditions && d.status.conditions.length > 0 ? { conditions: [...d.status.conditions] } : {}),
  };
  status =
    available >= desiredReplicas(d) - maxUnavailable(d)
      ? setDeploymentCondition(status, newCondition('Available', 'True', REASON.minimumAvailable, 'Deployment has minimum availability.', nowMs))
      : setDeploymentCondition(status, newCondition('Available', 'False', REASON.minimumUnavailable, 'Deployment does not have minimum availability.', nowMs));
  return status;
}

/** Every replica updated, running and available, at the generation seen (upstream's DeploymentComplete). */
export function deploymentComplete(d: Deployment, status: DeploymentStatus): boolean {
  const desired = desiredReplicas(d);
  return status.updatedReplicas === desired && status.replicas === desired && status.availableReplicas === desired && (status.observedGeneration ?? 0) >= (d.metadata.generation ?? 0);
}

/** Whether the new status shows progress over the Deployment's (upstream's DeploymentProgressing). */
export function deploymentProgressing(d: Deployment, next: DeploymentStatus): boolean {
  const old = d.status ?? {};
  const oldOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const newOld = (next.replicas ?? 0) - (next.updatedReplicas ?? 0);
  return (next.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) || newOld < oldOld || (next.readyReplicas ?? 0) > (old.readyReplicas ?? 0) || (next.availableReplicas ?? 0) > (old.availableReplicas ?? 0);
}

/** `progressDeadlineSeconds` set and not "never" (MaxInt32). */
export const hasProgressDeadline = (d: Deployment): boolean => d.spec.progressDeadlineSeconds !== undefined && d.spec.progressDeadlineSeconds !== 2 ** 31 - 1;

/** Whether the rollout has made no progress for `progressDeadlineSeconds` since the Progressing condition's last update. */
export function deploymentTimedOut(d: Deployment, status: DeploymentStatus, nowMs: number): boolean {
  if (!hasProgressDeadline(d)) return false;
  const condition = deploymentCondition(status, 'Progressing');
  if (!condition || condition.reason === REASON.newRSAvailable) return false;
  if (condition.reason === REASON.timedOut) return true;
  const from = condition.lastUpdateTime ? Date.parse(condition.lastUpdateTime) : NaN;
  return !Number.isNaN(from) && from + d.spec.progressDeadlineSeconds! * 1000 < nowMs;
}

/**
 * Whether writing `b` would leave the status `a` as it is: equal as their JSON would be, so a
 * member whose value is undefined is absent (the computed status leaves some undefined) and the
 * members' order is free. Compared in place: a JSON round trip of both (as this was) was 8.5 % of
 * the manager's busy CPU in a density run at 49,000 pods and 13.6 % at 75,000, as a Deployment
 * syncs on each status change of its sets.
 */
export const statusEqual = (a: DeploymentStatus | undefined, b: DeploymentStatus): boolean => sameJson(a ?? {}, b);

function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    // JSON writes an undefined element as null.
    for (let i = 0; i < a.length; i += 1) if (!sameJson(a[i] ?? null, b[i] ?? null)) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let members = 0;
  for (const key of Object.keys(x)) {
    const value = x[key];
    if (value === undefined) continue;
    members += 1;
    if (!Object.hasOwn(y, key) || !sameJson(value, y[key])) return false;
  }
  for (const key of Object.keys(y)) if (y[key] !== undefined) members -= 1;
  return members === 0;
}
