import type { Observable } from 'rxjs';
import type { GetOptions, KeyValue, ListOptions, ListResult, Store, StoreEvent, WriteOptions } from '../../storage/index.js';

/** What a metered store reports each operation to: its name, the key it touched, and how long it took. */
export type StorageObserver = (operation: string, key: string, seconds: number) => void;

/**
 * A Store that times every operation for `etcd_request_duration_seconds` and otherwise passes it
 * through unchanged. The watch is not timed: it lasts as long as the cache that holds it; nor is an
 * in-process store's `revision()` (see there).
 */
export class MeteredStore implements Store {
  readonly #store: Store;
  readonly #observe: StorageObserver;

  constructor(store: Store, observe: StorageObserver) {
    this.#store = store;
    this.#observe = observe;
  }

  get backend(): string {
    return this.#store.backend;
  }

  get inProcess(): boolean {
    return this.#store.inProcess;
  }

  get prefix(): string {
    return this.#store.prefix;
  }

  async #timed<T>(operation: string, key: string, run: Promise<T>): Promise<T> {
    const start = performance.now();
    try {
      return await run;
    } finally {
      this.#observe(operation, key, (performance.now() - start) / 1000);
    }
  }

  get(key: string, options?: GetOptions): Promise<KeyValue | undefined> {
    return this.#timed('get', key, this.#store.get(key, options));
  }

  list(prefix: string, options?: ListOptions): Promise<ListResult> {
    return this.#timed('list', prefix, this.#store.list(prefix, options));
  }

  create(key: string, value: Uint8Array, options?: WriteOptions): Promise<KeyValue> {
    return this.#timed('create', key, this.#store.create(key, value, options));
  }

  update(key: string, value: Uint8Array, expectedModRevision: number, options?: WriteOptions): Promise<KeyValue> {
    return this.#timed('update', key, this.#store.update(key, value, expectedModRevision, options));
  }

  delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    return this.#timed('delete', key, this.#store.delete(key, expectedModRevision));
  }

  forceDelete(key: string): Promise<number> {
    return this.#timed('delete', key, this.#store.forceDelete(key));
  }

  /** Not timed: a sweep, whose deletes are what the store times (as deletes) when it makes them. */
  expire(limit?: number): Promise<number> {
    return this.#store.expire(limit);
  }

  watch(prefix: string, fromRevision: number): Observable<StoreEvent> {
    return this.#store.watch(prefix, fromRevision);
  }

  compact(revision: number): Promise<void> {
    return this.#timed('compact', this.#store.prefix, this.#store.compact(revision));
  }

  compactedRevision(): Promise<number> {
    return this.#store.compactedRevision();
  }

  revision(): Promise<number> {
    // Every consistent read asks for it: in process it is a counter read, not worth a timer on the
    // hot path; etcd answers it over the network, and that is timed.
    if (this.#store.inProcess) return this.#store.revision();
    return this.#timed('getRevision', this.#store.prefix, this.#store.revision());
  }

  close(): Promise<void> {
    return this.#store.close();
  }
}
