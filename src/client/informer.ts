import { BehaviorSubject, distinctUntilChanged, filter, firstValueFrom, Observable, Subject, type Subscription } from 'rxjs';
import type { KubeObject } from '../api/index.js';
import { LABELS_INDEX, labelsIndex, NAMESPACE_INDEX, namespaceIndex, type CacheChange, type CacheReader, type CacheWrites, type IndexFunc } from './cache.js';
import type { Client } from './client.js';
import { decodeStrategy, fastestDecodeMode, type DecodeMode, type DecodeStrategy } from './decode-strategy.js';
import { OWNER_INDEX, ownerIndex, orphansKey } from './owner-index.js';
import type { Resource } from './resource.js';
import type { WatcherEvent, WatchOptions } from './watcher.js';
import { recordOf } from './lazy/cached-record.js';
import { withoutMetadataMember } from './lazy/json-view.js';

/**
 * What an informer announces. `updated` only when the resourceVersion changed; `deleted` with
 * `finalStateUnknown: true` is a tombstone: the object vanished while the watch was broken and a
 * relist no longer had it (its last known state is given). `resync` re-announces an unchanged
 * cached object (see `resyncPeriodMs`).
 */
export type InformerEvent<T> = CacheChange<T> | { readonly type: 'resync'; readonly object: T };

export interface InformerOptions<T extends KubeObject>
  extends Pick<
    WatchOptions,
    | 'namespace'
    | 'labelSelector'
    | 'fieldSelector'
    | 'initialList'
    | 'firstList'
    | 'pageSize'
    | 'timeoutSeconds'
    | 'stallGraceMs'
    | 'backoff'
    | 'onError'
  > {
  /** Indexes beyond the built-in `namespace`, `labels` and `owner` (OWNER_INDEX) ones: name → values an object is filed under. */
  readonly indexers?: Readonly<Record<string, IndexFunc<T>>> | undefined;
  /**
   * Re-announce every cached object as `resync` after a random time between this and twice this,
   * again and again. Default 0: never.
   */
  readonly resyncPeriodMs?: number | undefined;
  /**
   * Applied to each object before it is cached (and announced): prune what you do not read
   * (managedFields, big annotations) to cut memory. Must not depend on anything but its input.
   */
  readonly transform?: ((object: T) => T) | undefined;
  /**
   * `'protobuf'`: the informer lists and watches in protobuf and the cache keeps each version's
   * message bytes, handing out views that decode a field on first read (frozen, `===`-stable
   * while held); see docs/client.md. `'lazy'`: the same with each version's JSON text.
   * `'eager'`: decoded, deeply frozen plain objects. Default: the fastest for the resource —
   * `'protobuf'` for built-in kinds, `'lazy'` for custom resources (fastestDecodeMode).
   */
  readonly decode?: DecodeMode | undefined;
  /**
   * Keep the owner index (`OWNER_INDEX`, read by `byOwner(uid)`). Default true. A view cache
   * files an object from its record's ownerReferences bytes, and an update whose
   * ownerReferences are the same bytes costs a comparison, not a decode.
   */
  readonly ownerIndex?: boolean | undefined;
  /** Freeze cached objects (deeply). Default true: they are shared by every reader. Lazy views are always frozen. */
  readonly freeze?: boolean | undefined;

  /**
   * Cache PartialObjectMetadata only: the server sends kind, apiVersion and metadata, so a
   * controller that needs no spec or status (a garbage collector, a namespace cleaner) holds a
   * fraction of the memory. Default false.
   */
  readonly metadataOnly?: boolean | undefined;
}

/**
 * A `transform` that drops `metadata.managedFields` (server-side apply bookkeeping, often a third
 * of an object's memory, which controllers rarely read). Like controller-runtime's
 * `TransformStripManagedFields`.
 */
export function stripManagedFields<T extends KubeObject>(object: T): T {
  // A lazily decoded object loses the member from its text, decoding nothing (the GC's metadata
  // informers strip every Lease renewal: decoding and copying the whole metadata cost more than
  // the rest of the event's handling; docs/benchmarks.md).
  const cut = withoutMetadataMember(object, 'managedFields');
  if (cut !== undefined) return cut;
  // A protobuf view loses the entries from its message bytes, as cheaply.
  const record = recordOf(object);
  if (record !== undefined) {
    const stripped = record.withoutManagedFields();
    return stripped === record ? object : stripped.view<T>();
  }
  if (object.metadata.managedFields === undefined) return object;
  const { managedFields: _dropped, ...metadata } = object.metadata;
  return { ...object, metadata };
}

