import type { Pod } from '../../src/api/index.js';
import { isPodReady, podReadySince } from './pod-readiness.js';

// Pending < Unknown < Running: a pod further from running is cheaper to lose.
const PHASE_ORDINAL: Readonly<Record<string, number>> = { Pending: 0, Unknown: 1, Running: 2 };
const phaseOrdinal = (pod: Pod): number => PHASE_ORDINAL[pod.status?.phase ?? ''] ?? 0;

const maxRestarts = (pod: Pod): number =>
  Math.max(0, ...(pod.status?.containerStatuses ?? []).map((status) => (typeof status['restartCount'] === 'number' ? status['restartCount'] : 0)));

const created = (pod: Pod): number | undefined => {
  const at = pod.metadata.creationTimestamp ? Date.parse(pod.metadata.creationTimestamp) : NaN;
  return Number.isNaN(at) ? undefined : at;
};

/** Upstream's afterOrZero as a sort key: an unknown time first, then the later one. Negative when `a` goes first. */
function laterFirst(a: number | undefined, b: number | undefined): number {
  if (a === b) return 0;
  if (a === undefined) return -1;
  if (b === undefined) return 1;
  return b - a;
}

/**
 * Upstream's ActivePods order, the pods to lose first at the front: unassigned before assigned;
 * Pending, Unknown, Running; not ready before ready; ready for less time before more; more
 * container restarts before fewer; created later (or without a time) before earlier.
 */
export function compareActivePods(a: Pod, b: Pod): number {
  const nodeA = a.spec.nodeName ?? '';
  const nodeB = b.spec.nodeName ?? '';
  if (nodeA !== nodeB && (nodeA === '' || nodeB === '')) return nodeA === '' ? -1 : 1;
  if (phaseOrdinal(a) !== phaseOrdinal(b)) return phaseOrdinal(a) - phaseOrdinal(b);
  if (isPodReady(a) !== isPodReady(b)) return isPodReady(a) ? 1 : -1;
  if (isPodReady(a) && isPodReady(b)) {
    const order = laterFirst(podReadySince(a), podReadySince(b));
    if (order !== 0) return order;
  }
  if (maxRestarts(a) !== maxRestarts(b)) return maxRestarts(b) - maxRestarts(a);
  return laterFirst(created(a), created(b));
}

/** `controller.kubernetes.io/pod-deletion-cost`: lower goes first; absent or malformed is 0. */
export const POD_DELETION_COST = 'controller.kubernetes.io/pod-deletion-cost';
function deletionCost(pod: Pod): number {
  const text = pod.metadata.annotations?.[POD_DELETION_COST];
  if (text === undefined || !/^[+-]?\d+$/.test(text)) return 0;
  const cost = Number(text);
  return cost >= -(2 ** 31) && cost < 2 ** 31 ? cost : 0;
}

/**
 * Time buckets of LogarithmicScaleDown (on by default upstream): two times compare by the
 * power of two of their age, so pods of about the same age tie and the next rule decides.
 */
function logAgeFirst(a: number | undefined, b: number | undefined, nowMs: number): number {
  if (a === undefined || b === undefined) return laterFirst(a, b);
  // Go's Duration is in nanoseconds; the bucket of a zero or future age is the lowest.
  const bucket = (at: number) => {
    const ns = (nowMs - at) * 1e6;
    return ns > 0 ? Math.trunc(Math.log2(ns)) : Number.NEGATIVE_INFINITY;
  };
  const [x, y] = [bucket(a), bucket(b)];
  return x === y ? 0 : x < y ? -1 : 1;
}

/**
 * The pods to delete on scale-down, as upstream's ReplicaSet controller picks them (getPodsToDelete
 * with ActivePodsWithRanks): when not all go, each is ranked by how many of `related` (the pods of
 * the owner and of its sibling ReplicaSets) share its node, then sorted: unassigned, Pending <
 * Unknown < Running, lower pod-deletion-cost, more doubled-up, not ready, ready more recently (log
 * buckets), more restarts, created more recently (log buckets). Answers the first `count`.
 */
export function podsToDelete(pods: readonly Pod[], related: readonly Pod[], count: number, nowMs: number): Pod[] {
  if (count >= pods.length) return [...pods];
  const onNode = new Map<string, number>();
  for (const pod of related) {
    const node = pod.spec.nodeName;
    if (node && pod.metadata.deletionTimestamp === undefined && pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed') onNode.set(node, (onNode.get(node) ?? 0) + 1);
  }
  const rank = (pod: Pod) => (pod.spec.nodeName ? (onNode.get(pod.spec.nodeName) ?? 0) : 0);
  const ranked = pods.map((pod) => ({ pod, rank: rank(pod) }));
  ranked.sort((x, y) => compareRanked(x.pod, x.rank, y.pod, y.rank, nowMs));
  return ranked.slice(0, count).map((entry) => entry.pod);
}

function compareRanked(a: Pod, rankA: number, b: Pod, rankB: number, nowMs: number): number {
  const nodeA = a.spec.nodeName ?? '';
  const nodeB = b.spec.nodeName ?? '';
  if (nodeA !== nodeB && (nodeA === '' || nodeB === '')) return nodeA === '' ? -1 : 1;
  if (phaseOrdinal(a) !== phaseOrdinal(b)) return phaseOrdinal(a) - phaseOrdinal(b);
  if (deletionCost(a) !== deletionCost(b)) return deletionCost(a) - deletionCost(b);
  if (rankA !== rankB) return rankB - rankA;
  if (isPodReady(a) !== isPodReady(b)) return isPodReady(a) ? 1 : -1;
  if (isPodReady(a) && isPodReady(b)) {
    const order = logAgeFirst(podReadySince(a), podReadySince(b), nowMs);
    if (order !== 0) return order;
  }
  if (maxRestarts(a) !== maxRestarts(b)) return maxRestarts(b) - maxRestarts(a);
  return logAgeFirst(created(a), created(b), nowMs);
}
