import type { MonoTypeOperatorFunction } from 'rxjs';
import { changedBy, sameStringMap } from './changedInternals.js';
import type { ChangeEvent, ObjectLike } from './objectShapes.js';

/**
 * Keeps the update events whose `metadata.labels` changed (compared entry by entry).
 *
 * Like `filter(e => !isEqual(e.old.metadata.labels, e.object.metadata.labels))`, but events without
 * `old` (adds, deletes, watch events) always pass and resyncs never do, as in controller-runtime's
 * `LabelChangedPredicate`; an absent label map equals an empty one.
 *
 * ```
 * source:   a-b-c-|      a = add, b = update {app: web}→{app: web}, c = update {app: web}→{app: api}
 * labelsChanged()
 * result:   a---c-|
 * ```
 *
 * @example
 * import { of } from 'rxjs';
 * import { labelsChanged } from 'svc/operators';
 * const before = { metadata: { name: 'web', labels: { app: 'web' } } };
 * const after = { metadata: { name: 'web', labels: { app: 'api' } } };
 * of({ type: 'updated', old: before, object: after }).pipe(labelsChanged()).subscribe(console.log); // the event
 *
 * @see generationChanged, annotationsChanged, resourceVersionChanged — the sibling predicates
 */
export function labelsChanged<E extends ChangeEvent<ObjectLike>>(): MonoTypeOperatorFunction<E> {
  return changedBy<E, Readonly<Record<string, string>> | undefined>((meta) => meta?.labels, sameStringMap);
}
