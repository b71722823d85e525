import { createRequire } from 'node:module';
import { Subject } from 'rxjs';
import type { Observable } from 'rxjs';
import { bytesCodec, decodeStored, tryDecodeStored, type ValueCodec } from './value-codec.js';
import {
  alreadyExists,
  checkOpen,
  closed,
  compacted,
  conflict,
  futureRevision,
  notFound,
} from './storage-error.js';
import { EventFanout, watchFromLog } from './fanout.js';
import { DEFAULT_PREFIX, EXPIRE_BATCH, checkKey, checkLimit, checkPrefixOption, checkRangePrefix, checkRevision, checkTtl, prefixEnd, rangeStart } from './keys.js';
import type { GetOptions, KeyValue, ListOptions, ListResult, Store, StoreEvent, WriteOptions } from './store.js';

// sorted-btree is CommonJS with `exports.default`; bundlers and Node disagree on what a default
// import of it yields, so require it the one way both agree on.
const { default: BTree } = createRequire(import.meta.url)('sorted-btree') as typeof import('sorted-btree');
type BTree<K, V> = import('sorted-btree').default<K, V>;

/** One version of a key; `bytes` undefined marks the tombstone a delete leaves. */
interface Version {
  readonly modRevision: number;
  readonly createRevision: number;
  readonly bytes: Uint8Array | undefined;
}

/** A committed change, kept for watch replay until compacted. */
interface LogEntry {
  readonly key: string;
  readonly version: Version;
  readonly prev: Version | undefined;
}

/**
 * The state of a memory store, separate from the Store object so that a store can be "reopened"
 * over the same data (as sqlite and etcd can) and two codecs can view one data set.
 */
export class MemoryData {
  revision = 0;
  compactedRevision = 0;
  /** Every key's versions, oldest first; a key whose history is all compacted away is removed. */
  readonly keys: BTree<string, Version[]> = new BTree<string, Version[]>();
  /** Committed changes with revision >= compactedRevision, in revision order. */
  readonly log: LogEntry[] = [];
  /** Offset: log[i] has revision logBase + i. */
  logBase = 1;
  readonly committed = new Subject<readonly LogEntry[]>();
  /** Keys written with a time to live: when (ms, by the store's clock) and the version it was given to. */
  readonly expiries = new Map<string, { readonly at: number; readonly modRevision: number }>();
}

export interface MemoryStoreOptions<V> {
  prefix?: string;
  codec?: ValueCodec<V>;
  data?: MemoryData;
  /** The clock of keys' time to live, in ms (default Date.now; tests pass their own and call `expire`). */
  now?: () => number;
}

/** The memory backend: full MVCC semantics in-process, for tests and throwaway clusters. */
export class MemoryStore<V = Uint8Array> implements Store<V> {
  readonly backend = 'memory';
  readonly inProcess = true;
  readonly prefix: string;
  readonly data: MemoryData;
  private readonly codec: ValueCodec<V>;
  private readonly fanout = new EventFanout<V>();
  private readonly closing = new Subject<never>();
  private isClosed = false;
  private readonly unfollow: () => void;
  private readonly now: () => number;

  constructor(options: MemoryStoreOptions<V> = {}) {
    this.prefix = checkPrefixOption(options.prefix ?? DEFAULT_PREFIX);
    this.now = options.now ?? Date.now;
    this.codec = options.codec ?? (bytesCodec as unknown as ValueCodec<V>);
    this.data = options.data ?? new MemoryData();
    // Several stores may share one MemoryData: each turns the committed entries into its own
    // decoded events. A value its codec cannot read poisons only the watches that reach it.
    const sub = this.data.committed.subscribe((entries) => this.fanout.publish(entries.map((e) => this.toEvent(e))));
    this.unfollow = () => sub.unsubscribe();
  }

