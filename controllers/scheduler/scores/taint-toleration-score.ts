import type { ScorePlugin } from '../plugin.js';
import { tolerates } from '../../node-matching/index.js';
import { normalizeByMax } from './normalize.js';

/**
 * Avoids PreferNoSchedule taints the pod does not tolerate: counts them per node, and scores the
 * node with the most 0 and a node with none 100.
 */
export const taintTolerationScore: ScorePlugin = {
  name: 'TaintToleration',
  weight: 3,
  score(pod, node) {
    const taints = node.node?.spec?.taints;
    if (!taints) return 0;
    const tolerations = (pod.pod.spec.tolerations ?? []).filter((t) => !t.effect || t.effect === 'PreferNoSchedule');
    let count = 0;
    for (const taint of taints) if (taint.effect === 'PreferNoSchedule' && !tolerations.some((t) => tolerates(t, taint))) count++;
    return count;
  },
  normalize: (scores) => normalizeByMax(scores, true),
};
