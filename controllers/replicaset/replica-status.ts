import { isDeepStrictEqual } from 'node:util';
import { rfc3339, type KubeObject, type Pod, type PodTemplateSpec } from '../../src/api/index.js';
import { findCondition, isPodAvailable, isPodReady, removeCondition, setCondition } from '../workload/index.js';
import type { ReplicatedStatus } from './replicated-kind.js';

export const REPLICA_FAILURE = 'ReplicaFailure';

export interface StatusInput {
  readonly object: KubeObject;
  readonly current: ReplicatedStatus | undefined;
  readonly template: PodTemplateSpec | undefined;
  readonly desired: number;
  readonly minReadySeconds: number;
  /** The active pods the owner controls. */
  readonly pods: readonly Pod[];
  /** What managing the replicas failed with, if it did. */
  readonly manageError: unknown;
  readonly nowMs: number;
}

/**
 * The status upstream's calculateStatus gives: counts of the active pods (all, fully labeled
 * with the template's labels, ready, available for `minReadySeconds`), the generation seen,
 * and `ReplicaFailure` set when a create or delete failed (its reason says which), removed once
 * managing succeeds. An existing failure condition is kept as it is (upstream does not rewrite it).
 */
export function calculateStatus(input: StatusInput): ReplicatedStatus {
  const templateLabels = Object.entries(input.template?.metadata?.labels ?? {});
  let fullyLabeled = 0;
  let ready = 0;
  let available = 0;
  for (const pod of input.pods) {
    const labels = pod.metadata.labels ?? {};
    if (templateLabels.every(([key, value]) => labels[key] === value)) fullyLabeled += 1;
    if (isPodReady(pod)) {
      ready += 1;
      if (isPodAvailable(pod, input.minReadySeconds, input.nowMs)) available += 1;
    }
  }
  let conditions = input.current?.conditions;
  const failure = findCondition(conditions, REPLICA_FAILURE);
  if (input.manageError !== undefined && failure === undefined) {
    const diff = input.pods.length - input.desired;
    const reason = diff < 0 ? 'FailedCreate' : diff > 0 ? 'FailedDelete' : undefined;
    conditions = setCondition(conditions, {
      type: REPLICA_FAILURE,
      status: 'True',
      ...(reason ? { reason } : {}),
      message: input.manageError instanceof Error ? input.manageError.message : String(input.manageError),
      lastTransitionTime: rfc3339(input.nowMs),
    });
  } else if (input.manageError === undefined && failure !== undefined) {
    conditions = removeCondition(conditions, REPLICA_FAILURE);
  }
  return {
    ...input.current,
    replicas: input.pods.length,
    fullyLabeledReplicas: fullyLabeled,
    readyReplicas: ready,
    availableReplicas: available,
    observedGeneration: input.object.metadata.generation ?? input.current?.observedGeneration,
    ...(conditions && conditions.length > 0 ? { conditions } : { conditions: undefined }),
  };
}

/** Whether writing `next` would change what the object says (upstream compares the same fields). */
export function statusChanged(current: ReplicatedStatus | undefined, next: ReplicatedStatus): boolean {
  const c = current ?? {};
  return (
    (c.replicas ?? 0) !== next.replicas ||
    (c.fullyLabeledReplicas ?? 0) !== next.fullyLabeledReplicas ||
    (c.readyReplicas ?? 0) !== next.readyReplicas ||
    (c.availableReplicas ?? 0) !== next.availableReplicas ||
    c.observedGeneration !== next.observedGeneration ||
    !isDeepStrictEqual(c.conditions ?? [], next.conditions ?? [])
  );
}
