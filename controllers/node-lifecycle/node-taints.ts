import type { Node, Taint } from '../../src/api/index.js';
import { TAINT_NOT_READY, TAINT_UNREACHABLE } from '../node-matching/index.js';

/**
 * The taints the node lifecycle controller owns: `node.kubernetes.io/not-ready` (Ready False) and
 * `node.kubernetes.io/unreachable` (Ready Unknown: the agent stopped reporting), each with
 * NoSchedule (no new pods) and NoExecute (pods that do not tolerate it are evicted by the
 * taint-eviction loop). svc keeps Kubernetes' keys for them, as its scheduler, DaemonSet
 * controller and the DefaultTolerationSeconds admission do, so pods written for Kubernetes
 * tolerate them as they expect.
 */

export const MANAGED_KEYS: ReadonlySet<string> = new Set([TAINT_NOT_READY, TAINT_UNREACHABLE]);

/** The key a Ready status calls for: not-ready for False (or no Ready condition), unreachable for Unknown, none for True. */
export function conditionTaintKey(ready: string | undefined): string | undefined {
  if (ready === 'True') return undefined;
  return ready === 'Unknown' ? TAINT_UNREACHABLE : TAINT_NOT_READY;
}

const managed = (taint: Taint) => MANAGED_KEYS.has(taint.key) && (taint.effect === 'NoSchedule' || taint.effect === 'NoExecute');

/** Whether the node carries the managed taint `key` with `effect`. */
export const hasTaint = (node: Node, key: string, effect: Taint['effect']): boolean => (node.spec?.taints ?? []).some((t) => t.key === key && t.effect === effect);

/** The managed NoExecute taint the node carries, if any. */
export const noExecuteKey = (node: Node): string | undefined => (node.spec?.taints ?? []).find((t) => managed(t) && t.effect === 'NoExecute')?.key;

/**
 * The node's taints with the managed ones set to `wanted` (key per effect; undefined: none):
 * others are kept in place, a managed taint already right keeps its timeAdded, a new one is
 * stamped `now` (NoExecute ones: the taint-eviction loop counts tolerationSeconds from it). Returns undefined when nothing changes.
 */
export function withManagedTaints(node: Node, wanted: { readonly NoSchedule?: string | undefined; readonly NoExecute?: string | undefined }, now: string): Taint[] | undefined {
  const current = node.spec?.taints ?? [];
  const keep = current.filter((t) => !managed(t) || wanted[t.effect as 'NoSchedule' | 'NoExecute'] === t.key);
  const next = [...keep];
  for (const effect of ['NoSchedule', 'NoExecute'] as const) {
    const key = wanted[effect];
    if (key !== undefined && !keep.some((t) => t.key === key && t.effect === effect)) next.push({ key, effect, ...(effect === 'NoExecute' ? { timeAdded: now } : {}) });
  }
  if (next.length === current.length && next.every((t, i) => t === current[i])) return undefined;
  return next;
}
