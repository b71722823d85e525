import type { Subscription } from 'rxjs';
import { customResourceDefinitionType, type CustomResourceDefinition, type ResourceRegistry, type ResourceType } from '../../api/index.js';
import { isStorageError, type KeyValue, type Store, type StoreEvent } from '../../storage/index.js';
import { collectionPrefix } from '../object-keys.js';
import { encodeForStorage } from '../storage-codec.js';
import { type ApiObject } from '../api-object.js';
import type { ResourceCaches } from '../resource-caches.js';
import { isTrue, setCondition, type ConditionChange } from './conditions.js';
import { CLEANUP_FINALIZER } from './crd-strategy.js';
import { customResourceDecoder, customResourceTypes, hasDefaults } from './custom-types.js';
import { nameConflict, namesOf, type AcceptedNames } from './naming.js';

/** What the server keeps of one CRD it knows. */
interface Entry {
  crd: CustomResourceDefinition;
  /** The types served for it now (empty while its names are not accepted). */
  types: readonly ResourceType[];
  /** The spec those types were built from: a status-only change rebuilds nothing. */
  builtFrom: string;
  accepted: AcceptedNames | undefined;
  terminating: boolean;
  cleaning: boolean;
}

const decoder = new TextDecoder();

/**
 * Serves the types CustomResourceDefinitions define, inside the API server (Kubernetes runs the
 * same loops in apiextensions-apiserver): it follows the stored CRDs, accepts their names unless
 * they clash (NamesAccepted), adds a ResourceType per served version to the registry and a watch
 * cache per type (Established), writes that status, and on deletion removes every object of the
 * type, then the cleanup finalizer, then the types.
 *
 * Types are (un)registered synchronously as the store's watch delivers each CRD event; with the
 * in-process stores that happens in the commit path, so a CRD is served by the time its create
 * returns. Status writes follow, one at a time.
 */
export class CustomResourceDefinitions {
  readonly #store: Store;
  readonly #registry: ResourceRegistry;
  readonly #caches: ResourceCaches;
  readonly #prefix: string;
  readonly #entries = new Map<string, Entry>();
  #subscription: Subscription | undefined;
  #writes: Promise<void> = Promise.resolve();
  #stopped = false;

  constructor(options: { store: Store; registry: ResourceRegistry; caches: ResourceCaches }) {
    this.#store = options.store;
    this.#registry = options.registry;
    this.#caches = options.caches;
    this.#prefix = collectionPrefix(options.store, customResourceDefinitionType);
  }

  /** Serves the stored CRDs (before the caches start, so a restarted server serves them at once), then follows changes. */
  async start(): Promise<void> {
    const { items, revision } = await this.#store.list(this.#prefix);
    const crds = items.map((kv) => this.#decode(kv)).filter((crd): crd is CustomResourceDefinition => crd !== undefined);
    // The ones whose names were accepted before keep them: they go first.
    crds.sort((a, b) => Number(isTrue(b.status, 'NamesAccepted')) - Number(isTrue(a.status, 'NamesAccepted')));
    for (const crd of crds) this.#apply(crd);
    this.#follow(revision);
  }

  stop(): void {
    this.#stopped = true;
    this.#subscription?.unsubscribe();
  }

  /** Resolves once every status write and cleanup queued so far is done (tests, shutdown). */
  settled(): Promise<void> {
    return this.#writes;
  }

  #follow(revision: number): void {
    if (this.#stopped) return;
    this.#subscription = this.#store.watch(this.#prefix, revision).subscribe({
      next: (event) => this.#onEvent(event),
      // A broken watch (etcd compaction, a lost connection): list again and carry on from there.
      error: () => {
        if (this.#stopped) return;
        setTimeout(() => void this.#resync().catch(() => this.#follow(revision)), 1_000).unref();
      },
    });
  }

  async #resync(): Promise<void> {
    const { items, revision } = await this.#store.list(this.#prefix);
    const present = new Set<string>();
    for (const kv of items) {
      const crd = this.#decode(kv);
      if (!crd) continue;
      present.add(crd.metadata.name!);
      this.#apply(crd);
    }
    for (const name of [...this.#entries.keys()]) if (!present.has(name)) this.#forget(name);
    this.#follow(revision);
  }

  #onEvent(event: StoreEvent): void {
    if (event.type === 'delete') {
      this.#forget(event.key.slice(this.#prefix.length));
      return;
    }
    const crd = this.#decode({ key: event.key, value: event.value, modRevision: event.revision, createRevision: event.createRevision });
    if (crd) this.#apply(crd);
  }

  #decode(kv: KeyValue): CustomResourceDefinition | undefined {
    try {
      const crd = JSON.parse(decoder.decode(kv.value)) as CustomResourceDefinition;
      crd.metadata = { ...crd.metadata, resourceVersion: String(kv.modRevision) };
      return crd.spec?.names && Array.isArray(crd.spec.versions) ? crd : undefined;
    } catch {
      return undefined;
    }
  }

  /** Brings the served types and the status of one CRD in line with it. */
  #apply(crd: CustomResourceDefinition): void {
    const name = crd.metadata.name!;
    let entry = this.#entries.get(name);
    if (!entry) {
      entry = { crd, types: [], builtFrom: '', accepted: undefined, terminating: false, cleaning: false };
      this.#entries.set(name, entry);
    }
    entry.crd = crd;
    entry.terminating = crd.metadata.deletionTimestamp !== undefined;

