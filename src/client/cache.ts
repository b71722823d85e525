import type { KubeObject } from '../api/index.js';
import { objectKey } from './resource.js';

/** The values an object is filed under in one index (e.g. its namespace, or its `k=v` labels). */
export interface IndexFunc<T> {
  (object: T): readonly string[];
  /**
   * The top-level members (`spec`, …) the values are worked out from, besides the object's key
   * (namespace and name), when that is all they read (`indexOn`). A lazy cache then keeps an
   * updated object's values without asking again when those members are the same bytes as
   * before: a pod's status write leaves its spec as it was, and reading the spec of both versions
   * (a view and a decode each) was most of what a pod index cost per event.
   */
  readonly reads?: readonly string[] | undefined;
}

/** `fn` as an index that reads nothing of an object but its key and its top-level members `reads` (IndexFunc.reads). */
export function indexOn<T>(reads: readonly string[], fn: (object: T) => readonly string[]): IndexFunc<T> {
  return Object.assign((object: T) => fn(object), { reads: Object.freeze([...reads]) });
}

/** Built-in index: an object's namespace (cluster-scoped objects: none). */
export const NAMESPACE_INDEX = 'namespace';
/** Built-in index: one entry per label, `key=value`. */
export const LABELS_INDEX = 'labels';

export const namespaceIndex: IndexFunc<KubeObject> = (object) => (object.metadata.namespace ? [object.metadata.namespace] : []);
export const labelsIndex: IndexFunc<KubeObject> = (object) => {
  const labels = object.metadata.labels;
  return labels ? Object.keys(labels).map((k) => `${k}=${labels[k]}`) : [];
};

/**
 * The read side of an informer's cache, handed to everyone. Objects are frozen and shared:
 * never copied on the way in or out, and never to be mutated (copy before changing one).
 */
export interface CacheReader<T extends KubeObject> {
  /** By key: `namespace/name`, or `name` for cluster-scoped objects. */
  get(key: string): T | undefined;
  getByName(name: string, namespace?: string): T | undefined;
  list(): T[];
  keys(): IterableIterator<string>;
  /** Objects filed under `value` in the index `indexName`; throws for an unknown index. */
  byIndex(indexName: string, value: string): T[];
  /** Keys filed under `value` in the index `indexName`. */
  indexKeys(indexName: string, value: string): string[];
  indexNames(): string[];
  readonly size: number;
}

/** A change the writer made, for the informer to announce. */
export type CacheChange<T> =
  | { readonly type: 'added'; readonly object: T }
  | { readonly type: 'updated'; readonly old: T; readonly object: T }
  | { readonly type: 'deleted'; readonly object: T; readonly finalStateUnknown: boolean };

/**
 * A cache's write side, as the informer drives it: CacheWriter (decoded objects) and
 * ViewCacheWriter (lazy/view-cache.ts: records behind views) both are one.
 */
export interface CacheWrites<T extends KubeObject> {
  readonly reader: CacheReader<T>;
  addIndexer(name: string, fn: IndexFunc<T>): void;
  upsert(object: T): CacheChange<T> | undefined;
  remove(last: T): CacheChange<T> | undefined;
  beginReplace(): void;
  stage(object: T): void;
  commitReplace(): CacheChange<T>[];
}

interface Index<T> {
  readonly fn: IndexFunc<T>;
  readonly byValue: Map<string, Set<string>>;
}

/**
 * The write side, owned by one reflector (the informer): the only code that changes the cache.
 * A relist is staged with `beginReplace` / `stage` and swapped in at once by `commitReplace`.
 */
export class CacheWriter<T extends KubeObject> implements CacheWrites<T> {
  #objects = new Map<string, T>();
  readonly #indexes = new Map<string, Index<T>>();
  /** The relist being staged: key → object (the cached one when its version did not change). */
  #staged: Map<string, T> | undefined;
  readonly reader: CacheReader<T>;

