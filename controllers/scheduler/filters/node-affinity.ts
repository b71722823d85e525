import { anyTermMatches } from '../node-selector.js';
import type { FilterPlugin } from '../plugin.js';

export const REASON_AFFINITY = "node(s) didn't match Pod's node affinity/selector";

/** `spec.nodeSelector` (every label equal) and the required node affinity (any term) must both hold. */
export const nodeAffinity: FilterPlugin = {
  name: 'NodeAffinity',
  filter(pod, node) {
    const target = node.node;
    if (!target) return undefined;
    const selector = pod.pod.spec.nodeSelector;
    if (selector) {
      const labels = target.metadata.labels ?? {};
      for (const [key, value] of Object.entries(selector)) if (labels[key] !== value) return [REASON_AFFINITY];
    }
    const required = pod.affinity.required;
    if (required !== undefined && !anyTermMatches(required, target)) return [REASON_AFFINITY];
    return undefined;
  },
};
