import { chmodSync, closeSync, existsSync, fdatasync, openSync } from 'node:fs';
import type Database from 'better-sqlite3';
import { Subject, type Observable } from 'rxjs';
import { bytesCodec, decodeStored, tryDecodeStored, type ValueCodec } from './value-codec.js';
import {
  StorageError,
  alreadyExists,
  checkOpen,
  closed,
  compacted,
  conflict,
  futureRevision,
  notFound,
} from './storage-error.js';
import { EventFanout, watchFromLog } from './fanout.js';
import { sqliteDatabase } from './sqlite-driver.js';
import { DEFAULT_PREFIX, EXPIRE_BATCH, checkKey, checkLimit, checkPrefixOption, checkRangePrefix, checkRevision, checkTtl, prefixEnd, rangeStart } from './keys.js';
import type { GetOptions, KeyValue, ListOptions, ListResult, Store, StoreEvent, WriteOptions } from './store.js';

/**
 * The database holds every object, Secrets and tokens too: its file is made (or set) mode 0600
 * before SQLite opens it, whatever the umask or the data dir's mode. SQLite creates the WAL and
 * shared-memory files with the database file's mode; ones an older version left are set too.
 */
function ownerOnly(path: string): void {
  if (path === '' || path === ':memory:' || path.startsWith('file:')) return;
  closeSync(openSync(path, 'a', 0o600));
  for (const file of [path, `${path}-wal`, `${path}-shm`]) if (existsSync(file)) chmodSync(file, 0o600);
}

export interface SqliteStoreOptions<V> {
  /** The database file (created when missing). */
  path: string;
  prefix?: string;
  codec?: ValueCodec<V>;
  /**
   * `FULL` (the default): the WAL is on disk before a write is acknowledged or seen, so it
   * survives a crash of the process *and* of the machine. The fsync of each group commit runs on
   * libuv's thread pool, not in SQLite's commit (SQLite itself runs with `synchronous = NORMAL`),
   * so the event loop serves requests and watches while the disk syncs. `NORMAL` survives a
   * process crash only. A database that is not a plain file (`:memory:`, `file:` URIs) lets
   * SQLite sync inside the commit.
   */
  synchronous?: 'FULL' | 'NORMAL';
  /** Revisions compacted per transaction, so a large compaction never blocks writers for long. */
  compactionChunk?: number;
  /** The clock of keys' time to live, in ms since the epoch (default Date.now; tests pass their own and call `expire`). */
  now?: () => number;
}

/** Writes held while an fsync runs before they commit without waiting for it (enqueue). */
const HELD_WRITES = 64;

/*
 * Schema. `log` is the MVCC history: one row per write, its rowid the global revision. `live`
 * maps each existing key to its newest revision, so current reads never scan history (the
 * `GROUP BY key` over all revisions that makes kine's lists slow is left to historical reads),
 * and to when it expires (ms since the epoch) if its last write gave it a time to live: set by
 * the same statement that records the revision, so a write pays nothing more for it, and indexed
 * only where set (EXPIRY_INDEX), so the sweep reads just the keys due.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS log (
  rev        INTEGER PRIMARY KEY,
  key        TEXT    NOT NULL,
  create_rev INTEGER NOT NULL,
  prev_rev   INTEGER,
  deleted    INTEGER NOT NULL,
  value      BLOB
);
CREATE INDEX IF NOT EXISTS log_key_rev ON log (key, rev);
CREATE TABLE IF NOT EXISTS live (key TEXT PRIMARY KEY, rev INTEGER NOT NULL, expires INTEGER) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
`;

/** After the `expires` column exists (a database from before it gets the column first). */
const EXPIRY_INDEX = 'CREATE INDEX IF NOT EXISTS live_expires ON live (expires) WHERE expires IS NOT NULL;';

interface Row {
  key: string;
  rev: number;
  createRev: number;
  deleted?: number;
  value: Uint8Array | null;
}

/** key, rev, create_rev, value */
type RawRow = [string, number, number, Uint8Array];

/** rev, create_rev, value: the live version of a key a write names. */
type CurrentRow = [number, number, Uint8Array];

interface ReplayRow extends Row {
  prevValue: Uint8Array | null;
}

type WriteOp<V> =
  | { kind: 'create'; key: string; value: V; bytes: Uint8Array; expires: number | null }
  | { kind: 'update'; key: string; value: V; bytes: Uint8Array; expected: number; expires: number | null }
  | { kind: 'delete'; key: string; expected: number | undefined }
  | { kind: 'forceDelete'; key: string };

