import type { ResourceRegistry } from '../../api/index.js';
import { isStorageError, type Store } from '../../storage/index.js';
import { isTerminating, namespaceType } from '../namespaces.js';
import { apiVersionOf } from '../api-object.js';
import { collectionPrefix, objectKey } from '../object-keys.js';
import { decodeStored, encodeForStorage } from '../storage-codec.js';
import { prepareForCreate } from '../writes/prepare.js';
import { DEFAULT_SERVICE_ACCOUNT } from './service-account.js';

/**
 * Every namespace gets a `default` ServiceAccount the moment it is created, in the same request,
 * so a pod created right after its namespace finds its account (the ServiceAccount plugin
 * requires it). This is the service-accounts controller's job in Kubernetes; svc's controller
 * manager can take it over, as creating an account that exists is a no-op.
 */
export async function ensureDefaultServiceAccount(store: Store, registry: ResourceRegistry, namespace: string): Promise<void> {
  const type = registry.lookup('', 'v1', 'serviceaccounts');
  if (!type) return;
  const account = prepareForCreate({ apiVersion: apiVersionOf(type), kind: type.kind, metadata: { name: DEFAULT_SERVICE_ACCOUNT, namespace } });
  try {
    await store.create(objectKey(store, type, namespace, DEFAULT_SERVICE_ACCOUNT), encodeForStorage(account));
  } catch (error) {
    if (!isStorageError(error, 'AlreadyExists')) throw error;
  }
}

/** At start: the `default` account of every live namespace (the system ones, and any made before accounts were). */
export async function ensureDefaultServiceAccounts(store: Store, registry: ResourceRegistry): Promise<void> {
  const type = namespaceType(registry);
  const { items } = await store.list(collectionPrefix(store, type));
  for (const kv of items) {
    const ns = decodeStored(kv);
    if (!isTerminating(ns)) await ensureDefaultServiceAccount(store, registry, ns.metadata.name!);
  }
}
