import { filter, type MonoTypeOperatorFunction } from 'rxjs';
import type { ChangeEvent, ObjectLike, ObjectMetaLike } from './objectShapes.js';

/**
 * The loop the `…Changed` predicates share: keep an update event when `equal` says the selected
 * metadata differs between `old` and `object`; always keep events without `old` (adds, deletes,
 * watch events). A `resync` event is an update from the object to itself: never kept.
 */
export function changedBy<E extends ChangeEvent<ObjectLike>, V>(
  select: (meta: ObjectMetaLike | undefined) => V,
  equal: (a: V, b: V) => boolean,
): MonoTypeOperatorFunction<E> {
  return filter((event: E) => {
    const after = event.object;
    // A resync announces the cached object again: an update with itself as `old` (controller-runtime's view).
    const before = event.old ?? (event.type === 'resync' ? after : undefined);
    if (before === undefined) return true;
    return !equal(select(before.metadata), select(after.metadata));
  });
}

/** Two string maps with the same entries; an absent map equals an empty one. */
export function sameStringMap(a: Readonly<Record<string, string>> | undefined, b: Readonly<Record<string, string>> | undefined): boolean {
  if (a === b) return true;
  let count = 0;
  if (a !== undefined) {
    for (const key in a) {
      if (b === undefined || b[key] !== a[key] || !Object.hasOwn(b, key)) return false;
      count++;
    }
  }
  if (b !== undefined) for (const _ in b) if (--count < 0) return false;
  return true;
}

export const same = <V>(a: V, b: V): boolean => a === b;
