import type { z } from 'zod';
import type { conditionSchema } from '../../src/api/index.js';

export type NamespaceCondition = z.infer<typeof conditionSchema>;

/** What one sync of a Terminating namespace found: the facts its status conditions report. */
export interface DeletionState {
  /** Group versions discovery could not read (their types were not cleaned). */
  readonly discoveryFailures: readonly string[];
  /** `resource.group: message` of every type whose content could not be deleted. */
  readonly contentFailures: readonly string[];
  /** Objects still present per `resource.group`. */
  readonly remaining: ReadonlyMap<string, number>;
  /** Objects still held per finalizer. */
  readonly finalizers: ReadonlyMap<string, number>;
}

/**
 * The deletion conditions Kubernetes' namespace controller reports, with its types, reasons and
 * message shapes. All four are written at every sync (False once the problem is gone), so a
 * reader sees what the last sync found.
 */
export function deletionConditions(state: DeletionState): NamespaceCondition[] {
  const counts = (map: ReadonlyMap<string, number>, fmt: (name: string, n: number) => string) =>
    [...map].sort(([a], [b]) => a.localeCompare(b)).map(([name, n]) => fmt(name, n)).join(', ');
  return [
    state.discoveryFailures.length > 0
      ? cond('NamespaceDeletionDiscoveryFailure', 'True', 'DiscoveryFailed', `Discovery failed for some groups, ${state.discoveryFailures.length} failing: ${state.discoveryFailures.join(', ')}`)
      : cond('NamespaceDeletionDiscoveryFailure', 'False', 'ResourcesDiscovered', 'All resources successfully discovered'),
    state.contentFailures.length > 0
      ? cond('NamespaceDeletionContentFailure', 'True', 'ContentDeletionFailed', `Failed to delete all resource types, ${state.contentFailures.length} remaining: ${state.contentFailures.join(', ')}`)
      : cond('NamespaceDeletionContentFailure', 'False', 'ContentDeleted', 'All content successfully deleted, may be waiting on finalization'),
    state.remaining.size > 0
      ? cond('NamespaceContentRemaining', 'True', 'SomeResourcesRemain', `Some resources are remaining: ${counts(state.remaining, (r, n) => `${r} has ${n} resource instances`)}`)
      : cond('NamespaceContentRemaining', 'False', 'ContentRemoved', 'All content successfully removed'),
    state.finalizers.size > 0
      ? cond('NamespaceFinalizersRemaining', 'True', 'SomeFinalizersRemain', `Some content in the namespace has finalizers remaining: ${counts(state.finalizers, (f, n) => `${f} in ${n} resource instances`)}`)
      : cond('NamespaceFinalizersRemaining', 'False', 'ContentHasNoFinalizers', 'All content-preserving finalizers finished'),
  ];
}

const cond = (type: string, status: 'True' | 'False', reason: string, message: string): NamespaceCondition => ({ type, status, reason, message });

/**
 * `current` with `wanted` merged in: a condition whose status did not change keeps its
 * lastTransitionTime; conditions of other types are kept. `undefined` when nothing changed (no
 * write, and no update event that would trigger another sync).
 */
export function mergeConditions(current: readonly NamespaceCondition[], wanted: readonly NamespaceCondition[], now: string): NamespaceCondition[] | undefined {
  let changed = false;
  const byType = new Map(current.map((c) => [c.type, c]));
  for (const next of wanted) {
    const old = byType.get(next.type);
    if (old && old.status === next.status && old.reason === next.reason && old.message === next.message) continue;
    changed = true;
    byType.set(next.type, { ...next, lastTransitionTime: old && old.status === next.status && old.lastTransitionTime ? old.lastTransitionTime : now });
  }
  return changed ? [...byType.values()] : undefined;
}
