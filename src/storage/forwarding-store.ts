import type { Observable } from 'rxjs';
import type { GetOptions, KeyValue, ListOptions, ListResult, Store, StoreEvent, WriteOptions } from './store.js';

/**
 * A Store that passes every call to `inner` unchanged: the base of a wrapper that changes a few
 * calls (the API server's metered store times them, its Event store adds a time to live to
 * writes), so that each wrapper holds only what it changes and a call added to Store is passed
 * through in one place.
 */
export class ForwardingStore implements Store {
  protected readonly inner: Store;

  constructor(inner: Store) {
    this.inner = inner;
  }

  get backend(): string {
    return this.inner.backend;
  }

  get inProcess(): boolean {
    return this.inner.inProcess;
  }

  get prefix(): string {
    return this.inner.prefix;
  }

  get(key: string, options?: GetOptions): Promise<KeyValue | undefined> {
    return this.inner.get(key, options);
  }

  list(prefix: string, options?: ListOptions): Promise<ListResult> {
    return this.inner.list(prefix, options);
  }

  create(key: string, value: Uint8Array, options?: WriteOptions): Promise<KeyValue> {
    return this.inner.create(key, value, options);
  }

  update(key: string, value: Uint8Array, expectedModRevision: number, options?: WriteOptions): Promise<KeyValue> {
    return this.inner.update(key, value, expectedModRevision, options);
  }

  delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    return this.inner.delete(key, expectedModRevision);
  }

  forceDelete(key: string): Promise<number> {
    return this.inner.forceDelete(key);
  }

  expire(limit?: number): Promise<number> {
    return this.inner.expire(limit);
  }

  watch(prefix: string, fromRevision: number): Observable<StoreEvent> {
    return this.inner.watch(prefix, fromRevision);
  }

  compact(revision: number): Promise<void> {
    return this.inner.compact(revision);
  }

  compactedRevision(): Promise<number> {
    return this.inner.compactedRevision();
  }

  revision(): Promise<number> {
    return this.inner.revision();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
