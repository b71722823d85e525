import { isStorageError, storePages, type Store } from '../storage/index.js';
import { newTree, type Tree } from './btree.js';
import type { CachedVersion } from './cached-object.js';
import type { CacheEvent } from './events.js';
import type { Versions } from './versions.js';

export interface Listed<T> {
  readonly tree: Tree<CachedVersion<T>>;
  readonly revision: number;
}

/**
 * Reads every object under `prefix` at one revision, a page at a time, into a new tree: only
 * one page of stored values is ever held besides the tree. A version the cache already holds
 * (same key, same modRevision) is reused instead of decoded again, so a relist of a mostly
 * unchanged collection allocates almost nothing. If the list's revision is compacted between
 * pages the list starts over at the current revision.
 */
export async function listStore<T>(
  store: Store,
  prefix: string,
  pageSize: number,
  versions: Versions<T>,
  current: Tree<CachedVersion<T>> | undefined,
  stopped: () => boolean,
): Promise<Listed<T> | undefined> {
  for (;;) {
    const tree = newTree<CachedVersion<T>>();
    let revision: number | undefined;
    try {
      for await (const page of storePages(store, prefix, { pageSize })) {
        if (stopped()) return undefined;
        revision = page.revision;
        for (const kv of page.items) {
          const known = current?.get(kv.key);
          const version = known?.revision === kv.modRevision ? known : versions.fromKeyValue(kv);
          if (version) tree.set(kv.key, version);
        }
      }
      // An empty collection is one page: its revision is the list's.
      return { tree, revision: revision! };
    } catch (error) {
      if (!isStorageError(error, 'Compacted') || revision === undefined) throw error;
    }
  }
}

/**
 * What changed between the state the cache had and a fresh list at `revision`, as events for the
 * watchers that lived through the gap: a vanished key is DELETED (its last state stamped with
 * `revision`, since the real delete's revision is gone), a changed one MODIFIED, a new one ADDED.
 * Ordered by revision, so watchers still see revisions never go down.
 */
export function diffStates<T>(versions: Versions<T>, before: Tree<CachedVersion<T>>, after: Tree<CachedVersion<T>>, revision: number): CacheEvent<T>[] {
  const events: CacheEvent<T>[] = [];
  const a = before.entries();
  const b = after.entries();
  const step = (it: Iterator<[string, CachedVersion<T>]>) => {
    const r = it.next();
    return r.done ? undefined : r.value;
  };
  let x = step(a);
  let y = step(b);
  while (x || y) {
    if (x && y && x[0] === y[0]) {
      if (x[1] !== y[1]) events.push({ type: 'MODIFIED', revision: y[1].revision, object: y[1], prev: x[1] });
      x = step(a);
      y = step(b);
    } else if (x && (!y || x[0] < y[0])) {
      const object = versions.deleted(x[0], revision, x[1]);
      if (object) events.push({ type: 'DELETED', revision, object, prev: x[1] });
      x = step(a);
    } else if (y) {
      events.push({ type: 'ADDED', revision: y[1].revision, object: y[1] });
      y = step(b);
    }
  }
  return events.sort((p, q) => p.revision - q.revision);
}
