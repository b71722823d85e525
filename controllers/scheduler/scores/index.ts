// The default scores and their weights (kube-scheduler's defaults: resources 1 each, node affinity 2, taints 3).
import type { ScorePlugin } from '../plugin.js';
import { balancedAllocation } from './balanced-allocation.js';
import { leastAllocated } from './least-allocated.js';
import { nodeAffinityScore } from './node-affinity-score.js';
import { taintTolerationScore } from './taint-toleration-score.js';

export { balancedAllocation } from './balanced-allocation.js';
export { freeShare, leastAllocated } from './least-allocated.js';
export { nodeAffinityScore } from './node-affinity-score.js';
export { normalizeByMax } from './normalize.js';
export { taintTolerationScore } from './taint-toleration-score.js';

export const DEFAULT_SCORES: readonly ScorePlugin[] = [leastAllocated, balancedAllocation, nodeAffinityScore, taintTolerationScore];
