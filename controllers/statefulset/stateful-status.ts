import type { Pod, StatefulSet } from '../../src/api/index.js';
import { isPodAvailable, isPodReady, podAvailableAt } from '../workload/index.js';
import { podRevision, replicaCount } from './stateful-pod.js';

export type StatefulSetStatus = NonNullable<StatefulSet['status']>;

/**
 * The set's status over its members (upstream's computeReplicaStatus): replicas are the members
 * that exist (terminating ones too), ready and available those Running and Ready (available after
 * `minReadySeconds`), current and updated the members not terminating made from the current and
 * the update revision. A RollingUpdate whose every member is updated and ready makes the update
 * revision current.
 */
export function statefulSetStatus(
  set: StatefulSet,
  members: readonly Pod[],
  revisions: { readonly current: string; readonly update: string },
  collisionCount: number,
  nowMs: number,
): { status: StatefulSetStatus; availableAt?: number } {
  const minReady = set.spec.minReadySeconds ?? 0;
  let replicas = 0;
  let ready = 0;
  let available = 0;
  let current = 0;
  let updated = 0;
  let availableAt: number | undefined;
  for (const pod of members) {
    replicas += 1;
    if (pod.status?.phase === 'Running' && isPodReady(pod)) {
      ready += 1;
      if (isPodAvailable(pod, minReady, nowMs)) available += 1;
      else {
        const at = podAvailableAt(pod, minReady, nowMs);
        if (at !== undefined) availableAt = Math.min(availableAt ?? at, at);
      }
    }
    if (pod.metadata.deletionTimestamp === undefined) {
      if (podRevision(pod) === revisions.current) current += 1;
      if (podRevision(pod) === revisions.update) updated += 1;
    }
  }
  let currentRevision = revisions.current;
  const wanted = replicaCount(set);
  if (set.spec.updateStrategy?.type !== 'OnDelete' && updated === wanted && ready === wanted && replicas === wanted) {
    currentRevision = revisions.update;
    current = updated;
  }
  const status: StatefulSetStatus = {
    ...set.status,
    ...(set.metadata.generation !== undefined ? { observedGeneration: set.metadata.generation } : {}),
    replicas,
    readyReplicas: ready,
    currentReplicas: current,
    updatedReplicas: updated,
    availableReplicas: available,
    currentRevision,
    updateRevision: revisions.update,
    collisionCount,
  };
  return availableAt === undefined ? { status } : { status, availableAt };
}
