import { MAX_NODE_SCORE } from '../plugin.js';

/**
 * Rescales raw scores to 0..100 by the highest one (kube-scheduler's DefaultNormalizeScore);
 * `reverse` turns "more is worse" counts into scores. All zero: unchanged, or all 100 when reversed.
 */
export function normalizeByMax(scores: number[], reverse: boolean): void {
  let max = 0;
  for (const s of scores) if (s > max) max = s;
  if (max === 0) {
    if (reverse) scores.fill(MAX_NODE_SCORE);
    return;
  }
  for (let i = 0; i < scores.length; i++) {
    const scaled = Math.floor((MAX_NODE_SCORE * scores[i]!) / max);
    scores[i] = reverse ? MAX_NODE_SCORE - scaled : scaled;
  }
}
