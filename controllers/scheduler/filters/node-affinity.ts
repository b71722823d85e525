import { requiredNodeAffinityMatches } from '../../node-matching/index.js';
import type { FilterPlugin } from '../plugin.js';

export const REASON_AFFINITY = "node(s) didn't match Pod's node affinity/selector";

/** `spec.nodeSelector` (every label equal) and the required node affinity (any term) must both hold. */
export const nodeAffinity: FilterPlugin = {
  name: 'NodeAffinity',
  filter(pod, node) {
    const target = node.node;
    if (!target) return undefined;
    return requiredNodeAffinityMatches(pod.pod, target, pod.affinity.required) ? undefined : [REASON_AFFINITY];
  },
};
