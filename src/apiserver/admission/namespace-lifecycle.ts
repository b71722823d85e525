import { forbidden, notFound } from '../../api/index.js';
import { isTerminating, namespaceType } from '../namespaces.js';
import type { ApiObject } from '../api-object.js';
import type { AdmissionAttributes } from './attributes.js';
import type { AdmissionEnv, AdmissionPlugin } from './plugin.js';

/** Namespaces that can never be deleted (kube's default, kube-system, kube-public). */
export const IMMORTAL_NAMESPACES: ReadonlySet<string> = new Set(['default', 'svc-system', 'svc-public']);

/** A namespace as admission sees it: from the cache, or from the store when the cache has not seen it yet (etcd lag). */
export async function namespaceOf(env: AdmissionEnv, name: string): Promise<ApiObject | undefined> {
  const type = namespaceType(env.registry);
  return env.objects.get(type, undefined, name) ?? (await env.reader.get(type, undefined, name));
}

function requireLive(attrs: AdmissionAttributes, ns: ApiObject | undefined): void {
  if (!ns) throw notFound({ group: '', resource: 'namespaces' }, attrs.namespace);
  if (isTerminating(ns)) {
    throw forbidden(
      { group: attrs.type.group, resource: attrs.type.resource },
      attrs.name,
      `unable to create new content in namespace ${attrs.namespace} because it is being terminated`,
    );
  }
}

/**
 * NamespaceLifecycle: new content needs a live namespace (a missing one is 404, a terminating
 * one 403), and the system namespaces cannot be deleted (403).
 */
export function namespaceLifecycle(env: AdmissionEnv): AdmissionPlugin {
  return {
    name: 'NamespaceLifecycle',
    appliesTo: ({ operation, type }) => (operation === 'DELETE' && type === namespaceType(env.registry)) || (operation === 'CREATE' && type.namespaced),
    validate(attrs: AdmissionAttributes) {
      const { type } = attrs;
      if (attrs.operation === 'DELETE' && type === namespaceType(env.registry) && IMMORTAL_NAMESPACES.has(attrs.name)) {
        throw forbidden({ group: '', resource: 'namespaces' }, attrs.name, 'this namespace may not be deleted');
      }
      if (attrs.operation !== 'CREATE' || !type.namespaced || attrs.namespace === '') return;
      // The cache nearly always has it: checked at once, the store asked only when it does not.
      const cached = env.objects.get(namespaceType(env.registry), undefined, attrs.namespace);
      if (cached) return requireLive(attrs, cached);
      return namespaceOf(env, attrs.namespace).then((ns) => requireLive(attrs, ns));
    },
  };
}
