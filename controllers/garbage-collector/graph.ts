import type { KubeObject } from '../../src/api/index.js';
import type { ApiResource, Informer } from '../../src/client/index.js';
import { groupOf, type Identity } from './identity.js';

/** A dependent found in the caches, with its type. */
export interface Dependent {
  readonly type: ApiResource;
  readonly object: KubeObject;
}

/**
 * The ownership graph, read from the metadata-only caches of every watched type rather than kept
 * as a second copy: an object is found by its type's cache, its dependents by the owner-uid index
 * of every cache. Kinds map to types through the latest discovery.
 */
export class OwnershipGraph {
  readonly #byKind = new Map<string, ApiResource>();
  readonly #caches = new Map<string, { type: ApiResource; informer: Informer<KubeObject> }>();

  /** The types of the latest discovery (kinds of owner references resolve through them). */
  setTypes(types: readonly ApiResource[]): void {
    this.#byKind.clear();
    for (const type of types) this.#byKind.set(`${type.group}/${type.kind}`, type);
  }

  /** The served type of a kind, at its preferred version whatever version the reference names. */
  typeOf(apiVersion: string, kind: string): ApiResource | undefined {
    return this.#byKind.get(`${groupOf(apiVersion)}/${kind}`);
  }

  watch(type: ApiResource, informer: Informer<KubeObject>): void {
    this.#caches.set(cacheKey(type), { type, informer });
  }

  unwatch(type: ApiResource): void {
    this.#caches.delete(cacheKey(type));
  }

  /** Whether the type's cache has been listed (a miss in it then means "not there"). */
  synced(type: ApiResource): boolean {
    return this.#caches.get(cacheKey(type))?.informer.hasSynced() ?? false;
  }

  /** The cached object of an identity: same namespace, name and uid; undefined when unknown. */
  get(type: ApiResource, id: Identity): KubeObject | undefined {
    const cache = this.#caches.get(cacheKey(type));
    const object = cache?.informer.store.get(type.namespaced ? `${id.namespace}/${id.name}` : id.name);
    return object?.metadata.uid === id.uid ? object : undefined;
  }

  /** Every cached object that names `uid` as an owner. */
  dependents(uid: string): Dependent[] {
    const found: Dependent[] = [];
    for (const { type, informer } of this.#caches.values()) {
      for (const object of informer.byOwner(uid)) found.push({ type, object });
    }
    return found;
  }
}

const cacheKey = (type: ApiResource) => `${type.group}/${type.resource}`;
