import { prefixEnd, type Tree } from './btree.js';
import type { CachedObject } from './cached-object.js';
import type { CacheFilter } from './events.js';

export interface CacheListOptions<T> {
  /** Keys under this prefix (default: the cache's prefix); it must lie under the cache's prefix. */
  readonly prefix?: string;
  /** First key to consider (inclusive), under `prefix`: the continue point of a paged list. */
  readonly startKey?: string;
  /** At most this many items (default or 0: all). */
  readonly limit?: number;
  readonly filter?: CacheFilter<T>;
}

export interface CacheList<T> {
  readonly items: CachedObject<T>[];
  /** The revision the items were read at: pass it to `listAt` for the next page. */
  readonly revision: number;
  /** How many matching keys the same state holds after the last item. */
  readonly remaining: number;
}

/** One page of `tree` (options already validated). */
export function listTree<T>(tree: Tree<CachedObject<T>>, prefix: string, options: CacheListOptions<T>, revision: number): CacheList<T> {
  const { filter } = options;
  const limit = options.limit || Infinity;
  const start = options.startKey ?? prefix;
  const end = prefixEnd(prefix);
  const items: CachedObject<T>[] = [];
  if (filter) {
    // Whether a key after the page matches is only known by testing it: scan to the end.
    let remaining = 0;
    tree.forRange(start, end, false, (_key, version) => {
      if (!filter(version)) return;
      if (items.length < limit) items.push(version);
      else remaining++;
    });
    return { items, revision, remaining };
  }
  let next: string | undefined;
  tree.forRange(start, end, false, (key, version) => {
    if (items.length === limit) {
      next = key;
      return { break: true };
    }
    items.push(version);
  });
  // Without a callback the tree counts a range a leaf at a time, not an entry at a time.
  const remaining = next === undefined ? 0 : tree.forRange(next, end, false);
  return { items, revision, remaining };
}