interface Pending<V> {
  op: WriteOp<V>;
  resolve(result: KeyValue<V> | number): void;
  reject(error: unknown): void;
}

/** What one write of a group commit came to. */
type Outcome<V> = { ok: true; result: KeyValue<V> | number } | { ok: false; error: unknown };

/**
 * The embedded default backend: one SQLite file in WAL mode. Writes are queued and committed in
 * groups: every write requested while the previous group commits joins the next transaction, so
 * 64 concurrent writers cost one fsync, not 64. Watches are fed from the commit path itself.
 * The file is locked exclusively: one process owns it.
 */
export class SqliteStore<V = Uint8Array> implements Store<V> {
  readonly backend = 'sqlite';
  readonly inProcess = true;
  readonly prefix: string;
  private readonly db: Database.Database;
  private readonly codec: ValueCodec<V>;
  private readonly fanout = new EventFanout<V>();
  private readonly closing = new Subject<never>();
  private readonly chunk: number;
  private readonly now: () => number;
  /** The last revision committed to SQLite (what the next write follows). */
  private rev: number;
  /**
   * The last revision on disk and published: what reads, watches and `revision()` see. It trails
   * `rev` while a group commit's fsync runs off the event loop.
   */
  private durableRev: number;
  private compactRev: number;
  /** The WAL's path when this store syncs it itself (see `synchronous`), and its descriptor once opened. */
  private readonly walPath: string | undefined;
  private walFd: number | undefined;
  /** Commits waiting for the next fsync, and whether one is running. */
  private unsynced: { events: StoreEvent<V>[]; settle: (failure?: StorageError) => void; rev: number }[] = [];
  private syncing: Promise<void> | undefined;
  private pending: Pending<V>[] = [];
  private flushScheduled = false;
  private isClosed = false;
  private readonly sql;
  /**
   * One transaction applying a batch, made once: better-sqlite3's `transaction()` builds four
   * wrapper functions and defines their properties each time it is called, which every group
   * commit (a Lease renewal alone in its turn is one) paid for.
   */
  private readonly applyBatch: (batch: readonly Pending<V>[], outcomes: Outcome<V>[], events: StoreEvent<V>[]) => void;

