import type { DaemonSet, Node, Pod } from '../../src/api/index.js';
import { isPodUpdated, nodeFit, targetNodeOf } from './daemon-pod.js';

/** The DaemonSet's pods by the node each is for (pods for no node are left out). */
export function podsByNode(pods: readonly Pod[]): Map<string, Pod[]> {
  const byNode = new Map<string, Pod[]>();
  for (const pod of pods) {
    const node = targetNodeOf(pod);
    if (node === undefined) continue;
    const list = byNode.get(node);
    if (list) list.push(pod);
    else byNode.set(node, [pod]);
  }
  for (const list of byNode.values()) list.sort(byCreation);
  return byNode;
}

/** Oldest first, then by name: the order upstream keeps the first of (podByCreationTimestampAndPhase, without the phase). */
export const byCreation = (a: Pod, b: Pod): number =>
  (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '');

/** What the DaemonSet must change so that each eligible node has its pod (upstream's manage/podsShouldBeOnNode). */
export interface NodePlan {
  readonly nodesNeedingPods: string[];
  readonly podsToDelete: Pod[];
  /** Failed pods to delete, each after its node's back-off; the replacement comes at the next sync. */
  readonly failedPods: Pod[];
}

/**
 * For each node: a node that should run the daemon and has no pod gets one; a pod on a node
 * where it may no longer run goes; a failed pod goes (after its node's back-off; replaced at the next sync); of several
 * running pods one is kept — the oldest, or with maxSurge the oldest updated and the oldest old
 * one (the rolling update removes the old one once the new one is available). Pods for nodes
 * that no longer exist go too while they are unscheduled (bound ones are the pod garbage
 * collector's, as upstream).
 */
export function planNodes(ds: DaemonSet, nodes: readonly Node[], byNode: ReadonlyMap<string, Pod[]>, hash: string, allowsSurge: boolean): NodePlan {
  const nodesNeedingPods: string[] = [];
  const podsToDelete: Pod[] = [];
  const failedPods: Pod[] = [];
  const known = new Set<string>();
  for (const node of nodes) {
    const name = node.metadata.name!;
    known.add(name);
    const { shouldRun, shouldContinueRunning } = nodeFit(ds, node);
    const pods = byNode.get(name) ?? [];
    if (shouldRun && pods.length === 0) {
      nodesNeedingPods.push(name);
      continue;
    }
    if (!shouldContinueRunning) {
      podsToDelete.push(...pods.filter((pod) => pod.metadata.deletionTimestamp === undefined));
      continue;
    }
    const running: Pod[] = [];
    for (const pod of pods) {
      if (pod.metadata.deletionTimestamp !== undefined) continue;
      if (pod.status?.phase === 'Failed') {
        failedPods.push(pod);
        continue;
      }
      running.push(pod);
    }
    if (running.length <= 1) continue;
    if (!allowsSurge) {
      podsToDelete.push(...running.slice(1));
      continue;
    }
    const updated = running.filter((pod) => isPodUpdated(pod, hash, ds.metadata.generation));
    const old = running.filter((pod) => !isPodUpdated(pod, hash, ds.metadata.generation));
    podsToDelete.push(...updated.slice(1), ...old.slice(1));
  }
  for (const [node, pods] of byNode) {
    if (!known.has(node)) podsToDelete.push(...pods.filter((pod) => !pod.spec.nodeName && pod.metadata.deletionTimestamp === undefined));
  }
  return { nodesNeedingPods, podsToDelete, failedPods };
}
