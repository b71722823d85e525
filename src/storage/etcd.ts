import './etcd-stray-responses.js';
import etcd3 from 'etcd3';
import type { Etcd3, IKeyValue, IOptions, IRequestOp, IWatchResponse, Watcher } from 'etcd3';
import { Observable } from 'rxjs';
import { bytesCodec, decodeStored, tryDecodeStored, type ValueCodec } from './value-codec.js';
import {
  StorageError,
  alreadyExists,
  checkOpen,
  closed,
  compacted,
  conflict,
  futureRevision,
  invalid,
  notFound,
} from './storage-error.js';
import {
  DEFAULT_PREFIX,
  checkKey,
  checkLimit,
  checkPrefixOption,
  checkRangePrefix,
  checkRevision,
  checkTtl,
  prefixEnd,
  rangeStart,
} from './keys.js';
import { EtcdLeases } from './etcd-leases.js';
import type { GetOptions, KeyValue, ListOptions, ListResult, Store, StoreEvent, WriteOptions } from './store.js';

export interface EtcdStoreOptions<V> {
  /** Client URLs of the etcd members, e.g. `http://127.0.0.1:2379`. */
  endpoints: string[];
  /** The etcd key prefix every key lives under (kube's `--etcd-prefix`); default `/registry/`. */
  prefix?: string;
  codec?: ValueCodec<V>;
  /** How long `openEtcdStore` keeps trying to reach etcd (default 5 s). */
  dialTimeoutMs?: number;
  /** Deadline of each unary etcd request (default 15 s); watches have none. */
  requestTimeoutMs?: number;
}

/** What a failed etcd3 call means here; `read`/`compact` add details to compacted/future. */
type Failure = 'compacted' | 'future' | 'unavailable' | 'closed' | 'invalid';

const COMPACTED_MESSAGE = 'required revision has been compacted';
const FUTURE_MESSAGE = 'required revision is a future revision';
/**
 * Failures that prove a request never reached (or was refused before) raft, so even a write can be
 * retried: no connection, an open circuit breaker, or etcd without a leader. Anything else after a
 * write was sent (connection reset, deadline) is ambiguous: the write may have been applied.
 */
const NOT_SENT = /No connection established|ECONNREFUSED|circuit breaker is open|etcdserver: no leader|etcdserver: too many requests/i;
const RETRY_DELAYS_MS = [25, 50, 100, 200, 400, 800, 1200];

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
const buf = (text: string) => Buffer.from(text, 'latin1');
/** A plain Uint8Array view (no copy), so values compare equal to what other backends return. */
const bytes = (b: Buffer) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
const num = (value: string | number) => Number(value);
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

function classify(error: unknown): Failure {
  if (error instanceof etcd3.ClientClosedError) return 'closed';
  const message = messageOf(error);
  if (message.includes(COMPACTED_MESSAGE)) return 'compacted';
  if (message.includes(FUTURE_MESSAGE)) return 'future';
  // e.g. "etcdserver: request is too large": the request itself is at fault.
  if (error instanceof etcd3.GRPCInvalidArgumentError) return 'invalid';
  return 'unavailable';
}

/**
 * The etcd backend. Keys are stored as-is (the store prefix is the etcd key prefix), revisions
 * are etcd's. Open it with `openEtcdStore`.
 *
 * compactedRevision: etcd does not report its compacted revision directly (Status has no such
 * field and the etcd3 client drops a watch's compact_revision), but a range read at revision r
 * fails with "compacted" exactly when r < compactedRevision. The store keeps a lower bound (its
 * own compactions and what it learned) and checks it with one read; only when another client
 * compacted further does it binary-search the revisions (a few dozen reads at most).
 */
export class EtcdStore<V = Uint8Array> implements Store<V> {
  readonly backend = 'etcd';
  readonly inProcess = false;
  private isClosed = false;
  /** etcd's compacted revision is known to be at least this. */
  private knownCompacted = 0;
  /** Stops of live watches, run when the store closes. */
  private readonly watches = new Set<(error: StorageError) => void>();
  /** Watcher cancels still in flight; close() waits for them before closing the client. */
  private readonly cancelling = new Set<Promise<void>>();
  /** The leases of keys written with a time to live (shared by many writes, see etcd-leases.ts). */
  private readonly leases = new EtcdLeases({
    grant: async (ttlSeconds) => (await this.call(true, () => this.client.leaseClient.leaseGrant({ TTL: ttlSeconds }))).ID,
  });