  constructor(options: SqliteStoreOptions<V>) {
    this.prefix = checkPrefixOption(options.prefix ?? DEFAULT_PREFIX);
    this.codec = options.codec ?? (bytesCodec as unknown as ValueCodec<V>);
    this.chunk = options.compactionChunk ?? 5000;
    this.now = options.now ?? Date.now;
    try {
      ownerOnly(options.path);
      this.db = new (sqliteDatabase())(options.path);
      this.db.pragma('journal_mode = WAL');
      const plainFile = options.path !== '' && options.path !== ':memory:' && !options.path.startsWith('file:');
      this.walPath = (options.synchronous ?? 'FULL') === 'FULL' && plainFile ? `${options.path}-wal` : undefined;
      this.db.pragma(`synchronous = ${this.walPath ? 'NORMAL' : (options.synchronous ?? 'FULL')}`);
      this.db.pragma('locking_mode = EXCLUSIVE');
      // 16 MiB of pages: enough for the B-tree interiors and recent writes. Reads of whole
      // collections come from the API server's watch cache, so a bigger page cache would hold
      // a second copy of the objects for nothing.
      this.db.pragma('cache_size = -16384');
      this.db.pragma('temp_store = MEMORY');
      this.db.exec(SCHEMA);
      const columns = this.db.prepare<[], { name: string }>("SELECT name FROM pragma_table_info('live')").all();
      if (!columns.some((c) => c.name === 'expires')) this.db.exec('ALTER TABLE live ADD COLUMN expires INTEGER;');
      this.db.exec(EXPIRY_INDEX);
    } catch (error) {
      throw new StorageError('Unavailable', `cannot open the sqlite store at ${options.path}: ${String(error)}`, {}, { cause: error });
    }
    const db = this.db;
    this.sql = {
      live: db.prepare<[string], Row>(
        'SELECT live.key AS key, l.rev AS rev, l.create_rev AS createRev, l.value AS value FROM live JOIN log l ON l.rev = live.rev WHERE live.key = ?',
      ),
      // A write's look at the key it changes: an array, without the key it already has (a row
      // object and the key's string made again cost more than the three values it reads).
      current: db.prepare<[string], CurrentRow>('SELECT l.rev, l.create_rev, l.value FROM live JOIN log l ON l.rev = live.rev WHERE live.key = ?').raw(true),
      at: db.prepare<[string, number], Row>(
        'SELECT key, rev, create_rev AS createRev, deleted, value FROM log WHERE key = ? AND rev <= ? ORDER BY rev DESC LIMIT 1',
      ),
      insert: db.prepare<[number, string, number, number | null, number, Uint8Array | null]>(
        'INSERT INTO log (rev, key, create_rev, prev_rev, deleted, value) VALUES (?, ?, ?, ?, ?, ?)',
      ),
      setLive: db.prepare<[string, number, number | null]>(
        'INSERT INTO live (key, rev, expires) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET rev = excluded.rev, expires = excluded.expires',
      ),
      due: db.prepare<[number, number], { key: string; rev: number }>(
        'SELECT key, rev FROM live WHERE expires IS NOT NULL AND expires <= ? ORDER BY expires LIMIT ?',
      ),
      unsetLive: db.prepare<[string]>('DELETE FROM live WHERE key = ?'),
      // Lists read rows as arrays: 100k row objects cost more than the bytes they carry.
      listLive: db
        .prepare<[string, string, number], RawRow>(
          'SELECT live.key, l.rev, l.create_rev, l.value FROM live JOIN log l ON l.rev = live.rev WHERE live.key >= ? AND live.key < ? ORDER BY live.key LIMIT ?',
        )
        .raw(true),
      countLive: db.prepare<[string, string], { n: number }>('SELECT count(*) AS n FROM live WHERE key > ? AND key < ?'),
      // SQLite fills bare columns from the row that holds max(rev): the version visible at the revision.
      listAt: db
        .prepare<[string, string, number, number], RawRow>(
          `SELECT key, rev, createRev, value FROM (
             SELECT key, max(rev) AS rev, create_rev AS createRev, deleted, value FROM log
             WHERE key >= ? AND key < ? AND rev <= ? GROUP BY key)
           WHERE deleted = 0 ORDER BY key LIMIT ?`,
        )
        .raw(true),
      countAt: db.prepare<[string, string, number], { n: number }>(
        `SELECT count(*) AS n FROM (
           SELECT max(rev), deleted FROM log WHERE key > ? AND key < ? AND rev <= ? GROUP BY key)
         WHERE deleted = 0`,
      ),
      replay: db.prepare<[number, string, string], ReplayRow>(
        `SELECT l.rev AS rev, l.key AS key, l.create_rev AS createRev, l.deleted AS deleted, l.value AS value, p.value AS prevValue
         FROM log l LEFT JOIN log p ON p.rev = l.prev_rev
         WHERE l.rev > ? AND l.key >= ? AND l.key < ? ORDER BY l.rev`,
      ),
      compactChunk: db.prepare<[number, number, number]>(
        `DELETE FROM log WHERE rev >= ? AND rev < ? AND (deleted = 1 OR EXISTS (
           SELECT 1 FROM log newer WHERE newer.key = log.key AND newer.rev > log.rev AND newer.rev <= ?))`,
      ),
      getMeta: db.prepare<[string], { value: number }>('SELECT value FROM meta WHERE name = ?'),
      setMeta: db.prepare<[string, number]>(
        'INSERT INTO meta (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value',
      ),
      maxRev: db.prepare<[], { rev: number | null }>('SELECT max(rev) AS rev FROM log'),
    };
    try {
      // Take the exclusive lock now, so a second process fails here rather than mid-write.
      db.exec('BEGIN IMMEDIATE; COMMIT;');
    } catch (error) {
      db.close();
      throw new StorageError('Unavailable', `the sqlite store at ${options.path} is in use by another process`, {}, { cause: error });
    }
    this.applyBatch = db.transaction((batch: readonly Pending<V>[], outcomes: Outcome<V>[], events: StoreEvent<V>[]) => {
      for (const { op } of batch) {
        try {
          outcomes.push({ ok: true, result: this.apply(op, events) });
        } catch (error) {
          if (!(error instanceof StorageError)) throw error;
          outcomes.push({ ok: false, error });
        }
      }
    });
    this.compactRev = this.sql.getMeta.get('compact_rev')?.value ?? 0;
    // Compaction never removes the newest row, so the log's last rowid is the current revision.
    this.rev = Math.max(this.sql.maxRev.get()?.rev ?? 0, this.compactRev);
    this.durableRev = this.rev;
  }

