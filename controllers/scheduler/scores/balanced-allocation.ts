import { MAX_NODE_SCORE, type ScorePlugin } from '../plugin.js';
import { CPU, MEMORY } from '../resources.js';

function fraction(requested: number, allocatable: number): number {
  if (allocatable <= 0) return 1;
  return Math.min(1, requested / allocatable);
}

/**
 * Prefers the node whose cpu and memory would be used in the most equal proportions once the pod
 * is there: 100 · (1 − standard deviation of the two fractions). A node that would have cpu left
 * but no memory is a poor home for the next pod.
 */
export const balancedAllocation: ScorePlugin = {
  name: 'NodeResourcesBalancedAllocation',
  weight: 1,
  score(pod, node) {
    const used = node.nonZeroRequested;
    const cpu = fraction(used.cpu + pod.nonZero.cpu, node.allocatable.get(CPU) ?? 0);
    const memory = fraction(used.memory + pod.nonZero.memory, node.allocatable.get(MEMORY) ?? 0);
    // With two values the standard deviation is half their distance.
    const std = Math.abs(cpu - memory) / 2;
    return Math.floor((1 - std) * MAX_NODE_SCORE);
  },
};