  /** @internal use `openEtcdStore`. */
  constructor(
    private readonly client: Etcd3,
    readonly prefix: string,
    private readonly codec: ValueCodec<V>,
  ) {}

  async get(key: string, options: GetOptions = {}): Promise<KeyValue<V> | undefined> {
    checkOpen(this.isClosed);
    checkKey(key, this.prefix);
    const revision = options.revision === undefined ? 0 : checkRevision(options.revision);
    const res = await this.read(revision, () => this.client.kv.range({ key: buf(key), revision }));
    const kv = res.kvs[0];
    return kv ? this.toKeyValue(kv) : undefined;
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult<V>> {
    checkOpen(this.isClosed);
    checkRangePrefix(prefix, this.prefix);
    const revision = options.revision === undefined ? 0 : checkRevision(options.revision);
    const limit = options.limit === undefined ? 0 : checkLimit(options.limit);
    const start = rangeStart(prefix, options.startKey, this.prefix);
    const res = await this.read(revision, () =>
      this.client.kv.range({ key: buf(start), range_end: buf(prefixEnd(prefix)), revision, limit }),
    );
    const items = res.kvs.map((kv) => this.toKeyValue(kv));
    // For a past revision the header carries the current one; the snapshot is the one asked for.
    return { items, revision: revision || num(res.header.revision), remaining: num(res.count) - items.length };
  }

  async create(key: string, value: V, options?: WriteOptions): Promise<KeyValue<V>> {
    checkOpen(this.isClosed);
    checkKey(key, this.prefix);
    const ttl = checkTtl(options);
    const encoded = this.encode(value);
    const lease = ttl === undefined ? undefined : await this.leases.leaseFor(ttl);
    const res = await this.underLease(lease, () =>
      this.call(true, () =>
        this.client.kv.txn({
          compare: [{ key: buf(key), target: 'Create', result: 'Equal', create_revision: 0 }],
          success: [{ request_put: { key: buf(key), value: encoded, ...(lease === undefined ? {} : { lease }) } }],
        }),
      ),
    );
    if (!res.succeeded) throw alreadyExists(key);
    const revision = num(res.header.revision);
    return { key, value, modRevision: revision, createRevision: revision };
  }

  async update(key: string, value: V, expectedModRevision: number, options?: WriteOptions): Promise<KeyValue<V>> {
    checkOpen(this.isClosed);
    checkKey(key, this.prefix);
    checkRevision(expectedModRevision, 'expectedModRevision');
    const ttl = checkTtl(options);
    const encoded = this.encode(value);
    // Like kube's GuaranteedUpdate: read and decode the current value first (a corrupt one fails
    // before anything is written), then compare-and-swap on the modRevision.
    const current = await this.readRaw(key);
    if (!current) throw notFound(key);
    if (num(current.mod_revision) !== expectedModRevision) throw conflict(key, expectedModRevision, num(current.mod_revision));
    decodeStored(this.codec, key, bytes(current.value));
    // A put without a lease takes the key off the one it had: a write without a ttl keeps it for good.
    const lease = ttl === undefined ? undefined : await this.leases.leaseFor(ttl);
    const res = await this.underLease(lease, () =>
      this.casTxn(key, expectedModRevision, { request_put: { key: buf(key), value: encoded, ...(lease === undefined ? {} : { lease }) } }),
    );
    if (!res.succeeded) throw this.casFailure(key, expectedModRevision, res.responses[0]?.response_range.kvs[0]);
    return { key, value, modRevision: num(res.header.revision), createRevision: num(current.create_revision) };
  }

  async delete(key: string, expectedModRevision?: number): Promise<KeyValue<V>> {
    checkOpen(this.isClosed);
    checkKey(key, this.prefix);
    if (expectedModRevision !== undefined) checkRevision(expectedModRevision, 'expectedModRevision');
    for (;;) {
      const current = await this.readRaw(key);
      if (!current) throw notFound(key);
      const modRevision = num(current.mod_revision);
      if (expectedModRevision !== undefined && modRevision !== expectedModRevision) {
        throw conflict(key, expectedModRevision, modRevision);
      }
      const value = decodeStored(this.codec, key, bytes(current.value));
      // CAS on the version just decoded, so the returned value is the one actually deleted.
      const res = await this.casTxn(key, modRevision, { request_delete_range: { key: buf(key) } });
      if (res.succeeded) {
        return { key, value, modRevision: num(res.header.revision), createRevision: num(current.create_revision) };
      }
      const now = res.responses[0]?.response_range.kvs[0];
      // An unconditional delete that raced a write tries again on the new value.
      if (expectedModRevision !== undefined || !now) throw this.casFailure(key, expectedModRevision ?? modRevision, now);
    }
  }

  async forceDelete(key: string): Promise<number> {
    checkOpen(this.isClosed);
    checkKey(key, this.prefix);
    const res = await this.call(true, () => this.client.kv.deleteRange({ key: buf(key) }));
    if (num(res.deleted) === 0) throw notFound(key);
    return num(res.header.revision);
  }

  /** etcd deletes a key when its lease runs out (a delete event like any other): nothing to sweep. */
  async expire(limit?: number): Promise<number> {
    checkOpen(this.isClosed);
    if (limit !== undefined) checkLimit(limit);
    return 0;
  }

  watch(prefix: string, fromRevision: number): Observable<StoreEvent<V>> {
    checkRangePrefix(prefix, this.prefix);
    checkRevision(fromRevision, 'fromRevision');
    return new Observable<StoreEvent<V>>((subscriber) => {
      if (this.isClosed) return subscriber.error(closed());
      if (fromRevision + 1 < this.knownCompacted) return subscriber.error(compacted(fromRevision, this.knownCompacted));
      /** The last revision delivered: anything at or below it is a replay and is dropped. */
      let last = fromRevision;
      let detached = false;
      const watcher: Watcher = this.client
        .watch()
        .inRange({ start: prefix, end: prefixEnd(prefix) })
        .startRevision(String(fromRevision + 1))
        .withPreviousKV()
        .watcher();
      const stop = (error?: StorageError) => {
        if (detached) return;
        detached = true;
        this.watches.delete(stop);
        const cancel = watcher.cancel().catch(() => undefined);
        this.cancelling.add(cancel);
        void cancel.then(() => this.cancelling.delete(cancel));
        if (error) subscriber.error(error);
      };
      this.watches.add(stop);

      watcher.on('data', (res: IWatchResponse) => {
        // All events of one revision arrive in one response, so the floor is taken per response.
        const floor = last;
        for (const event of res.events) {
          const revision = num(event.kv.mod_revision);
          if (revision <= floor || subscriber.closed) continue;
          let converted: StoreEvent<V>;
          try {
            converted = this.toEvent(event.type, event.kv, event.prev_kv ?? undefined);
          } catch (error) {
            stop(error as StorageError);
            return;
          }
          last = Math.max(last, revision);
          subscriber.next(converted);
        }
      });
      // The etcd3 watcher resumes after a reconnect from the last *header* revision it saw + 1,
      // which can be past events not yet delivered (the create response of a watch replaying
      // history already carries the current revision). Resume from what was delivered instead.
      watcher.on('disconnected', () => {
        watcher.request.start_revision = String(last + 1);
      });
      // etcd cancels a watch whose start revision is compacted; the client reports it as a bare
      // "Watcher canceled" error (the compact_revision is dropped), so ask etcd what it compacted.
      watcher.on('error', (error: Error) => {
        if (detached) return;
        detached = true;
        this.watches.delete(stop);
        void this.compactedRevision().then(
          (compactedRevision) =>
            subscriber.error(
              last + 1 < compactedRevision
                ? compacted(last, compactedRevision)
                : new StorageError('Unavailable', `etcd canceled the watch: ${error.message}`, {}, { cause: error }),
            ),
          (lookupError: unknown) => subscriber.error(lookupError),
        );
      });
      return () => stop();
    });
  }

  async compact(revision: number): Promise<void> {
    checkOpen(this.isClosed);
    checkRevision(revision);
    if (revision === 0 || revision <= this.knownCompacted) return;
    try {
      await this.call(true, () => this.client.kv.compact({ revision, physical: true }));
    } catch (error) {
      const failure = classify(error instanceof StorageError ? error.cause : error);
      if (failure === 'compacted') {
        // etcd refuses to compact at or below its compacted revision: already done.
        this.knownCompacted = Math.max(this.knownCompacted, revision);
        return;
      }
      if (failure === 'future') throw futureRevision(revision, await this.revision());
      throw error;
    }
    this.knownCompacted = Math.max(this.knownCompacted, revision);
  }

  async compactedRevision(): Promise<number> {
    checkOpen(this.isClosed);
    // A read at revision r succeeds iff r >= etcd's compacted revision. At revision 1 (the
    // empty store etcd starts with) it always does, so "compacted at 1" reads as 0 = nothing.
    let failed = this.knownCompacted;
    if (await this.readableAt(Math.max(failed, 1))) return failed;
    let ok = await this.revision();
    while (ok - failed > 1) {
      const mid = Math.floor((failed + ok) / 2);
      if (await this.readableAt(mid)) ok = mid;
      else failed = mid;
    }
    this.knownCompacted = Math.max(this.knownCompacted, ok);
    return ok;
  }

  async revision(): Promise<number> {
    checkOpen(this.isClosed);
    const res = await this.call(false, () => this.client.kv.range({ key: buf(this.prefix), count_only: true }));
    return num(res.header.revision);
  }

  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    // Detach every watcher before closing the client: a watch left attached to a closed client
    // makes etcd3 retry the stream forever. A cancel etcd never answers must not hang close().
    for (const stop of [...this.watches]) stop(closed());
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.all(this.cancelling), new Promise((resolve) => (timer = setTimeout(resolve, 2000)))]);
    clearTimeout(timer);
    this.client.close();
  }

  /** Tries a first read until `deadline`: etcd3 connects lazily and fails fast while refused. */
  async dial(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      try {
        await this.client.kv.range({ key: buf(this.prefix), count_only: true }, { deadline: Math.max(deadline, Date.now() + 50) });
        return;
      } catch (error) {
        if (Date.now() >= deadline || classify(error) !== 'unavailable') {
          throw new StorageError('Unavailable', `cannot reach etcd within ${timeoutMs} ms: ${messageOf(error)}`, {}, { cause: error });
        }
        await sleep(100);
      }
    }
  }

  private async readableAt(revision: number): Promise<boolean> {
    try {
      await this.call(false, () => this.client.kv.range({ key: buf(this.prefix), revision, count_only: true }));
      return true;
    } catch (error) {
      if (error instanceof StorageError && classify(error.cause) === 'compacted') return false;
      throw error;
    }
  }

  /** A read at `revision` (0 = current), with etcd's compaction errors given their details. */
  private async read<T>(revision: number, request: () => Promise<T>): Promise<T> {
    try {
      return await this.call(false, request);
    } catch (error) {
      const failure = error instanceof StorageError && error.code === 'Unavailable' ? classify(error.cause) : undefined;
      if (failure === 'compacted') throw compacted(revision, await this.compactedRevision());
      if (failure === 'future') throw futureRevision(revision, await this.revision());
      throw error;
    }
  }

  private async readRaw(key: string): Promise<IKeyValue | undefined> {
    const res = await this.call(false, () => this.client.kv.range({ key: buf(key) }));
    return res.kvs[0];
  }

  /** Runs a write under `lease`; a failed one forgets the lease (it may be gone: the next write grants anew). */
  private async underLease<T>(lease: string | undefined, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if (lease !== undefined) this.leases.forget(lease);
      throw error;
    }
  }

  /** `op` when `key` is at `modRevision`, else read it (for the error). */
  private casTxn(key: string, modRevision: number, op: IRequestOp) {
    return this.call(true, () =>
      this.client.kv.txn({
        compare: [{ key: buf(key), target: 'Mod', result: 'Equal', mod_revision: modRevision }],
        success: [op],
        failure: [{ request_range: { key: buf(key) } }],
      }),
    );
  }

  private casFailure(key: string, expected: number, now: IKeyValue | undefined): StorageError {
    return now ? conflict(key, expected, num(now.mod_revision)) : notFound(key);
  }

  /**
   * Runs one etcd request, mapping failures to StorageError. Reads retry on any transient
   * failure; writes only when the request was never sent (see NOT_SENT), since retrying an
   * applied write would report its own success as AlreadyExists/Conflict.
   */
  private async call<T>(write: boolean, request: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      checkOpen(this.isClosed);
      try {
        return await request();
      } catch (error) {
        const failure = this.isClosed ? 'closed' : classify(error);
        if (failure === 'closed') throw closed();
        if (failure === 'invalid') throw new StorageError('InvalidArgument', `etcd rejected the request: ${messageOf(error)}`, {}, { cause: error });
        const delay = RETRY_DELAYS_MS[attempt];
        const retry = failure === 'unavailable' && delay !== undefined && (!write || NOT_SENT.test(messageOf(error)));
        if (!retry) {
          // Compacted/FutureRevision travel as the cause; `read`/`compact` add the details.
          throw new StorageError('Unavailable', `etcd request failed: ${messageOf(error)}`, {}, { cause: error });
        }
        await sleep(delay);
      }
    }
  }

  private encode(value: V): Buffer {
    const encoded = this.codec.encode(this.codec.check(value));
    return Buffer.from(encoded.buffer, encoded.byteOffset, encoded.byteLength);
  }


  private toKeyValue(kv: IKeyValue): KeyValue<V> {
    const key = kv.key.toString('latin1');
    return { key, value: decodeStored(this.codec, key, bytes(kv.value)), modRevision: num(kv.mod_revision), createRevision: num(kv.create_revision) };
  }

  private toEvent(type: string, kv: IKeyValue, prev: IKeyValue | undefined): StoreEvent<V> {
    const key = kv.key.toString('latin1');
    const revision = num(kv.mod_revision);
    if (type === 'Delete') {
      const prevValue = prev ? tryDecodeStored(this.codec, bytes(prev.value)) : undefined;
      return prevValue?.ok ? { type: 'delete', key, prevValue: prevValue.value, revision } : { type: 'delete', key, revision };
    }
    const value = decodeStored(this.codec, key, bytes(kv.value));
    const createRevision = num(kv.create_revision);
    // etcd omits prev_kv when the previous version is compacted, so an update right at the
    // compacted revision may arrive without its prevValue.
    return prev
      ? { type: 'put', key, value, prevValue: decodeStored(this.codec, key, bytes(prev.value)), revision, createRevision }
      : { type: 'put', key, value, revision, createRevision };
  }

}

