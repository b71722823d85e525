import { CORE_GROUP, type ResourceRegistry } from '../../api/index.js';
import type { ObjectReader } from '../object-reader.js';
import { objectKey } from '../object-keys.js';
import type { ResourceCaches } from '../resource-caches.js';
import type { ServedObject } from '../served-object.js';
import type { BoundKind, BoundObjects, LiveObject } from './service-account-tokens.js';

/**
 * Service-account tokens' objects looked up in the watch caches, so that checking that a token's
 * account (and pod or secret) still exists costs a map lookup and no await. Each cached version
 * is parsed for its uid once, on first use.
 *
 * An in-process store's cache has applied every acknowledged write, so a miss there is final.
 * etcd's cache may trail a write by a moment (a token minted for an account created just before),
 * so a miss there, or a cache not ready yet, is asked of the store.
 */
export function cachedBoundObjects(caches: ResourceCaches, registry: ResourceRegistry, reader: ObjectReader): BoundObjects {
  const types = {
    ServiceAccount: registry.byKind(CORE_GROUP, 'ServiceAccount'),
    Pod: registry.byKind(CORE_GROUP, 'Pod'),
    Secret: registry.byKind(CORE_GROUP, 'Secret'),
  };
  const parsed = new WeakMap<ServedObject, LiveObject>();
  const live = (served: ServedObject): LiveObject => {
    let found = parsed.get(served);
    if (!found) {
      const object = JSON.parse(served.json.toString('utf8')) as { metadata?: { uid?: string; deletionTimestamp?: string; labels?: Record<string, string> }; data?: { token?: unknown }; type?: string };
      const meta = object.metadata ?? {};
      const deleting = meta.deletionTimestamp === undefined ? undefined : Date.parse(meta.deletionTimestamp);
      found = { uid: meta.uid ?? '', deletionTimestamp: deleting, token: tokenOf(object.data), labels: meta.labels, secretType: object.type, data: stringData(object.data) };
      parsed.set(served, found);
    }
    return found;
  };
  const fromStore = async (kind: BoundKind, namespace: string, name: string): Promise<LiveObject | null> => {
    const object = await reader.get(types[kind]!, namespace, name);
    if (!object) return null;
    const deleting = object.metadata.deletionTimestamp;
    return {
      uid: object.metadata.uid ?? '',
      deletionTimestamp: deleting ? Date.parse(deleting) : undefined,
      token: tokenOf(object['data'] as { token?: unknown } | undefined),
      labels: object.metadata.labels,
      secretType: typeof object['type'] === 'string' ? object['type'] : undefined,
      data: stringData(object['data']),
    };
  };
  return {
    get(kind, namespace, name) {
      const type = types[kind];
      if (!type) return null; // a registry without the kind has no such object
      const cache = caches.of(type);
      if (!cache.following) return fromStore(kind, namespace, name);
      const cached = cache.get(objectKey(caches.store, type, namespace, name));
      if (cached) return live(cached.object);
      return caches.store.inProcess ? null : fromStore(kind, namespace, name);
    },
  };
}

/** A Secret's `data.token` (base64 on the wire), decoded; undefined for other objects. */
function tokenOf(data: { token?: unknown } | undefined): string | undefined {
  return typeof data?.token === 'string' ? Buffer.from(data.token, 'base64').toString('utf8') : undefined;
}

/** A Secret's `data` as its string values (base64, as on the wire). */
function stringData(data: unknown): Record<string, string> | undefined {
  if (data === null || typeof data !== 'object') return undefined;
  return Object.fromEntries(Object.entries(data).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}
