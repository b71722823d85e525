import type { FilterPlugin } from '../plugin.js';

export const REASON_TOO_MANY_PODS = 'Too many pods';

/**
 * The pod must fit in what the node has left: one more pod within its allocatable `pods`, and each
 * resource the pod requests (cpu, memory, ephemeral-storage, any extended resource) within the
 * node's allocatable minus the requests of the pods bound or assumed there. A resource the node
 * does not report has none to give. Every shortage is a reason of its own ("Insufficient cpu").
 */
export const nodeResourcesFit: FilterPlugin = {
  name: 'NodeResourcesFit',
  filter(pod, node) {
    // Allocation-free on the common path: most nodes fit, and this runs for every node searched.
    let reasons: string[] | undefined;
    if (node.podCount + 1 > node.maxPods) reasons = [REASON_TOO_MANY_PODS];
    const { allocatable, requested } = node;
    const list = pod.requestList;
    for (let i = 0; i < list.length; i++) {
      const [name, want] = list[i]!;
      const free = (allocatable.get(name) ?? 0) - (requested.get(name) ?? 0);
      if (want > free) (reasons ??= []).push(`Insufficient ${name}`);
    }
    return reasons;
  },
};