type GlobalPolicy = NonNullable<NonNullable<IOptions['faultHandling']>['global']>;
/** A cockatiel policy that just runs the call (etcd3 only ever calls `execute` on it). */
const noRetry = { execute: (fn: (context: object) => unknown) => fn({}) } as unknown as GlobalPolicy;

type WatchBackoff = NonNullable<NonNullable<IOptions['faultHandling']>['watchBackoff']>;
/** The longest wait between two attempts to re-open the watch stream. */
const WATCH_RECONNECT_MAX_MS = 1000;
/**
 * The waits between attempts to re-open the watch stream after etcd went away: 100 ms, doubling
 * to 1 s. etcd3's default doubles up to 30 s, so after an outage of some seconds every watch —
 * and the API server's watch caches with them — stayed blind for up to 30 s after etcd was back
 * (found by test/faults/etcd-crash.test.ts). One attempt a second against a dead member costs
 * nothing.
 */
function watchBackoff(delayMs = 100): WatchBackoff {
  return { duration: delayMs, next: () => watchBackoff(Math.min(delayMs * 2, WATCH_RECONNECT_MAX_MS)) } as unknown as WatchBackoff;
}

/** Connects to etcd (waiting up to `dialTimeoutMs` for it to answer) and opens the store. */
export async function openEtcdStore<V = Uint8Array>(options: EtcdStoreOptions<V>): Promise<EtcdStore<V>> {
  const { endpoints } = options;
  if (!Array.isArray(endpoints) || endpoints.length === 0 || !endpoints.every((e) => typeof e === 'string' && e !== '')) {
    throw invalid('endpoints must be a non-empty list of etcd client URLs');
  }
  const prefix = checkPrefixOption(options.prefix ?? DEFAULT_PREFIX);
  const codec = options.codec ?? (bytesCodec as unknown as ValueCodec<V>);
  const requestTimeoutMs = options.requestTimeoutMs ?? 15_000;
  const clientOptions: IOptions = {
    hosts: endpoints,
    // grpc-js refuses responses over 4 MiB by default, which a list of a large prefix exceeds
    // (kube's etcd client lifts the limit the same way).
    grpcOptions: { 'grpc.max_receive_message_length': 2 ** 31 - 1 },
    defaultCallOptions: (context) => (context.isStream ? {} : { deadline: Date.now() + requestTimeoutMs }),
    // No blind retries inside etcd3 (its default retries writes too): `call` decides what is
    // safe to retry. The per-host circuit breaker stays, so a dead member is skipped.
    faultHandling: { global: noRetry, watchBackoff: watchBackoff() },
  };
  const store = new EtcdStore<V>(new etcd3.Etcd3(clientOptions), prefix, codec);
  try {
    await store.dial(options.dialTimeoutMs ?? 5_000);
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}