  async get(key: string, options: GetOptions = {}): Promise<KeyValue<V> | undefined> {
    checkOpen(this.isClosed);
    checkKey(key, this.prefix);
    const at = this.readRevision(options.revision);
    // The live table holds commits not yet on disk while an fsync runs: then read at the revision.
    const row = at === this.rev ? this.sql.live.get(key) : this.sql.at.get(key, at);
    return row && !row.deleted ? this.toKeyValue(row) : undefined;
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult<V>> {
    checkOpen(this.isClosed);
    checkRangePrefix(prefix, this.prefix);
    const at = this.readRevision(options.revision);
    const limit = options.limit === undefined ? 0 : checkLimit(options.limit);
    const start = rangeStart(prefix, options.startKey, this.prefix);
    const end = prefixEnd(prefix);
    const current = at === this.rev;
    const rows = current ? this.sql.listLive.all(start, end, limit || -1) : this.sql.listAt.all(start, end, at, limit || -1);
    const items = rows.map(
      ([key, rev, createRev, value]): KeyValue<V> => ({ key, value: decodeStored(this.codec, key, value), modRevision: rev, createRevision: createRev }),
    );
    let remaining = 0;
    if (limit > 0 && items.length === limit) {
      const last = items[items.length - 1]!.key;
      remaining = current ? this.sql.countLive.get(last, end)!.n : this.sql.countAt.get(last, end, at)!.n;
    }
    return { items, revision: at, remaining };
  }

  create(key: string, value: V, options?: WriteOptions): Promise<KeyValue<V>> {
    return this.enqueue(() => {
      checkKey(key, this.prefix);
      const expires = this.expiresAt(options);
      const checked = this.codec.check(value);
      return { kind: 'create', key, value: checked, bytes: this.codec.encode(checked), expires };
    }) as Promise<KeyValue<V>>;
  }

  update(key: string, value: V, expectedModRevision: number, options?: WriteOptions): Promise<KeyValue<V>> {
    return this.enqueue(() => {
      checkKey(key, this.prefix);
      checkRevision(expectedModRevision, 'expectedModRevision');
      const expires = this.expiresAt(options);
      const checked = this.codec.check(value);
      return { kind: 'update', key, value: checked, bytes: this.codec.encode(checked), expected: expectedModRevision, expires };
    }) as Promise<KeyValue<V>>;
  }

  /**
   * The due keys go in one group commit of compare-and-swap deletes on the revision that set
   * their expiry: one rewritten since (a Conflict) or deleted (NotFound) is left alone.
   */
  async expire(limit = EXPIRE_BATCH): Promise<number> {
    checkOpen(this.isClosed);
    checkLimit(limit);
    const due = this.sql.due.all(this.now(), limit || -1);
    const outcomes = await Promise.allSettled(due.map(({ key, rev }) => this.delete(key, rev)));
    const failed = outcomes.find(
      (o): o is PromiseRejectedResult => o.status === 'rejected' && !(o.reason instanceof StorageError && (o.reason.code === 'Conflict' || o.reason.code === 'NotFound')),
    );
    if (failed) throw failed.reason;
    return due.length;
  }

  delete(key: string, expectedModRevision?: number): Promise<KeyValue<V>> {
    return this.enqueue(() => {
      checkKey(key, this.prefix);
      if (expectedModRevision !== undefined) checkRevision(expectedModRevision, 'expectedModRevision');
      return { kind: 'delete', key, expected: expectedModRevision };
    }) as Promise<KeyValue<V>>;
  }

  forceDelete(key: string): Promise<number> {
    return this.enqueue(() => {
      checkKey(key, this.prefix);
      return { kind: 'forceDelete', key };
    }) as Promise<number>;
  }

  watch(prefix: string, fromRevision: number): Observable<StoreEvent<V>> {
    checkRangePrefix(prefix, this.prefix);
    checkRevision(fromRevision, 'fromRevision');
    const replay = this.sql.replay;
    const toEvent = (row: ReplayRow) => this.replayEvent(row);
    return watchFromLog(
      {
        check: (from) => {
          checkOpen(this.isClosed);
          if (from + 1 < this.compactRev) throw compacted(from, this.compactRev);
        },
        replay: (p: string, after: number) => this.replayRows(replay, toEvent, p, after),
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
    if (revision > this.durableRev) throw futureRevision(revision, this.durableRev);
    if (revision <= this.compactRev) return;
    const from = this.compactRev;
    // Reads below `revision` fail from now on, so rows may vanish underneath no reader.
    this.compactRev = revision;
    this.sql.setMeta.run('compact_rev', revision);
    for (let lo = from; lo < revision; lo += this.chunk) {
      const hi = Math.min(revision, lo + this.chunk);
      this.sql.compactChunk.run(lo, hi, revision);
      // Let queued writes commit between chunks.
      if (hi < revision) await new Promise((resolve) => setImmediate(resolve));
      if (this.isClosed) return;
    }
  }

  async compactedRevision(): Promise<number> {
    checkOpen(this.isClosed);
    return this.compactRev;
  }

  async revision(): Promise<number> {
    checkOpen(this.isClosed);
    return this.durableRev;
  }

  async close(): Promise<void> {
    if (this.isClosed) return;
    if (this.pending.length > 0) this.flush();
    this.isClosed = true;
    // Writes already committed are synced, published and acknowledged before the file closes.
    while (this.syncing) await this.syncing;
    if (this.walFd !== undefined) closeSync(this.walFd);
    this.db.close();
    this.closing.error(closed());
  }

  /** Retained events after `after`, up to what is on disk (a commit still syncing is published when synced). */
  private *replayRows(replay: Database.Statement<[number, string, string], ReplayRow>, toEvent: (row: ReplayRow) => StoreEvent<V>, p: string, after: number): Generator<StoreEvent<V>> {
    const upTo = this.durableRev;
    for (const row of replay.iterate(after, p, prefixEnd(p))) {
      if (row.rev > upTo) return;
      yield toEvent(row);
    }
  }

  private enqueue(prepare: () => WriteOp<V>): Promise<KeyValue<V> | number> {
    return new Promise((resolve, reject) => {
      if (this.isClosed) return reject(closed());
      let op: WriteOp<V>;
      try {
        op = prepare();
      } catch (error) {
        return reject(error);
      }
      this.pending.push({ op, resolve, reject });
      // While an fsync runs, writes wait for its end and then commit together (syncWal): each
      // would wait for the next fsync anyway, and one transaction for all of them writes each
      // touched page to the WAL once. Writes arriving one per loop turn (nodes' Lease renewals on
      // a quiet server) otherwise paid a transaction each. A burst past HELD_WRITES commits
      // meanwhile, as before, so a large group's commit still overlaps the fsync.
      if (!this.flushScheduled && (this.syncing === undefined || this.pending.length >= HELD_WRITES)) {
        this.flushScheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /**
   * Commits every queued write in one transaction, then tells watchers, then the writers.
   * `afterSync`: called by syncWal once every earlier commit is published.
   */
  private flush(afterSync = false): void {
    this.flushScheduled = false;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0 || this.isClosed) {
      for (const p of batch) p.reject(closed());
      return;
    }
    const startRev = this.rev;
    const outcomes: Outcome<V>[] = [];
    const events: StoreEvent<V>[] = [];
    try {
      this.applyBatch(batch, outcomes, events);
    } catch (error) {
      this.rev = startRev;
      const failure = new StorageError('Unavailable', `sqlite commit failed: ${String(error)}`, {}, { cause: error });
      for (const p of batch) p.reject(failure);
      return;
    }
    const settle = (failure?: StorageError) =>
      batch.forEach((p, i) => {
        const outcome = outcomes[i]!;
        if (failure && outcome.ok) p.reject(failure);
        else if (outcome.ok) p.resolve(outcome.result);
        else p.reject(outcome.error);
      });
    if (!this.walPath || (this.rev === startRev && (!this.syncing || (afterSync && this.unsynced.length === 0)))) {
      // SQLite synced inside the commit, or nothing was written and nothing waits for a sync: done now.
      // (A write refused while an earlier commit syncs is answered after it: a writer that lost a
      // race must find the winner when it reads again.)
      this.durableRev = this.rev;
      this.fanout.publish(events);
      settle();
      return;
    }
    this.unsynced.push({ events, settle, rev: this.rev });
    this.syncing ??= this.syncWal();
  }

  /**
   * fsyncs the WAL on the thread pool, then publishes and acknowledges every commit it covers, in
   * commit order; commits made meanwhile wait for the next fsync, which covers them all (one fsync
   * for any number of group commits). A failed fsync still publishes (SQLite holds the writes, and
   * the watch caches must follow the store) but answers the writers Unavailable: they cannot know
   * whether their write is on disk.
   */
  private async syncWal(): Promise<void> {
    while (this.unsynced.length > 0) {
      const covered = this.unsynced;
      this.unsynced = [];
      let failure: StorageError | undefined;
      try {
        this.walFd ??= openSync(this.walPath!, 'r');
        const fd = this.walFd;
        await new Promise<void>((resolve, reject) => fdatasync(fd, (error) => (error ? reject(error) : resolve())));
      } catch (error) {
        failure = new StorageError('Unavailable', `sqlite WAL sync failed: ${String(error)}`, {}, { cause: error });
      }
      this.durableRev = covered[covered.length - 1]!.rev;
      for (const commit of covered) {
        this.fanout.publish(commit.events);
        commit.settle(failure);
      }
      // The writes held while it ran (enqueue) commit now, in one transaction; their fsync is the loop's next.
      if (this.pending.length > 0 && !this.flushScheduled && !this.isClosed) this.flush(true);
    }
    this.syncing = undefined;
  }

  /** One write inside the group transaction; a StorageError fails only this write. */
  private apply(op: WriteOp<V>, events: StoreEvent<V>[]): KeyValue<V> | number {
    const { key } = op;
    const current = this.sql.current.get(key);
    if (op.kind === 'create') {
      if (current) throw alreadyExists(key);
      const rev = ++this.rev;
      this.sql.insert.run(rev, key, rev, null, 0, op.bytes);
      this.sql.setLive.run(key, rev, op.expires);
      events.push({ type: 'put', key, value: op.value, revision: rev, createRevision: rev });
      return { key, value: op.value, modRevision: rev, createRevision: rev };
    }
    if (!current) throw notFound(key);
    const [currentRev, createRev, currentValue] = current;
    if (op.kind === 'forceDelete') {
      const rev = ++this.rev;
      this.sql.insert.run(rev, key, createRev, currentRev, 1, null);
      this.sql.unsetLive.run(key);
      const prev = tryDecodeStored(this.codec, currentValue);
      events.push(prev.ok ? { type: 'delete', key, prevValue: prev.value, revision: rev } : { type: 'delete', key, revision: rev });
      return rev;
    }
    if (op.expected !== undefined && currentRev !== op.expected) throw conflict(key, op.expected, currentRev);
    const prevValue = decodeStored(this.codec, key, currentValue);
    const rev = ++this.rev;
    if (op.kind === 'update') {
      this.sql.insert.run(rev, key, createRev, currentRev, 0, op.bytes);
      this.sql.setLive.run(key, rev, op.expires);
      events.push({ type: 'put', key, value: op.value, prevValue, revision: rev, createRevision: createRev });
      return { key, value: op.value, modRevision: rev, createRevision: createRev };
    }
    this.sql.insert.run(rev, key, createRev, currentRev, 1, null);
    this.sql.unsetLive.run(key);
    events.push({ type: 'delete', key, prevValue, revision: rev });
    return { key, value: prevValue, modRevision: rev, createRevision: createRev };
  }

  /** When a write with these options expires, by the store's clock (null: never). */
  private expiresAt(options: WriteOptions | undefined): number | null {
    const ttl = checkTtl(options);
    return ttl === undefined ? null : this.now() + ttl * 1000;
  }

  private readRevision(revision: number | undefined): number {
    if (revision === undefined || checkRevision(revision) === 0) return this.durableRev;
    if (revision < this.compactRev) throw compacted(revision, this.compactRev);
    if (revision > this.durableRev) throw futureRevision(revision, this.durableRev);
    return revision;
  }

  private toKeyValue(row: Row): KeyValue<V> {
    return { key: row.key, value: decodeStored(this.codec, row.key, row.value!), modRevision: row.rev, createRevision: row.createRev };
  }

  private replayEvent(row: ReplayRow): StoreEvent<V> {
    if (row.deleted) {
      const prev = tryDecodeStored(this.codec, row.prevValue!);
      return prev.ok ? { type: 'delete', key: row.key, prevValue: prev.value, revision: row.rev } : { type: 'delete', key: row.key, revision: row.rev };
    }
    const value = decodeStored(this.codec, row.key, row.value!);
    return row.prevValue
      ? { type: 'put', key: row.key, value, prevValue: decodeStored(this.codec, row.key, row.prevValue), revision: row.rev, createRevision: row.createRev }
      : { type: 'put', key: row.key, value, revision: row.rev, createRevision: row.createRev };
  }



}
