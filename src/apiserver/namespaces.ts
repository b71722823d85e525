import { rfc3339, NAMESPACE_FINALIZER, type ResourceRegistry, type ResourceType } from '../api/index.js';
import { isStorageError, type Store } from '../storage/index.js';
import { apiVersionOf, type ApiObject } from './api-object.js';
import { encodeForStorage } from './storage-codec.js';
import { objectKey } from './object-keys.js';
import { prepareForCreate } from './writes/prepare.js';

/** Namespaces that exist from the first start. */
export const SYSTEM_NAMESPACES = ['default', 'svc-system', 'svc-public', 'svc-node-lease'] as const;

export const namespaceType = (registry: ResourceRegistry): ResourceType => registry.lookup('', 'v1', 'namespaces')!;

export const isTerminating = (ns: ApiObject) =>
  ns.metadata.deletionTimestamp !== undefined || (ns['status'] as { phase?: string } | undefined)?.phase === 'Terminating';

/** A new namespace is Active and carries the finalizer the namespace controller will remove. */
export function prepareNamespace(object: ApiObject): ApiObject {
  const spec = (object['spec'] as { finalizers?: string[] } | undefined) ?? {};
  const finalizers = spec.finalizers?.includes(NAMESPACE_FINALIZER) ? spec.finalizers : [...(spec.finalizers ?? []), NAMESPACE_FINALIZER];
  return { ...object, spec: { ...spec, finalizers }, status: { phase: 'Active' } };
}

/** Deleting a namespace only marks it: its contents go first (the namespace controller's job). */
export function markNamespaceTerminating(ns: ApiObject, now = new Date()): ApiObject {
  return {
    ...ns,
    metadata: { ...ns.metadata, deletionTimestamp: ns.metadata.deletionTimestamp ?? rfc3339(now) },
    status: { ...((ns['status'] as object | undefined) ?? {}), phase: 'Terminating' },
  };
}

/** Creates the system namespaces that are missing. */
export async function ensureSystemNamespaces(store: Store, registry: ResourceRegistry): Promise<void> {
  const type = namespaceType(registry);
  for (const name of SYSTEM_NAMESPACES) {
    const object = prepareNamespace(
      prepareForCreate({ apiVersion: apiVersionOf(type), kind: type.kind, metadata: { name } }),
    );
    try {
      await store.create(objectKey(store, type, undefined, name), encodeForStorage(object));
    } catch (error) {
      if (!isStorageError(error, 'AlreadyExists')) throw error;
    }
  }
}
