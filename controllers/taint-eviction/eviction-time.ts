import type { Pod, Taint } from '../../src/api/index.js';
import { tolerates, type Toleration } from '../node-matching/index.js';

/**
 * When a pod on a node with NoExecute taints must go (upstream's taint manager): at once when a
 * taint is not tolerated; else after the smallest `tolerationSeconds` among the tolerations that
 * match the taints, counted from the latest taint's `timeAdded` (else `seenAt`); never when none
 * of them sets `tolerationSeconds`. A zero or negative `tolerationSeconds` means at once.
 * Returns the time in ms (0: at once), `Infinity` for never, or undefined when the node has no NoExecute taint.
 */
export function evictionTime(pod: Pod, taints: readonly Taint[], seenAt: number): number | undefined {
  const noExecute = taints.filter((t) => t.effect === 'NoExecute');
  if (noExecute.length === 0) return undefined;
  const tolerations: readonly Toleration[] = (pod.spec.tolerations ?? []).filter((t) => t.effect === undefined || t.effect === '' || t.effect === 'NoExecute');
  let start = -Infinity;
  let seconds = Infinity;
  for (const taint of noExecute) {
    const used = tolerations.filter((t) => tolerates(t, taint));
    if (used.length === 0) return 0;
    const added = startOf(taint, seenAt);
    if (added > start) start = added;
    for (const t of used) if (t.tolerationSeconds !== undefined && t.tolerationSeconds !== null) seconds = Math.min(seconds, Math.max(0, t.tolerationSeconds));
  }
  return seconds === Infinity ? Infinity : start + seconds * 1000;
}

const startOf = (taint: Taint, seenAt: number): number => {
  const added = taint.timeAdded === undefined ? NaN : Date.parse(taint.timeAdded);
  return Number.isFinite(added) ? added : seenAt;
};
