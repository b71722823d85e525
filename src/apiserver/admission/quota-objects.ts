import type { CountedType, QuotaObjectLister, ResourceRegistry, ResourceType } from '../../api/index.js';
import type { CachedObjects } from './cached-objects.js';

/** The served type of a counted one (`''` core group included); undefined when it is not served or never stored. */
export function servedType(registry: ResourceRegistry, counted: CountedType): ResourceType | undefined {
  const type = registry.all().find((t) => t.resource === counted.resource && t.group === counted.group);
  return type && type.namespaced && !type.virtual ? type : undefined;
}

/**
 * The watch caches as the quota calculation reads objects. A type whose cache keeps no objects
 * (Events, with `cacheEvents: false`) is not counted here: a `count/events` quota is then counted
 * by the resourcequota loop alone, from its own informer.
 */
export function cachedQuotaObjects(registry: ResourceRegistry, objects: CachedObjects): QuotaObjectLister {
  return (counted, namespace) => {
    const type = servedType(registry, counted);
    return type && objects.holds(type) ? objects.list(type, namespace) : undefined;
  };
}
