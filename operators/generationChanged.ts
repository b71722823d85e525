import type { MonoTypeOperatorFunction } from 'rxjs';
import { changedBy, same } from './changedInternals.js';
import type { ChangeEvent, ObjectLike } from './objectShapes.js';

/**
 * Keeps the update events whose `metadata.generation` changed: spec changes, not status writes.
 *
 * Like `filter(e => e.old.metadata.generation !== e.object.metadata.generation)`, but events without
 * `old` (adds, deletes, watch events) always pass and resyncs never do, as in controller-runtime's
 * `GenerationChangedPredicate`. Kinds without a generation never pass an update.
 *
 * ```
 * source:   a-b-c-|      a = add, b = update gen 1→1 (status), c = update gen 1→2
 * generationChanged()
 * result:   a---c-|
 * ```
 *
 * @example
 * import { of } from 'rxjs';
 * import { generationChanged } from 'svc/operators';
 * const v1 = { metadata: { name: 'web', generation: 1 } };
 * const v2 = { metadata: { name: 'web', generation: 2 } };
 * of({ type: 'updated', old: v1, object: v1 }, { type: 'updated', old: v1, object: v2 }).pipe(generationChanged()).subscribe(console.log);
 * // { type: 'updated', old: v1, object: v2 }
 *
 * @see labelsChanged, annotationsChanged, resourceVersionChanged — the sibling predicates
 */
export function generationChanged<E extends ChangeEvent<ObjectLike>>(): MonoTypeOperatorFunction<E> {
  return changedBy<E, number | undefined>((meta) => meta?.generation, same);
}
