import type { DaemonSet, Node, Pod } from '../../src/api/index.js';
import { isPodAvailable } from '../workload/index.js';
import { isPodUpdated, nodeFit } from './daemon-pod.js';

/** `maxSurge` and `maxUnavailable` of the DaemonSet over `desired` nodes (upstream's updatedDesiredNodeCounts: percentages round up; both 0 means one unavailable). */
export function rolloutBounds(ds: DaemonSet, desired: number): { readonly maxSurge: number; readonly maxUnavailable: number } {
  const rolling = ds.spec.updateStrategy?.rollingUpdate;
  const maxSurge = scaled(rolling?.maxSurge ?? 0, desired);
  let maxUnavailable = scaled(rolling?.maxUnavailable ?? 1, desired);
  if (maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
  return { maxSurge, maxUnavailable };
}

function scaled(value: number | string, total: number): number {
  if (typeof value === 'number') return value;
  const percent = /^(\d+)%$/.exec(value);
  return percent ? Math.ceil((Number(percent[1]) * total) / 100) : Number(value) || 0;
}

/** The one updated and the one old (not being deleted) pod on a node; `ok` false when there are more of either (upstream's findUpdatedPodsOnNode). */
function updatedAndOld(pods: readonly Pod[], hash: string, generation: number | undefined): { newPod?: Pod; oldPod?: Pod; ok: boolean } {
  let newPod: Pod | undefined;
  let oldPod: Pod | undefined;
  for (const pod of pods) {
    if (pod.metadata.deletionTimestamp !== undefined) continue;
    if (isPodUpdated(pod, hash, generation)) {
      if (newPod) return { ok: false };
      newPod = pod;
    } else {
      if (oldPod) return { ok: false };
      oldPod = pod;
    }
  }
  return { ...(newPod ? { newPod } : {}), ...(oldPod ? { oldPod } : {}), ok: true };
}

/** What one step of a rolling update does: old pods to delete, nodes to surge onto. */
export interface RolloutStep {
  readonly podsToDelete: Pod[];
  readonly nodesNeedingPods: string[];
}

/**
 * One step of the RollingUpdate strategy (upstream's rollingUpdate), over the nodes that should
 * run the daemon. Without surge: old pods that are unavailable are replaced at once, available
 * ones only while fewer than maxUnavailable nodes are unavailable (a deleted pod's node gets its
 * new pod from the next sync). With surge: a node with an old pod gets a new one beside it
 * (at once when the old one is unavailable, else while fewer than maxSurge surges are pending),
 * and the old pod goes once the new one is available.
 */
export function rolloutStep(ds: DaemonSet, nodes: readonly Node[], byNode: ReadonlyMap<string, Pod[]>, hash: string, nowMs: number): RolloutStep {
  const minReady = ds.spec.minReadySeconds ?? 0;
  const available = (pod: Pod) => isPodAvailable(pod, minReady, nowMs);
  const eligible = nodes.filter((node) => nodeFit(ds, node).shouldContinueRunning);
  const { maxSurge, maxUnavailable } = rolloutBounds(ds, eligible.filter((node) => nodeFit(ds, node).shouldRun).length);
  const generation = ds.metadata.generation;
  if (maxSurge === 0) {
    let unavailable = 0;
    const replaceNow: Pod[] = [];
    const candidates: Pod[] = [];
    for (const node of eligible) {
      const { newPod, oldPod, ok } = updatedAndOld(byNode.get(node.metadata.name!) ?? [], hash, generation);
      if (!ok) {
        unavailable += 1;
        continue;
      }
      if (oldPod === undefined) {
        if (newPod === undefined || !available(newPod)) unavailable += 1;
        continue;
      }
      if (!available(oldPod)) replaceNow.push(oldPod);
      else candidates.push(oldPod);
    }
    const room = Math.max(0, maxUnavailable - unavailable - replaceNow.length);
    return { podsToDelete: [...replaceNow, ...candidates.slice(0, room)], nodesNeedingPods: [] };
  }
  let surging = 0;
  const oldToDelete: Pod[] = [];
  const allowedNodes: string[] = [];
  const candidateNodes: string[] = [];
  for (const node of eligible) {
    const name = node.metadata.name!;
    const { newPod, oldPod, ok } = updatedAndOld(byNode.get(name) ?? [], hash, generation);
    if (!ok) {
      surging += 1;
      continue;
    }
    if (oldPod === undefined) continue;
    if (newPod === undefined) {
      if (!available(oldPod)) allowedNodes.push(name);
      else candidateNodes.push(name);
      continue;
    }
    if (!available(newPod)) {
      surging += 1;
      continue;
    }
    oldToDelete.push(oldPod);
  }
  const room = Math.min(candidateNodes.length, Math.max(0, maxSurge - surging));
  return { podsToDelete: oldToDelete, nodesNeedingPods: [...allowedNodes, ...candidateNodes.slice(0, room)] };
}
