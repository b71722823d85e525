import type { MonoTypeOperatorFunction } from 'rxjs';
import { changedBy, sameStringMap } from './changedInternals.js';
import type { ChangeEvent, ObjectLike } from './objectShapes.js';

/**
 * Keeps the update events whose `metadata.annotations` changed (compared entry by entry).
 *
 * Like `filter(e => !isEqual(e.old.metadata.annotations, e.object.metadata.annotations))`, but events
 * without `old` (adds, deletes, watch events) always pass and resyncs never do, as in
 * controller-runtime's
 * `AnnotationChangedPredicate`; an absent annotation map equals an empty one.
 *
 * ```
 * source:   a-b-c-|      a = add, b = update {x: 1}→{x: 1}, c = update {x: 1}→{}
 * annotationsChanged()
 * result:   a---c-|
 * ```
 *
 * @example
 * import { of } from 'rxjs';
 * import { annotationsChanged } from 'svc/operators';
 * const before = { metadata: { name: 'web', annotations: { note: 'a' } } };
 * of({ type: 'updated', old: before, object: before }).pipe(annotationsChanged()).subscribe(console.log); // nothing
 *
 * @see generationChanged, labelsChanged, resourceVersionChanged — the sibling predicates
 */
export function annotationsChanged<E extends ChangeEvent<ObjectLike>>(): MonoTypeOperatorFunction<E> {
  return changedBy<E, Readonly<Record<string, string>> | undefined>((meta) => meta?.annotations, sameStringMap);
}
