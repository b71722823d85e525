import type { ResourceType } from '../../api/index.js';
import type { Store } from '../../storage/index.js';
import { collectionPrefix, objectKey } from '../object-keys.js';
import { type ApiObject } from '../api-object.js';
import type { ResourceCaches } from '../resource-caches.js';
import type { ServedObject } from '../served-object.js';
import { deepFreezeObject } from './freeze.js';

const MAX_REMEMBERED_LISTS = 4096;

interface Version {
  readonly object: ServedObject;
}

/**
 * Admission's view of the watch caches: the objects it consults on every write (webhook
 * configurations, namespaces, LimitRanges, ResourceQuotas, ServiceAccounts) decoded once per
 * version and shared, never read from the store per request. A version is parsed the first time
 * admission asks for it and dropped with it (the memo is keyed by the cache's version object).
 */
export class CachedObjects {
  readonly #parsed = new WeakMap<Version, ApiObject>();
  // The last list of each collection with the cache revision it was taken at: admission lists the
  // same (mostly empty) collections on every write, and they change far more rarely than that.
  readonly #lists = new Map<string, { readonly revision: number; readonly items: readonly ApiObject[] }>();
  // The key of each collection asked for, by type and namespace (NUL for all of them, as no namespace is named so): not built per call.
  readonly #prefixes = new WeakMap<ResourceType, Map<string, string>>();

  constructor(
    private readonly caches: ResourceCaches,
    private readonly store: Pick<Store, 'prefix'>,
  ) {}

  /** Whether the caches keep a type's objects (not Events', with `cacheEvents: false`): `list` and `get` need them. */
  holds(type: ResourceType): boolean {
    return this.caches.of(type).holdsObjects;
  }

  /** The current objects of a type (in one namespace, or all of them). */
  list(type: ResourceType, namespace?: string): readonly ApiObject[] {
    const prefix = this.#prefixOf(type, namespace);
    const cache = this.caches.of(type);
    // A cache's revision moves with every event it applies, so an unchanged revision is an unchanged
    // state; a cache that is not following the store is asked again (and refuses as it does).
    const last = this.#lists.get(prefix);
    if (last !== undefined && cache.following && last.revision === cache.revision) return last.items;
    const revision = cache.revision;
    const items = Object.freeze(cache.list({ prefix }).items.map((version) => this.parse(version)));
    if (cache.following) {
      // One entry per collection asked for (types and namespaces, not objects), bounded all the same.
      if (this.#lists.size >= MAX_REMEMBERED_LISTS) this.#lists.clear();
      this.#lists.set(prefix, { revision, items });
    }
    return items;
  }

  #prefixOf(type: ResourceType, namespace: string | undefined): string {
    let byNamespace = this.#prefixes.get(type);
    if (!byNamespace) this.#prefixes.set(type, (byNamespace = new Map()));
    const key = namespace ?? '\u0000';
    let prefix = byNamespace.get(key);
    if (prefix === undefined) {
      prefix = collectionPrefix(this.store, type, namespace);
      if (byNamespace.size >= MAX_REMEMBERED_LISTS) byNamespace.clear();
      byNamespace.set(key, prefix);
    }
    return prefix;
  }

  get(type: ResourceType, namespace: string | undefined, name: string): ApiObject | undefined {
    const version = this.caches.of(type).get(objectKey(this.store, type, namespace, name));
    return version && this.parse(version);
  }

  private parse(version: Version): ApiObject {
    let object = this.#parsed.get(version);
    if (!object) {
      object = deepFreezeObject(JSON.parse(version.object.json.toString('utf8')) as ApiObject);
      this.#parsed.set(version, object);
    }
    return object;
  }
}