    const others = [...this.#entries.values()].filter((e) => e !== entry && e.crd.spec.group === crd.spec.group && e.accepted).map((e) => e.accepted!);
    const conflict = nameConflict(crd, others, this.#registry, new Set(entry.types));
    if (!conflict) entry.accepted = namesOf(crd);
    const spec = JSON.stringify(crd.spec);
    if (!conflict && spec !== entry.builtFrom) this.#serve(entry, spec);

    const established = entry.types.length > 0;
    const changes: ConditionChange[] = [
      conflict
        ? { type: 'NamesAccepted', status: 'False', reason: conflict.reason, message: conflict.message }
        : { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' },
      established
        ? { type: 'Established', status: 'True', reason: 'InitialNamesAccepted', message: 'the initial names have been accepted' }
        : { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' },
      ...(entry.terminating
        ? [{ type: 'Terminating', status: 'True', reason: 'InstanceDeletionInProgress', message: 'CustomResource deletion is in progress' } as const]
        : []),
    ];
    this.#queue(() => this.#writeStatus(name, changes, entry!.accepted));
    if (entry.terminating && !entry.cleaning) {
      entry.cleaning = true;
      this.#queue(() => this.#cleanUp(entry!));
    }
  }

  /** Replaces the types served for a CRD by the ones its spec defines now. */
  #serve(entry: Entry, spec: string): void {
    this.#unserve(entry);
    const defaults = entry.crd.spec.versions.some((v) => hasDefaults(v.schema?.openAPIV3Schema));
    const types = customResourceTypes(entry.crd, { terminating: () => entry.terminating });
    // Caches first: a request routed to a type always finds its cache.
    for (const type of types) this.#caches.add(type, customResourceDecoder(type, defaults, this.#caches.servedTexts));
    this.#registry.add(types);
    entry.types = types;
    entry.builtFrom = spec;
  }

  #unserve(entry: Entry): void {
    if (entry.types.length === 0) return;
    this.#registry.remove(entry.types);
    for (const type of entry.types) this.#caches.remove(type);
    entry.types = [];
    entry.builtFrom = '';
  }

  /** The CRD is gone from the store: its types go, and CRDs its names blocked get another look. */
  #forget(name: string): void {
    const entry = this.#entries.get(name);
    if (!entry) return;
    this.#unserve(entry);
    this.#entries.delete(name);
    for (const other of this.#entries.values()) {
      if (other.crd.spec.group === entry.crd.spec.group && other.types.length === 0 && !other.terminating) this.#apply(other.crd);
    }
  }

  #queue(work: () => Promise<void>): void {
    this.#writes = this.#writes.then(work).catch(() => undefined);
  }

  /** Writes conditions and accepted names when they differ from the stored ones (a lost race is retried by the next event). */
  async #writeStatus(name: string, changes: readonly ConditionChange[], accepted: AcceptedNames | undefined): Promise<void> {
    if (this.#stopped) return;
    const kv = await this.#store.get(this.#prefix + name);
    const crd = kv && this.#decode(kv);
    if (!kv || !crd) return;
    const status = crd.status ?? {};
    let conditions = status.conditions ?? [];
    for (const change of changes) conditions = setCondition(conditions, change);
    const storage = crd.spec.versions.find((v) => v.storage)?.name;
    const storedVersions = [...(status.storedVersions ?? [])];
    if (storage && !storedVersions.includes(storage) && accepted) storedVersions.push(storage);
    const next = { ...status, conditions, ...(accepted ? { acceptedNames: { ...accepted } } : {}), storedVersions };
    if (JSON.stringify(next) === JSON.stringify(status)) return;
    try {
      await this.#store.update(kv.key, encodeForStorage({ ...(crd as ApiObject), status: next }), kv.modRevision);
    } catch (error) {
      if (!isStorageError(error, 'Conflict') && !isStorageError(error, 'NotFound')) throw error;
    }
  }

  /** Deletes every object of a terminating CRD's type, then lets the CRD go. */
  async #cleanUp(entry: Entry): Promise<void> {
    const prefix = `${this.#store.prefix}${entry.crd.spec.group}/${entry.crd.spec.names.plural}/`;
    for (;;) {
      if (this.#stopped) return;
      const { items } = await this.#store.list(prefix, { limit: 500 });
      if (items.length === 0) break;
      for (const item of items) {
        try {
          await this.#store.delete(item.key, item.modRevision);
        } catch (error) {
          if (!isStorageError(error, 'Conflict') && !isStorageError(error, 'NotFound')) throw error;
        }
      }
    }
    for (;;) {
      const kv = await this.#store.get(this.#prefix + entry.crd.metadata.name!);
      const crd = kv && this.#decode(kv);
      if (!kv || !crd) return;
      const finalizers = (crd.metadata.finalizers ?? []).filter((f) => f !== CLEANUP_FINALIZER);
      try {
        if (finalizers.length === 0) await this.#store.delete(kv.key, kv.modRevision);
        else await this.#store.update(kv.key, encodeForStorage({ ...(crd as ApiObject), metadata: { ...crd.metadata, finalizers } }), kv.modRevision);
        return;
      } catch (error) {
        if (!isStorageError(error, 'Conflict')) throw error;
      }
    }
  }
}
