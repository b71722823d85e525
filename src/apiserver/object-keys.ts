import type { ResourceType } from '../api/index.js';
import type { Store } from '../storage/index.js';

/**
 * Where a type's objects live, under the store's prefix (`/registry/` unless `--etcd-prefix` says
 * otherwise): `<prefix><group or core>/<resource>/[<namespace>/]<name>`.
 */
export function collectionPrefix(store: Pick<Store, 'prefix'>, type: ResourceType, namespace?: string): string {
  const base = `${store.prefix}${type.group || 'core'}/${type.resource}/`;
  return type.namespaced && namespace !== undefined ? `${base}${namespace}/` : base;
}

export function objectKey(store: Pick<Store, 'prefix'>, type: ResourceType, namespace: string | undefined, name: string): string {
  return `${collectionPrefix(store, type, type.namespaced ? namespace : undefined)}${name}`;
}
