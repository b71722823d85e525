import { quantityValue, type Pod } from '../../api/index.js';
import type { EvictionSignal } from './eviction-thresholds.js';

/** What a pod uses now, per resource the signals care about; undefined: not measured. */
export interface PodUsage {
  /** Working set of its containers, bytes. */
  readonly memoryBytes?: number | undefined;
  /** Writable layers (and logs) of its containers, bytes. */
  readonly diskBytes?: number | undefined;
  readonly inodes?: number | undefined;
  readonly pids?: number | undefined;
  /** Per container, for the eviction message. */
  readonly containers?: readonly { readonly name: string; readonly memoryBytes?: number | undefined; readonly diskBytes?: number | undefined }[] | undefined;
}

export interface PodCandidate {
  readonly pod: Pod;
  readonly usage: PodUsage;
}

/** The resource a signal measures, as upstream names it in eviction messages. */
export type StarvedResource = 'memory' | 'ephemeral-storage' | 'inodes' | 'pids';

export const RESOURCE_OF: Readonly<Record<EvictionSignal, StarvedResource>> = {
  'memory.available': 'memory',
  'nodefs.available': 'ephemeral-storage',
  'imagefs.available': 'ephemeral-storage',
  'nodefs.inodesFree': 'inodes',
  'imagefs.inodesFree': 'inodes',
  'pid.available': 'pids',
};

/** The least priority of the system-critical classes: such pods are never evicted. */
export const SYSTEM_CRITICAL_PRIORITY = 2_000_000_000;

/**
 * A pod's request of a resource as the scheduler counts it: the sum over its containers, or the
 * largest init container's when that is more (they run one at a time, before the others).
 */
export function podRequest(pod: Pod, resource: 'memory' | 'ephemeral-storage'): number {
  const of = (c: { resources?: { requests?: Record<string, unknown> } }) => quantityValue(c.resources?.requests?.[resource]) ?? 0;
  const main = pod.spec.containers.reduce((sum, c) => sum + of(c), 0);
  const init = (pod.spec.initContainers ?? []).reduce((max, c) => Math.max(max, of(c)), 0);
  return Math.max(main, init);
}

const priorityOf = (pod: Pod): number => pod.spec.priority ?? 0;

/** Static and system-critical pods are left alone by the eviction manager, as upstream. */
export function isCriticalPod(pod: Pod, isStatic: (pod: Pod) => boolean): boolean {
  return isStatic(pod) || priorityOf(pod) >= SYSTEM_CRITICAL_PRIORITY;
}

type Compare = (a: PodCandidate, b: PodCandidate) => number;

const usageOf = (c: PodCandidate, resource: StarvedResource): number | undefined => {
  switch (resource) {
    case 'memory':
      return c.usage.memoryBytes;
    case 'ephemeral-storage':
      return c.usage.diskBytes;
    case 'inodes':
      return c.usage.inodes;
    case 'pids':
      return c.usage.pids;
  }
};

/** Pods using more than they requested come first; an unmeasured pod never exceeds. */
const exceedsRequestFirst = (resource: 'memory' | 'ephemeral-storage'): Compare => (a, b) => {
  const over = (c: PodCandidate) => (usageOf(c, resource) ?? 0) > podRequest(c.pod, resource);
  return Number(over(b)) - Number(over(a));
};

const lowerPriorityFirst: Compare = (a, b) => priorityOf(a.pod) - priorityOf(b.pod);

/** Larger usage above the request first (usage minus request, which is usage for BestEffort pods). */
const moreAboveRequestFirst = (resource: 'memory' | 'ephemeral-storage'): Compare => (a, b) =>
  (usageOf(b, resource) ?? 0) - podRequest(b.pod, resource) - ((usageOf(a, resource) ?? 0) - podRequest(a.pod, resource));

const moreUsageFirst = (resource: StarvedResource): Compare => (a, b) => (usageOf(b, resource) ?? 0) - (usageOf(a, resource) ?? 0);

const chain = (...compares: Compare[]): Compare => (a, b) => {
  for (const compare of compares) {
    const order = compare(a, b);
    if (order !== 0) return order;
  }
  return 0;
};

/**
 * The pods in the order they are evicted for a starved resource, the kubelet's ranking: memory
 * and ephemeral storage — pods whose usage exceeds their requests, then lower priority, then
 * usage above requests; inodes — exceeding disk requests, priority, then inodes used; pids —
 * priority, then processes. The sort is stable: ties keep the given order.
 */
export function rankForEviction(candidates: readonly PodCandidate[], resource: StarvedResource): PodCandidate[] {
  const compare =
    resource === 'memory' || resource === 'ephemeral-storage'
      ? chain(exceedsRequestFirst(resource), lowerPriorityFirst, moreAboveRequestFirst(resource))
      : resource === 'inodes'
        ? chain(exceedsRequestFirst('ephemeral-storage'), lowerPriorityFirst, moreUsageFirst('inodes'))
        : chain(lowerPriorityFirst, moreUsageFirst('pids'));
  return [...candidates].sort(compare);
}
