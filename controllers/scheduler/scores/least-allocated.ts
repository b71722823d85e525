import { MAX_NODE_SCORE, type ScorePlugin } from '../plugin.js';
import { CPU, MEMORY } from '../resources.js';

/** The share of `allocatable` left after `requested`, 0..100 (0 when nothing is left or the node reports none). */
export function freeShare(requested: number, allocatable: number): number {
  if (allocatable <= 0 || requested > allocatable) return 0;
  return ((allocatable - requested) * MAX_NODE_SCORE) / allocatable;
}

/**
 * Spreads pods: prefers the node with the most cpu and memory left once the pod is there (the two
 * weighted alike), counting request-less containers at 100m / 200 MiB. kube-scheduler's
 * NodeResourcesFit score with its default LeastAllocated strategy.
 */
export const leastAllocated: ScorePlugin = {
  name: 'NodeResourcesLeastAllocated',
  weight: 1,
  score(pod, node) {
    const used = node.nonZeroRequested;
    const cpu = freeShare(used.cpu + pod.nonZero.cpu, node.allocatable.get(CPU) ?? 0);
    const memory = freeShare(used.memory + pod.nonZero.memory, node.allocatable.get(MEMORY) ?? 0);
    return Math.floor((cpu + memory) / 2);
  },
};
