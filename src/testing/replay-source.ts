import { BehaviorSubject, distinctUntilChanged, Observable, Subject } from 'rxjs';
import type { KubeObject } from '../api/index.js';
import {
  CacheWriter,
  deepFreeze,
  LABELS_INDEX,
  labelsIndex,
  NAMESPACE_INDEX,
  namespaceIndex,
  objectKey,
  OWNER_INDEX,
  ownerIndex,
  type CacheReader,
  type IndexFunc,
  type InformerEvent,
} from '../client/index.js';
import type { CachedSource, EventLine } from './recording.js';

export interface ReplaySourceOptions<T extends KubeObject> {
  /** Indexes beyond the informer's built-in ones (`namespace`, `labels`, `owner`). */
  readonly indexers?: Readonly<Record<string, IndexFunc<T>>>;
}

/**
 * A recorded source played back: it announces the recorded events and keeps a cache of them as
 * an informer would (the same cache code and built-in indexes), so a reconcile reads the world as
 * it was when the recording was made.
 */
export class ReplaySource<T extends KubeObject> implements CachedSource<T> {
  readonly #writer: CacheWriter<T>;
  readonly #events = new Subject<InformerEvent<T>>();
  readonly #synced = new BehaviorSubject(false);
  readonly store: CacheReader<T>;
  readonly events$: Observable<InformerEvent<T>>;
  readonly synced$: Observable<boolean>;

  constructor(options: ReplaySourceOptions<T> = {}) {
    this.#writer = new CacheWriter<T>({ [NAMESPACE_INDEX]: namespaceIndex, [LABELS_INDEX]: labelsIndex, [OWNER_INDEX]: ownerIndex, ...options.indexers });
    this.store = this.#writer.reader;
    // As an informer's: a late subscriber first hears what is cached.
    this.events$ = new Observable<InformerEvent<T>>((subscriber) => {
      for (const object of this.store.list()) {
        if (subscriber.closed) return;
        subscriber.next({ type: 'added', object });
      }
      return this.#events.subscribe(subscriber);
    });
    this.synced$ = this.#synced.pipe(distinctUntilChanged());
  }

  hasSynced(): boolean {
    return this.#synced.value;
  }

  /** Applies one recorded line to the cache and announces it as it was announced then. */
  apply(line: EventLine): void {
    if (line.type === 'SYNCED') {
      // The cache held the whole first list before any of its events was announced.
      this.#writer.beginReplace();
      for (const object of line.objects ?? []) this.#writer.stage(deepFreeze(object as T));
      this.#writer.commitReplace();
      this.#synced.next(true);
      return;
    }
    if (line.object === undefined) throw new SyntaxError(`a recorded ${line.type} event of ${line.source} has no object`);
    const object = deepFreeze(line.object as T);
    switch (line.type) {
      case 'ADDED':
        this.#writer.upsert(object);
        this.#events.next({ type: 'added', object });
        return;
      case 'MODIFIED': {
        const old = this.store.get(objectKey(object)) ?? object;
        this.#writer.upsert(object);
        this.#events.next({ type: 'updated', old, object });
        return;
      }
      case 'DELETED':
        this.#writer.remove(object);
        this.#events.next({ type: 'deleted', object, finalStateUnknown: line.finalStateUnknown === true });
        return;
      case 'RESYNC':
        this.#events.next({ type: 'resync', object: this.store.get(objectKey(object)) ?? object });
        return;
    }
  }
}