  async get(key: string, options: GetOptions = {}): Promise<KeyValue<V> | undefined> {
    checkOpen(this.isClosed);
    checkKey(key, this.prefix);
    const at = this.readRevision(options.revision);
    const version = versionAt(this.data.keys.get(key), at);
    return version ? this.toKeyValue(key, version) : undefined;
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult<V>> {
    checkOpen(this.isClosed);
    checkRangePrefix(prefix, this.prefix);
    const at = this.readRevision(options.revision);
    const limit = options.limit === undefined ? 0 : checkLimit(options.limit);
    const start = rangeStart(prefix, options.startKey, this.prefix);
    const items: KeyValue<V>[] = [];
    let remaining = 0;
    this.data.keys.forRange(start, prefixEnd(prefix), false, (key, versions) => {
      const version = versionAt(versions, at);
      if (!version) return;
      if (limit === 0 || items.length < limit) items.push(this.toKeyValue(key, version));
      else remaining++;
    });
    return { items, revision: at, remaining };
  }

  async create(key: string, value: V, options?: WriteOptions): Promise<KeyValue<V>> {
    checkOpen(this.isClosed);
    checkKey(key, this.prefix);
    const ttl = checkTtl(options);
    const bytes = this.codec.encode(this.codec.check(value));
    const current = latest(this.data.keys.get(key));
    if (current) throw alreadyExists(key);
    const revision = this.data.revision + 1;
    this.commit(key, { modRevision: revision, createRevision: revision, bytes }, undefined);
    this.keepFor(key, revision, ttl);
    return { key, value, modRevision: revision, createRevision: revision };
  }

  async update(key: string, value: V, expectedModRevision: number, options?: WriteOptions): Promise<KeyValue<V>> {
    checkOpen(this.isClosed);
    checkKey(key, this.prefix);
    checkRevision(expectedModRevision, 'expectedModRevision');
    const ttl = checkTtl(options);
    const bytes = this.codec.encode(this.codec.check(value));
    const current = latest(this.data.keys.get(key));
    if (!current) throw notFound(key);
    if (current.modRevision !== expectedModRevision) throw conflict(key, expectedModRevision, current.modRevision);
    decodeStored(this.codec, key, current.bytes!);
    const revision = this.data.revision + 1;
    this.commit(key, { modRevision: revision, createRevision: current.createRevision, bytes }, current);
    this.keepFor(key, revision, ttl);
    return { key, value, modRevision: revision, createRevision: current.createRevision };
  }

  async delete(key: string, expectedModRevision?: number): Promise<KeyValue<V>> {
    checkOpen(this.isClosed);
    checkKey(key, this.prefix);
    if (expectedModRevision !== undefined) checkRevision(expectedModRevision, 'expectedModRevision');
    const current = latest(this.data.keys.get(key));
    if (!current) throw notFound(key);
    if (expectedModRevision !== undefined && current.modRevision !== expectedModRevision) {
      throw conflict(key, expectedModRevision, current.modRevision);
    }
    const value = decodeStored(this.codec, key, current.bytes!);
    const revision = this.data.revision + 1;
    this.commit(key, { modRevision: revision, createRevision: current.createRevision, bytes: undefined }, current);
    this.data.expiries.delete(key);
    return { key, value, modRevision: revision, createRevision: current.createRevision };
  }

  async forceDelete(key: string): Promise<number> {
    checkOpen(this.isClosed);
    checkKey(key, this.prefix);
    const current = latest(this.data.keys.get(key));
    if (!current) throw notFound(key);
    const revision = this.data.revision + 1;
    this.commit(key, { modRevision: revision, createRevision: current.createRevision, bytes: undefined }, current);
    this.data.expiries.delete(key);
    return revision;
  }

  async expire(limit = EXPIRE_BATCH): Promise<number> {
    checkOpen(this.isClosed);
    checkLimit(limit);
    const now = this.now();
    const due = [...this.data.expiries].filter(([key, e]) => e.at <= now && key.startsWith(this.prefix)).sort((a, b) => a[1].at - b[1].at);
    const batch = limit === 0 ? due : due.slice(0, limit);
    for (const [key, { modRevision }] of batch) {
      // Written again since (with another time or none), or gone: not this expiry's to delete.
      if (latest(this.data.keys.get(key))?.modRevision !== modRevision) {
        if (this.data.expiries.get(key)?.modRevision === modRevision) this.data.expiries.delete(key);
        continue;
      }
      await this.delete(key, modRevision);
    }
    return batch.length;
  }

  watch(prefix: string, fromRevision: number): Observable<StoreEvent<V>> {
    checkRangePrefix(prefix, this.prefix);
    checkRevision(fromRevision, 'fromRevision');
    const data = this.data;
    const toEvent = (entry: LogEntry) => this.toEvent(entry);
    return watchFromLog(
      {
        check: (from) => {
          checkOpen(this.isClosed);
          if (from + 1 < data.compactedRevision) throw compacted(from, data.compactedRevision);
        },
        replay: function* (p: string, after: number) {
          for (let i = Math.max(0, after + 1 - data.logBase); i < data.log.length; i++) {
            const entry = data.log[i]!;
            if (entry.key.startsWith(p)) yield toEvent(entry);
          }
        },
        fanout: this.fanout,
        closing: this.closing,
      },
      prefix,
      fromRevision,
    );
  }

  async compact(revision: number): Promise<void> {
    checkOpen(this.isClosed);
    checkRevision(revision);
    const data = this.data;
    if (revision > data.revision) throw futureRevision(revision, data.revision);
    if (revision <= data.compactedRevision) return;
    data.compactedRevision = revision;
    const emptied: string[] = [];
    data.keys.forEach((versions, key) => {
      const keep = compactVersions(versions, revision);
      if (keep === 0) emptied.push(key);
      else if (keep !== versions.length) versions.splice(0, versions.length - keep);
    });
    for (const key of emptied) data.keys.delete(key);
    const drop = Math.max(0, Math.min(data.log.length, revision - data.logBase));
    data.log.splice(0, drop);
    data.logBase += drop;
  }

  async compactedRevision(): Promise<number> {
    checkOpen(this.isClosed);
    return this.data.compactedRevision;
  }

  async revision(): Promise<number> {
    checkOpen(this.isClosed);
    return this.data.revision;
  }

  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    this.unfollow();
    this.closing.error(closed());
  }

