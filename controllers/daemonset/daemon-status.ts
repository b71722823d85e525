import type { DaemonSet, Node, Pod } from '../../src/api/index.js';
import { isPodAvailable, isPodReady, podAvailableAt } from '../workload/index.js';
import { isPodUpdated, nodeFit } from './daemon-pod.js';

export type DaemonSetStatus = NonNullable<DaemonSet['status']>;

/**
 * The DaemonSet's status counts (upstream's updateDaemonSetStatus), over the nodes: desired are
 * those that should run the daemon, current those of them with a pod (bound or not), misscheduled
 * the others with a pod; ready, available and updated look at each node's oldest pod. Also when a
 * ready pod becomes available (`minReadySeconds`), for the controller to look again then.
 */
export function daemonSetStatus(ds: DaemonSet, nodes: readonly Node[], byNode: ReadonlyMap<string, Pod[]>, hash: string, collisionCount: number, nowMs: number): { status: DaemonSetStatus; availableAt?: number } {
  let desired = 0;
  let current = 0;
  let misscheduled = 0;
  let ready = 0;
  let available = 0;
  let updated = 0;
  let availableAt: number | undefined;
  const minReady = ds.spec.minReadySeconds ?? 0;
  for (const node of nodes) {
    const pods = byNode.get(node.metadata.name!) ?? [];
    const { shouldRun } = nodeFit(ds, node);
    if (!shouldRun) {
      if (pods.length > 0) misscheduled += 1;
      continue;
    }
    desired += 1;
    const pod = pods[0];
    if (pod === undefined) continue;
    current += 1;
    if (isPodReady(pod)) {
      ready += 1;
      if (isPodAvailable(pod, minReady, nowMs)) available += 1;
      else {
        const at = podAvailableAt(pod, minReady, nowMs);
        if (at !== undefined) availableAt = Math.min(availableAt ?? at, at);
      }
    }
    if (isPodUpdated(pod, hash, ds.metadata.generation)) updated += 1;
  }
  const status: DaemonSetStatus = {
    ...ds.status,
    currentNumberScheduled: current,
    numberMisscheduled: misscheduled,
    desiredNumberScheduled: desired,
    numberReady: ready,
    updatedNumberScheduled: updated,
    numberAvailable: available,
    numberUnavailable: desired - available,
    ...(ds.metadata.generation !== undefined ? { observedGeneration: ds.metadata.generation } : {}),
    ...(collisionCount > 0 ? { collisionCount } : {}),
  };
  return availableAt === undefined ? { status } : { status, availableAt };
}
