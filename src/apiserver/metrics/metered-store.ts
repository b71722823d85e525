import { ForwardingStore, type GetOptions, type KeyValue, type ListOptions, type ListResult, type Store, type WriteOptions } from '../../storage/index.js';

/** What a metered store reports each operation to: its name, the key it touched, and how long it took. */
export type StorageObserver = (operation: string, key: string, seconds: number) => void;

/**
 * A Store that times every operation for `etcd_request_duration_seconds` and otherwise passes it
 * through unchanged. The watch is not timed: it lasts as long as the cache that holds it; nor is an
 * in-process store's `revision()` (see there), nor an expiry sweep, whose deletes the store
 * times as deletes when it makes them; those pass through (ForwardingStore).
 */
export class MeteredStore extends ForwardingStore {
  readonly #observe: StorageObserver;

  constructor(store: Store, observe: StorageObserver) {
    super(store);
    this.#observe = observe;
  }

  async #timed<T>(operation: string, key: string, run: Promise<T>): Promise<T> {
    const start = performance.now();
    try {
      return await run;
    } finally {
      this.#observe(operation, key, (performance.now() - start) / 1000);
    }
  }

  override get(key: string, options?: GetOptions): Promise<KeyValue | undefined> {
    return this.#timed('get', key, this.inner.get(key, options));
  }

  override list(prefix: string, options?: ListOptions): Promise<ListResult> {
    return this.#timed('list', prefix, this.inner.list(prefix, options));
  }

  override create(key: string, value: Uint8Array, options?: WriteOptions): Promise<KeyValue> {
    return this.#timed('create', key, this.inner.create(key, value, options));
  }

  override update(key: string, value: Uint8Array, expectedModRevision: number, options?: WriteOptions): Promise<KeyValue> {
    return this.#timed('update', key, this.inner.update(key, value, expectedModRevision, options));
  }

  override delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    return this.#timed('delete', key, this.inner.delete(key, expectedModRevision));
  }

  override forceDelete(key: string): Promise<number> {
    return this.#timed('delete', key, this.inner.forceDelete(key));
  }

  override compact(revision: number): Promise<void> {
    return this.#timed('compact', this.inner.prefix, this.inner.compact(revision));
  }

  override revision(): Promise<number> {
    // Every consistent read asks for it: in process it is a counter read, not worth a timer on the
    // hot path; etcd answers it over the network, and that is timed.
    if (this.inner.inProcess) return this.inner.revision();
    return this.#timed('getRevision', this.inner.prefix, this.inner.revision());
  }
}
