import { termMatches } from '../../node-matching/index.js';
import type { ScorePlugin } from '../plugin.js';
import { normalizeByMax } from './normalize.js';

/** The sum of the weights of the preferred node affinity terms the node matches, scaled so the best node has 100. */
export const nodeAffinityScore: ScorePlugin = {
  name: 'NodeAffinity',
  weight: 2,
  score(pod, node) {
    if (!node.node) return 0;
    let sum = 0;
    for (const term of pod.affinity.preferred) if (term.weight > 0 && termMatches(term.preference, node.node)) sum += term.weight;
    return sum;
  },
  normalize: (scores) => normalizeByMax(scores, false),
};
