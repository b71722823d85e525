import type { MonoTypeOperatorFunction } from 'rxjs';
import { changedBy, same } from './changedInternals.js';
import type { ObjectLike, UpdateEvent } from './objects.js';

/**
 * Keeps the update events whose `metadata.resourceVersion` changed: drops the resync echoes an
 * informer sends with the same object as `old` and `new`.
 *
 * Like `filter(e => e.old.metadata.resourceVersion !== e.new.metadata.resourceVersion)`, but
 * events without both `old` and `new` (adds and deletes) always pass, as in controller-runtime's
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
 * of({ old: v7, new: v7 }).pipe(resourceVersionChanged()).subscribe(console.log); // nothing
 *
 * @see generationChanged, labelsChanged, annotationsChanged — the sibling predicates
 * @see resync — the source of the echoes this drops
 */
export function resourceVersionChanged<E extends UpdateEvent<ObjectLike>>(): MonoTypeOperatorFunction<E> {
  return changedBy<E, string | undefined>((meta) => meta?.resourceVersion, same);
}