  constructor(indexers: Readonly<Record<string, IndexFunc<T>>> = {}) {
    for (const [name, fn] of Object.entries(indexers)) this.addIndexer(name, fn);
    const self = this;
    this.reader = Object.freeze({
      get: (key: string) => self.#objects.get(key),
      getByName: (name: string, namespace?: string) => self.#objects.get(namespace ? `${namespace}/${name}` : name),
      list: () => [...self.#objects.values()],
      keys: () => self.#objects.keys(),
      byIndex: (indexName: string, value: string) => self.#indexKeys(indexName, value).map((key) => self.#objects.get(key)!),
      indexKeys: (indexName: string, value: string) => self.#indexKeys(indexName, value),
      indexNames: () => [...self.#indexes.keys()],
      get size() {
        return self.#objects.size;
      },
    });
  }

  /** Adds an index (filled from the current content); a name already indexed is left as it is. */
  addIndexer(name: string, fn: IndexFunc<T>): void {
    if (this.#indexes.has(name)) return;
    const index: Index<T> = { fn, byValue: new Map() };
    this.#indexes.set(name, index);
    for (const [key, object] of this.#objects) this.#file(index, key, object);
  }

  #indexKeys(indexName: string, value: string): string[] {
    const index = this.#indexes.get(indexName);
    if (!index) throw new Error(`no index ${JSON.stringify(indexName)}`);
    const keys = index.byValue.get(value);
    return keys ? [...keys] : [];
  }

  #file(index: Index<T>, key: string, object: T): void {
    for (const value of index.fn(object)) {
      let keys = index.byValue.get(value);
      if (!keys) index.byValue.set(value, (keys = new Set()));
      keys.add(key);
    }
  }

  #unfile(index: Index<T>, key: string, object: T): void {
    for (const value of index.fn(object)) {
      const keys = index.byValue.get(value);
      if (!keys) continue;
      keys.delete(key);
      if (keys.size === 0) index.byValue.delete(value);
    }
  }

  #reindex(key: string, old: T | undefined, object: T | undefined): void {
    for (const index of this.#indexes.values()) {
      if (old && object) {
        // Most updates leave an object's index values as they were: then nothing moves.
        const before = index.fn(old);
        const after = index.fn(object);
        if (before.length === after.length && before.every((v, i) => v === after[i])) continue;
      }
      if (old) this.#unfile(index, key, old);
      if (object) this.#file(index, key, object);
    }
  }

  /**
   * Stores a new version. Nothing changes (undefined) when the cache holds the same
   * resourceVersion already: a re-sent object is not an update.
   */
  upsert(object: T): CacheChange<T> | undefined {
    const key = objectKey(object);
    const old = this.#objects.get(key);
    if (old && old.metadata.resourceVersion === object.metadata.resourceVersion) return undefined;
    this.#objects.set(key, object);
    this.#reindex(key, old, object);
    return old ? { type: 'updated', old, object } : { type: 'added', object };
  }

  /** Removes the object `last` names; `last` (the DELETED event's object) is what is announced. */
  remove(last: T): CacheChange<T> | undefined {
    const key = objectKey(last);
    const old = this.#objects.get(key);
    if (!old) return undefined;
    this.#objects.delete(key);
    this.#reindex(key, old, undefined);
    return { type: 'deleted', object: last, finalStateUnknown: false };
  }

  /** Starts staging a relist (dropping any unfinished one). */
  beginReplace(): void {
    this.#staged = new Map();
  }

  /** Stages one object of the relist; an unchanged version keeps the cached object (one copy in memory). */
  stage(object: T): void {
    const staged = this.#staged ?? (this.#staged = new Map());
    const key = objectKey(object);
    const old = this.#objects.get(key);
    staged.set(key, old && old.metadata.resourceVersion === object.metadata.resourceVersion ? old : object);
  }

  /**
   * Swaps the staged relist in, in one step, and returns what changed: adds, updates (version
   * changed), and deletes with `finalStateUnknown` for objects the relist no longer has.
   */
  commitReplace(): CacheChange<T>[] {
    const staged = this.#staged ?? new Map<string, T>();
    this.#staged = undefined;
    const changes: CacheChange<T>[] = [];
    for (const [key, object] of staged) {
      const old = this.#objects.get(key);
      if (old === object) continue;
      this.#reindex(key, old, object);
      changes.push(old ? { type: 'updated', old, object } : { type: 'added', object });
    }
    for (const [key, old] of this.#objects) {
      if (staged.has(key)) continue;
      this.#reindex(key, old, undefined);
      changes.push({ type: 'deleted', object: old, finalStateUnknown: true });
    }
    this.#objects = staged;
    return changes;
  }
}

/** Freezes an object and everything in it, in place; returns it. */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  if (Array.isArray(value)) for (const item of value) deepFreeze(item);
  // for…in allocates no key array; decoded JSON has no inherited enumerable keys.
  else for (const key in value) deepFreeze((value as Record<string, unknown>)[key]);
  return value;
}
