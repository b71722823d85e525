import type { MonoTypeOperatorFunction } from 'rxjs';
import { changedBy, same } from './changedInternals.js';
import type { ObjectLike, UpdateEvent } from './objects.js';

/**
 * Keeps the update events whose `metadata.generation` changed: spec changes, not status writes.
 *
 * Like `filter(e => e.old.metadata.generation !== e.new.metadata.generation)`, but events without
 * both `old` and `new` (adds and deletes) always pass, as in controller-runtime's
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
 * of({ old: v1, new: v1 }, { old: v1, new: v2 }).pipe(generationChanged()).subscribe(console.log);
 * // { old: v1, new: v2 }
 *
 * @see labelsChanged, annotationsChanged, resourceVersionChanged — the sibling predicates
 */
export function generationChanged<E extends UpdateEvent<ObjectLike>>(): MonoTypeOperatorFunction<E> {
  return changedBy<E, number | undefined>((meta) => meta?.generation, same);
}
