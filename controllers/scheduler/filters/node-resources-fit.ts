import type { FilterPlugin } from '../plugin.js';
import { CPU, EPHEMERAL_STORAGE, MEMORY } from '../resources.js';

export const REASON_TOO_MANY_PODS = 'Too many pods';

/** cpu, memory and ephemeral-storage first, then the rest by name: the order kube-scheduler reports them in. */
const FIRST = [CPU, MEMORY, EPHEMERAL_STORAGE];

/**
 * The pod must fit in what the node has left: one more pod within its allocatable `pods`, and each
 * resource the pod requests (cpu, memory, ephemeral-storage, any extended resource) within the
 * node's allocatable minus the requests of the pods bound or assumed there. A resource the node
 * does not report has none to give. Every shortage is a reason of its own ("Insufficient cpu").
 */
export const nodeResourcesFit: FilterPlugin = {
  name: 'NodeResourcesFit',
  filter(pod, node) {
    const reasons: string[] = [];
    if (node.podCount + 1 > node.maxPods) reasons.push(REASON_TOO_MANY_PODS);
    const names = [...FIRST.filter((n) => pod.requests.has(n)), ...[...pod.requests.keys()].filter((n) => !FIRST.includes(n)).sort()];
    for (const name of names) {
      const want = pod.requests.get(name) ?? 0;
      if (want <= 0) continue;
      const free = (node.allocatable.get(name) ?? 0) - (node.requested.get(name) ?? 0);
      if (want > free) reasons.push(`Insufficient ${name}`);
    }
    return reasons.length > 0 ? reasons : undefined;
  },
};
