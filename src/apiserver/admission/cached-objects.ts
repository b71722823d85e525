import type { ResourceType } from '../../api/index.js';
import type { Store } from '../../storage/index.js';
import { collectionPrefix, objectKey } from '../object-keys.js';
import { type ApiObject } from '../api-object.js';
import type { ResourceCaches } from '../resource-caches.js';
import type { ServedObject } from '../served-object.js';
import { deepFreezeObject } from './freeze.js';

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

  constructor(
    private readonly caches: ResourceCaches,
    private readonly store: Pick<Store, 'prefix'>,
  ) {}

  /** The current objects of a type (in one namespace, or all of them). */
  list(type: ResourceType, namespace?: string): readonly ApiObject[] {
    const prefix = collectionPrefix(this.store, type, namespace);
    return this.caches
      .of(type)
      .list({ prefix })
      .items.map((version) => this.parse(version));
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
