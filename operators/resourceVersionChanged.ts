import type { MonoTypeOperatorFunction } from 'rxjs';
import { changedBy, same } from './changedInternals.js';
import type { ChangeEvent, ObjectLike } from './objectShapes.js';

/**
 * Keeps the update events whose `metadata.resourceVersion` changed: drops an informer's `resync`
 * events (the cached object announced again) and updates that carry the same version twice.
 *
 * Like `filter(e => e.old.metadata.resourceVersion !== e.object.metadata.resourceVersion)`, but
 * events without `old` (adds, deletes, watch events) always pass and resyncs never do, as in
 * controller-runtime's
 * `ResourceVersionChangedPredicate`.
 *
 * ```
 * source:   a-b-c-|      a = add, b = update rv 7→7 (resync), c = update rv 7→8
 * resourceVersionChanged()
 * result:   a---c-|
 * ```
 *
 * @example
 * import { of } from 'rxjs';
 * import { resourceVersionChanged } from 'svc/operators';
 * const v7 = { metadata: { name: 'web', resourceVersion: '7' } };
 * of({ type: 'resync', object: v7 }).pipe(resourceVersionChanged()).subscribe(console.log); // nothing
 *
 * @see generationChanged, labelsChanged, annotationsChanged — the sibling predicates
 * @see resync — the source of the echoes this drops
 */
export function resourceVersionChanged<E extends ChangeEvent<ObjectLike>>(): MonoTypeOperatorFunction<E> {
  return changedBy<E, string | undefined>((meta) => meta?.resourceVersion, same);
}
