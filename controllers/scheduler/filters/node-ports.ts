import type { FilterPlugin } from '../plugin.js';

export const REASON_PORTS = "node(s) didn't have free ports for the requested pod ports";

/** Each host port the pod asks for must be free on the node (same protocol and port, overlapping host IP). */
export const nodePorts: FilterPlugin = {
  name: 'NodePorts',
  filter(pod, node) {
    for (const port of pod.hostPorts) if (node.portConflicts(port)) return [REASON_PORTS];
    return undefined;
  },
};