/**
 * A cache of one resource kept current by a watcher: list, then watch, relist on 410, with
 * indexes and change events. The cache (`store`) is read-only for everyone; only the informer
 * writes to it. A relist is applied page by page into a staging map that shares unchanged objects
 * with the cache, and swapped in at INIT_DONE (peak memory: the cache plus the changed objects).
 */
export class Informer<T extends KubeObject> {
  readonly #client: Client;
  readonly #resource: Resource<T>;
  readonly #options: InformerOptions<T>;
  readonly #decoding: DecodeStrategy;
  readonly #writer: CacheWrites<T>;
  readonly #events = new Subject<InformerEvent<T>>();
  readonly #synced = new BehaviorSubject<boolean>(false);
  #subscription: Subscription | undefined;
  #resyncTimer: NodeJS.Timeout | undefined;

  /** Read-only view of the cache. */
  readonly store: CacheReader<T>;
  /**
   * Changes, as they are applied. A new subscriber first gets `added` for every object already
   * cached, then the live events (as client-go's late handlers do). Subscribing starts the informer.
   */
  readonly events$: Observable<InformerEvent<T>>;
  /** false until the first list is in the cache, then true (emits each change of the value). */
  readonly synced$: Observable<boolean>;

  constructor(client: Client, resource: Resource<T>, options: InformerOptions<T> = {}) {
    this.#client = client;
    this.#resource = resource;
    this.#options = options;
    // The one place the mode is chosen: the watch, the list and the cache all follow it.
    this.#decoding = decodeStrategy(options.decode ?? fastestDecodeMode(resource), client.transport.codec);
    const indexers: Record<string, IndexFunc<T>> = { [NAMESPACE_INDEX]: namespaceIndex, [LABELS_INDEX]: labelsIndex };
    if (options.ownerIndex ?? true) indexers[OWNER_INDEX] = ownerIndex;
    Object.assign(indexers, options.indexers);
    this.#writer = this.#decoding.cache(indexers);
    this.store = this.#writer.reader;
    this.events$ = new Observable<InformerEvent<T>>((subscriber) => {
      this.start();
      for (const object of this.store.list()) {
        if (subscriber.closed) return;
        subscriber.next({ type: 'added', object });
      }
      return this.#events.subscribe(subscriber);
    });
    this.synced$ = this.#synced.pipe(distinctUntilChanged());
  }

