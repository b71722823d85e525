import type { Node } from '../../src/api/index.js';
import { effectiveTaints } from '../node-matching/index.js';

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * Whether a node's update may let a pod fit that did not: it was cordoned and is not, its
 * allocatable, labels or taints changed, or it became Ready. Heartbeats (a new
 * `lastHeartbeatTime`) change none of these, so they do not stir the unschedulable pods.
 */
export function nodeChangeMayHelp(before: Node, after: Node): boolean {
  if (before.spec?.unschedulable && !after.spec?.unschedulable) return true;
  if (!same(before.status?.allocatable, after.status?.allocatable)) return true;
  if (!same(before.metadata.labels, after.metadata.labels)) return true;
  return !same(effectiveTaints(before), effectiveTaints(after));
}