  /** Remembers when the version just written expires (a write without a time to live clears it). */
  private keepFor(key: string, modRevision: number, ttlSeconds: number | undefined): void {
    if (ttlSeconds === undefined) this.data.expiries.delete(key);
    else this.data.expiries.set(key, { at: this.now() + ttlSeconds * 1000, modRevision });
  }

  private commit(key: string, version: Version, prev: Version | undefined): void {
    const data = this.data;
    data.revision = version.modRevision;
    let versions = data.keys.get(key);
    if (!versions) data.keys.set(key, (versions = []));
    versions.push(version);
    const entry: LogEntry = { key, version, prev };
    data.log.push(entry);
    data.committed.next([entry]);
  }

  private readRevision(revision: number | undefined): number {
    if (revision === undefined || checkRevision(revision) === 0) return this.data.revision;
    if (revision < this.data.compactedRevision) throw compacted(revision, this.data.compactedRevision);
    if (revision > this.data.revision) throw futureRevision(revision, this.data.revision);
    return revision;
  }

  private toKeyValue(key: string, version: Version): KeyValue<V> {
    return { key, value: decodeStored(this.codec, key, version.bytes!), modRevision: version.modRevision, createRevision: version.createRevision };
  }

  private toEvent(entry: LogEntry): StoreEvent<V> {
    const { key, version, prev } = entry;
    if (version.bytes === undefined) {
      const prevValue = tryDecodeStored(this.codec, prev!.bytes!);
      return prevValue.ok
        ? { type: 'delete', key, prevValue: prevValue.value, revision: version.modRevision }
        : { type: 'delete', key, revision: version.modRevision };
    }
    const value = decodeStored(this.codec, key, version.bytes);
    return prev?.bytes
      ? { type: 'put', key, value, prevValue: decodeStored(this.codec, key, prev.bytes), revision: version.modRevision, createRevision: version.createRevision }
      : { type: 'put', key, value, revision: version.modRevision, createRevision: version.createRevision };
  }



}

function latest(versions: Version[] | undefined): Version | undefined {
  const last = versions?.[versions.length - 1];
  return last?.bytes === undefined ? undefined : last;
}

/** The version visible at `revision` (undefined when absent or deleted then). */
function versionAt(versions: Version[] | undefined, revision: number): Version | undefined {
  if (!versions) return undefined;
  let lo = 0;
  let hi = versions.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (versions[mid]!.modRevision <= revision) lo = mid + 1;
    else hi = mid;
  }
  const version = lo === 0 ? undefined : versions[lo - 1];
  return version?.bytes === undefined ? undefined : version;
}

/**
 * How many of `versions` (from the end) survive compaction at `revision`: everything newer than
 * it, plus the version visible at it unless that is a tombstone older than it.
 */
function compactVersions(versions: Version[], revision: number): number {
  let i = versions.length;
  while (i > 0 && versions[i - 1]!.modRevision > revision) i--;
  const visible = versions[i - 1];
  const keepVisible = visible !== undefined && (visible.bytes !== undefined || visible.modRevision === revision);
  return versions.length - i + (keepVisible ? 1 : 0);
}
