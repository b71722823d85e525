import type { Node, Pod, Taint } from '../../src/api/index.js';

export type Toleration = NonNullable<Pod['spec']['tolerations']>[number];

/** What matching reads of a taint. */
export type TaintLike = Pick<Taint, 'key' | 'value' | 'effect'>;

/** Taint keys kube-scheduler's neighbours use for node conditions; svc reads them from the condition directly. */
export const TAINT_NOT_READY = 'node.kubernetes.io/not-ready';
export const TAINT_UNREACHABLE = 'node.kubernetes.io/unreachable';
export const TAINT_UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';

/** Whether `toleration` tolerates `taint`: same effect (or any), same key (or any, with Exists), same value with Equal. */
export function tolerates(toleration: Toleration, taint: TaintLike): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  const operator = toleration.operator ?? 'Equal';
  if (!toleration.key) return operator === 'Exists';
  if (toleration.key !== taint.key) return false;
  return operator === 'Exists' || (toleration.value ?? '') === (taint.value ?? '');
}

export function toleratedBy(tolerations: readonly Toleration[] | undefined, taint: TaintLike): boolean {
  return (tolerations ?? []).some((t) => tolerates(t, taint));
}

/**
 * The node's taints as the scheduler sees them: its own, plus `not-ready` (Ready False or absent)
 * or `unreachable` (Ready Unknown) when its Ready condition is not True. In Kubernetes the node
 * lifecycle controller writes those taints; svc derives them here so a node that is not Ready is
 * never chosen, while a pod that tolerates the taint (a DaemonSet's) still may be.
 */
export function effectiveTaints(node: Node): readonly TaintLike[] {
  const own = node.spec?.taints ?? [];
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready')?.status;
  if (ready === 'True') return own;
  const key = ready === 'Unknown' ? TAINT_UNREACHABLE : TAINT_NOT_READY;
  if (own.some((t) => t.key === key && t.effect === 'NoSchedule')) return own;
  return [...own, { key, effect: 'NoSchedule' }];
}