  /** Starts listing and watching (idempotent); returns this. */
  start(): this {
    if (this.#subscription) return this;
    const { indexers: _i, resyncPeriodMs: _r, transform: _t, freeze: _f, ownerIndex: _o, ...watch } = this.#options;
    this.#subscription = this.#client.watch$(this.#resource, { ...watch, decode: this.#decoding.mode, emitBookmarks: false }).subscribe({
      next: (event) => this.#apply(event),
      error: (error: unknown) => this.#events.error(error),
    });
    this.#scheduleResync();
    return this;
  }

  /** Stops the watch (its connection is closed); the cache keeps its content. */
  stop(): void {
    this.#subscription?.unsubscribe();
    this.#subscription = undefined;
    clearTimeout(this.#resyncTimer);
  }

  hasSynced(): boolean {
    return this.#synced.value;
  }

  /** Resolves once the first list is in the cache (starts the informer). */
  async waitForSync(): Promise<void> {
    this.start();
    await firstValueFrom(this.#synced.pipe(filter(Boolean)));
  }

  /**
   * The cached objects that name `uid` in their ownerReferences (controller or not), from the
   * owner index; throws when the informer keeps none (`ownerIndex: false`).
   */
  byOwner(uid: string): T[] {
    return this.store.byIndex(OWNER_INDEX, uid);
  }

  /**
   * The cached objects of `namespace` that have no controller (no ownerReference with
   * `controller: true`): what a workload loop may adopt. From the owner index, like `byOwner`.
   */
  orphansIn(namespace: string): T[] {
    return this.store.byIndex(OWNER_INDEX, orphansKey(namespace));
  }

  /** Adds an index, filled from the current content at once. */
  addIndexer(name: string, fn: IndexFunc<T>): void {
    this.#writer.addIndexer(name, fn);
  }

  #prepare(object: T): T {
    const shaped = this.#options.transform ? this.#options.transform(object) : object;
    return this.#decoding.prepare(shaped, this.#options.freeze !== false);
  }

  #apply(event: WatcherEvent<T>): void {
    switch (event.type) {
      case 'INIT':
        this.#writer.beginReplace();
        return;
      case 'INIT_APPLY':
        this.#writer.stage(this.#prepare(event.object));
        return;
      case 'INIT_DONE': {
        const changes = this.#writer.commitReplace();
        this.#synced.next(true);
        for (const change of changes) this.#events.next(change);
        return;
      }
      case 'ADDED':
      case 'MODIFIED': {
        const change = this.#writer.upsert(this.#prepare(event.object));
        if (change) this.#events.next(change);
        return;
      }
      case 'DELETED': {
        const change = this.#writer.remove(this.#prepare(event.object));
        if (change) this.#events.next(change);
        return;
      }
      case 'BOOKMARK':
        return;
    }
  }

  #scheduleResync(): void {
    const period = this.#options.resyncPeriodMs ?? 0;
    if (period <= 0) return;
    this.#resyncTimer = setTimeout(
      () => {
        if (this.#synced.value) for (const object of this.store.list()) this.#events.next({ type: 'resync', object });
        this.#scheduleResync();
      },
      period * (1 + Math.random()),
    );
    this.#resyncTimer.unref();
  }
}

/** Defaults a factory applies to every informer it makes. */
export type InformerFactoryOptions = Pick<InformerOptions<KubeObject>, 'resyncPeriodMs' | 'initialList' | 'pageSize' | 'timeoutSeconds' | 'stallGraceMs' | 'backoff' | 'onError' | 'decode'> & {
  /**
   * Applied to each object of every informer made (one that names its own `transform` has that
   * one instead): e.g. `stripManagedFields` in a process none of whose readers reads managedFields.
   */
  readonly transform?: (<T extends KubeObject>(object: T) => T) | undefined;
};

/**
 * Shares informers: asking twice for the same resource, namespace and selectors returns the
 * same informer — one list, one watch and one cache for any number of consumers. Indexers asked
 * for by later callers are added to the shared informer.
 */
export class InformerFactory {
  readonly #informers = new Map<string, Informer<KubeObject>>();

  constructor(
    readonly client: Client,
    readonly defaults: InformerFactoryOptions = {},
  ) {}

  informer<T extends KubeObject>(resource: Resource<T>, options: InformerOptions<T> = {}): Informer<T> {
    // A metadata-only cache holds other objects than a full one: they are never shared.
    const key = [resource.group, resource.version, resource.resource, options.namespace ?? '', options.labelSelector ?? '', options.fieldSelector ?? '', options.metadataOnly ? 'metadata' : ''].join('|');
    const existing = this.#informers.get(key) as Informer<T> | undefined;
    if (existing) {
      for (const [name, fn] of Object.entries(options.indexers ?? {})) existing.addIndexer(name, fn);
      if (options.ownerIndex) existing.addIndexer(OWNER_INDEX, ownerIndex);
      return existing;
    }
    const informer = new Informer<T>(this.client, resource, { ...this.defaults, ...options });
    this.#informers.set(key, informer as unknown as Informer<KubeObject>);
    return informer;
  }

  /** Starts every informer made so far. */
  start(): void {
    for (const informer of this.#informers.values()) informer.start();
  }

  stop(): void {
    for (const informer of this.#informers.values()) informer.stop();
  }

  /** Whether every informer made so far has synced (a readiness check reads it). */
  hasSynced(): boolean {
    for (const informer of this.#informers.values()) if (!informer.hasSynced()) return false;
    return true;
  }

  /** Resolves once every informer made so far has synced. */
  async waitForSync(): Promise<void> {
    await Promise.all([...this.#informers.values()].map((informer) => informer.waitForSync()));
  }
}
