import type { KubeObject } from '../../api/index.js';
import { labelsIndex, namespaceIndex, type CacheChange, type CacheReader, type CacheWrites, type IndexFunc } from '../cache.js';
import { ownerIndex } from '../owner-index.js';
import { recordOf, type CachedRecord } from './cached-record.js';
import { lazyObject } from './json-view.js';

interface Index<T> {
  readonly fn: IndexFunc<T>;
  readonly byValue: Map<string, Set<string>>;
}

/**
 * The lazy cache's write side: CacheWriter's contract (same methods, same changes announced,
 * same reader), but it keeps one record per object (cached-record.ts) — the version's JSON text
 * (json-view.ts) or protobuf message bytes (proto-view.ts), plus name, namespace, version and
 * where the labels and owners are — instead of a decoded object. Readers get the records' views,
 * decoded field by field when read. The built-in `namespace`, `labels` and `owner` indexes are
 * computed from the record without a view (an update whose labels or owners are the same bytes
 * decodes nothing); other indexers are given a view, and one that declares the members it reads
 * (IndexFunc.reads) is not asked about an update that leaves those members the same bytes. An object that is not a view (a
 * transform's result, an eagerly decoded object) is stored as the text of its JSON.stringify.
 */
export class ViewCacheWriter<T extends KubeObject> implements CacheWrites<T> {
  #records = new Map<string, CachedRecord>();
  readonly #indexes = new Map<string, Index<T>>();
  #staged: Map<string, CachedRecord> | undefined;
  readonly reader: CacheReader<T>;

  constructor(indexers: Readonly<Record<string, IndexFunc<T>>> = {}) {
    for (const [name, fn] of Object.entries(indexers)) this.addIndexer(name, fn);
    const self = this;
    const view = (record: CachedRecord | undefined) => record?.view<T>();
    this.reader = Object.freeze({
      get: (key: string) => view(self.#records.get(key)),
      getByName: (name: string, namespace?: string) => view(self.#records.get(namespace ? `${namespace}/${name}` : name)),
      list: () => Array.from(self.#records.values(), (record) => record.view<T>()),
      keys: () => self.#records.keys(),
      byIndex: (indexName: string, value: string) => self.#indexKeys(indexName, value).map((key) => self.#records.get(key)!.view<T>()),
      indexKeys: (indexName: string, value: string) => self.#indexKeys(indexName, value),
      indexNames: () => [...self.#indexes.keys()],
      get size() {
        return self.#records.size;
      },
    });
  }

  addIndexer(name: string, fn: IndexFunc<T>): void {
    if (this.#indexes.has(name)) return;
    const index: Index<T> = { fn, byValue: new Map() };
    this.#indexes.set(name, index);
    for (const [key, record] of this.#records) this.#file(index, key, this.#values(index, record));
  }

  #values(index: Index<T>, record: CachedRecord): readonly string[] {
    if (index.fn === (namespaceIndex as IndexFunc<unknown>)) return record.namespace ? [record.namespace] : [];
    if (index.fn === (labelsIndex as IndexFunc<unknown>)) return record.labelValues();
    if (index.fn === (ownerIndex as IndexFunc<unknown>)) return record.ownerValues();
    return index.fn(record.view<T>());
  }

  #indexKeys(indexName: string, value: string): string[] {
    const index = this.#indexes.get(indexName);
    if (!index) throw new Error(`no index ${JSON.stringify(indexName)}`);
    const keys = index.byValue.get(value);
    return keys ? [...keys] : [];
  }

  #file(index: Index<T>, key: string, values: readonly string[]): void {
    for (const value of values) {
      let keys = index.byValue.get(value);
      if (!keys) index.byValue.set(value, (keys = new Set()));
      keys.add(key);
    }
  }

  #unfile(index: Index<T>, key: string, values: readonly string[]): void {
    for (const value of values) {
      const keys = index.byValue.get(value);
      if (!keys) continue;
      keys.delete(key);
      if (keys.size === 0) index.byValue.delete(value);
    }
  }

  #reindex(key: string, old: CachedRecord | undefined, record: CachedRecord | undefined): void {
    for (const index of this.#indexes.values()) {
      // Most updates leave the labels as they were: equal bytes need no decoding. The namespace is
      // part of the key, so two versions under one key share it.
      if (old && record && index.fn === (labelsIndex as IndexFunc<unknown>) && old.sameLabels(record)) continue;
      if (old && record && index.fn === (ownerIndex as IndexFunc<unknown>) && old.sameOwners(record)) continue;
      if (old && record && index.fn === (namespaceIndex as IndexFunc<unknown>)) continue;
      // An index that reads members the update left as they were keeps its values.
      if (old && record && index.fn.reads !== undefined && old.sameMembers(record, index.fn.reads)) continue;
      const before = old ? this.#values(index, old) : [];
      const after = record ? this.#values(index, record) : [];
      if (before.length === after.length && before.every((v, i) => v === after[i])) continue;
      this.#unfile(index, key, before);
      this.#file(index, key, after);
    }
  }

  /** The record of a view, or a new one holding the object's JSON text. */
  #record(object: T): CachedRecord {
    return recordOf(object) ?? recordOf(lazyObject(JSON.stringify(object), 0))!;
  }

  upsert(object: T): CacheChange<T> | undefined {
    const record = this.#record(object);
    const key = record.key;
    const old = this.#records.get(key);
    if (old && old.resourceVersion === record.resourceVersion) return undefined;
    this.#records.set(key, record);
    this.#reindex(key, old, record);
    const view = record.view<T>();
    if (!old) return { type: 'added', object: view };
    // The old view is made now, not behind a getter: a view costs a Proxy over bytes already
    // held, while an object literal with a getter costs V8 several times that, per event.
    return { type: 'updated', old: old.lastView<T>(), object: view };
  }

  remove(last: T): CacheChange<T> | undefined {
    const record = this.#record(last);
    const key = record.key;
    const old = this.#records.get(key);
    if (!old) return undefined;
    this.#records.delete(key);
    this.#reindex(key, old, undefined);
    return { type: 'deleted', object: record.view<T>(), finalStateUnknown: false };
  }

  beginReplace(): void {
    this.#staged = new Map();
  }

  stage(object: T): void {
    const staged = this.#staged ?? (this.#staged = new Map());
    const record = this.#record(object);
    const old = this.#records.get(record.key);
    staged.set(record.key, old && old.resourceVersion === record.resourceVersion ? old : record);
  }

  commitReplace(): CacheChange<T>[] {
    const staged = this.#staged ?? new Map<string, CachedRecord>();
    this.#staged = undefined;
    const changes: CacheChange<T>[] = [];
    for (const [key, record] of staged) {
      const old = this.#records.get(key);
      if (old === record) continue;
      this.#reindex(key, old, record);
      changes.push(old ? { type: 'updated', old: old.lastView<T>(), object: record.view<T>() } : { type: 'added', object: record.view<T>() });
    }
    for (const [key, old] of this.#records) {
      if (staged.has(key)) continue;
      this.#reindex(key, old, undefined);
      changes.push({ type: 'deleted', object: old.lastView<T>(), finalStateUnknown: true });
    }
    this.#records = staged;
    return changes;
  }
}
