// Public surface of controllers/node-matching: what a pod asks of a node (node selector, required
// node affinity, taints and tolerations), shared by the scheduler and the DaemonSet controller.
export { anyTermMatches, termMatches } from './node-selector.js';
export type { NodeSelectorRequirement, NodeSelectorTerm } from './node-selector.js';
export { nodeAffinityOf, requiredNodeAffinityMatches } from './affinity.js';
export type { NodeAffinity, PodNodeAffinity, PreferredTerm } from './affinity.js';
export { effectiveTaints, tolerates, toleratedBy, TAINT_NOT_READY, TAINT_UNREACHABLE, TAINT_UNSCHEDULABLE } from './tolerations.js';
export type { TaintLike, Toleration } from './tolerations.js';
