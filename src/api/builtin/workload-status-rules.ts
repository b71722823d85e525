import type { KubeObject } from '../meta.js';
import type { FieldCause } from '../status-error.js';
import { fieldInvalid } from '../validation/causes.js';

/**
 * The status rules of the replicated workloads on a write through `/status` (upstream's
 * ValidateDeploymentStatusUpdate, ValidateReplicaSetStatusUpdate,
 * ValidateReplicationControllerStatusUpdate, ValidateStatefulSetStatusUpdate,
 * ValidateDaemonSetStatusUpdate): the counts of a subset are no more than the count of the set
 * they are part of, `observedGeneration` and `collisionCount` are not negative, and
 * `collisionCount` never goes down. Negative counts are the kinds' schemas' (checked before these).
 * An absent count reads as 0, as upstream's int32 fields do.
 */

type Counts = Readonly<Record<string, unknown>>;

const MORE_THAN_REPLICAS = 'cannot be greater than status.replicas';

const countOf = (status: Counts, field: string): number => {
  const value = status[field];
  return typeof value === 'number' ? value : 0;
};

const statusOf = (object: KubeObject): Counts => {
  const status = (object as { status?: unknown }).status;
  return status !== null && typeof status === 'object' ? (status as Counts) : {};
};

/** Each of `parts` no more than `status.replicas`. */
function withinReplicas(status: Counts, parts: readonly string[]): FieldCause[] {
  const replicas = countOf(status, 'replicas');
  const causes: FieldCause[] = [];
  for (const part of parts) {
    const count = countOf(status, part);
    if (count > replicas) causes.push(fieldInvalid(`status.${part}`, count, MORE_THAN_REPLICAS));
  }
  return causes;
}

/** Available pods are ready ones: never more of them (the message is the kind's, upstream words it two ways). */
function availableWithinReady(status: Counts, message: string): FieldCause[] {
  const available = countOf(status, 'availableReplicas');
  return available > countOf(status, 'readyReplicas') ? [fieldInvalid('status.availableReplicas', available, message)] : [];
}

/** The optional counts upstream checks in code rather than by type: not negative when set. */
function nonNegative(status: Counts, fields: readonly string[]): FieldCause[] {
  const causes: FieldCause[] = [];
  for (const field of fields) {
    const value = status[field];
    if (typeof value === 'number' && value < 0) causes.push(fieldInvalid(`status.${field}`, value, 'must be greater than or equal to 0'));
  }
  return causes;
}

/**
 * `collisionCount` names the revision hashes a controller has tried: lowering it (or dropping it)
 * would let the controller reuse a name it has already found taken.
 */
function collisionCountKept(status: Counts, old: Counts): FieldCause[] {
  const before = old['collisionCount'];
  if (typeof before !== 'number') return [];
  const after = status['collisionCount'];
  const value = typeof after === 'number' ? after : 0;
  return typeof after !== 'number' || after < before ? [fieldInvalid('status.collisionCount', value, 'cannot be decremented')] : [];
}

export function validateDeploymentStatus(object: KubeObject, old: KubeObject): FieldCause[] {
  const status = statusOf(object);
  return [
    ...nonNegative(status, ['observedGeneration', 'collisionCount']),
    ...withinReplicas(status, ['updatedReplicas', 'readyReplicas', 'availableReplicas']),
    ...availableWithinReady(status, 'cannot be greater than readyReplicas'),
    ...collisionCountKept(status, statusOf(old)),
  ];
}

/** ReplicaSets and ReplicationControllers: the same counts, the same rules. */
export function validateReplicaSetStatus(object: KubeObject): FieldCause[] {
  const status = statusOf(object);
  return [
    ...nonNegative(status, ['observedGeneration']),
    ...withinReplicas(status, ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas']),
    ...availableWithinReady(status, 'cannot be greater than readyReplicas'),
  ];
}

export function validateStatefulSetStatus(object: KubeObject, old: KubeObject): FieldCause[] {
  const status = statusOf(object);
  return [
    ...nonNegative(status, ['observedGeneration', 'collisionCount']),
    ...withinReplicas(status, ['readyReplicas', 'currentReplicas', 'updatedReplicas', 'availableReplicas']),
    ...availableWithinReady(status, 'cannot be greater than status.readyReplicas'),
    ...collisionCountKept(status, statusOf(old)),
  ];
}

/** A DaemonSet's counts are over different node sets (desired, scheduled, misscheduled): upstream bounds none by another. */
export function validateDaemonSetStatus(object: KubeObject, old: KubeObject): FieldCause[] {
  const status = statusOf(object);
  return [...nonNegative(status, ['observedGeneration', 'collisionCount']), ...collisionCountKept(status, statusOf(old))];
}
