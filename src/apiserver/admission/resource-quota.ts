import {
  COMPUTE_RESOURCES,
  forbidden,
  formatMilliQuantity,
  hardOf,
  inQuotaNames,
  milliQuantity,
  missingCompute,
  observedUsage,
  quotaTracks,
  recordedUsage,
  usageOf,
  withUsage,
  type Usage,
} from '../../api/index.js';
import { isStorageError } from '../../storage/index.js';
import { encodeForStorage } from '../storage-codec.js';
import { objectKey } from '../object-keys.js';
import { type ApiObject } from '../api-object.js';
import type { AdmissionAttributes } from './attributes.js';
import type { AdmissionEnv, AdmissionPlugin, AdmissionRequestScope } from './plugin.js';
import { cachedQuotaObjects } from './quota-objects.js';

/** Compare-and-swap attempts on one quota before the request gives up (each loses only to a concurrent charge). */
const CHARGE_ATTEMPTS = 32;

const pretty = (usage: Usage, names: readonly string[]) =>
  [...names].sort().map((name) => `${name}=${formatMilliQuantity(usage.get(name) ?? 0)}`).join(',');

/**
 * ResourceQuota: a new object in a namespace with quotas is charged against each quota that
 * limits something it uses. The charge is the quota's `status.used` written back with the
 * store's compare-and-swap, so of two concurrent creates that would both fit alone only one can
 * win the last unit: the other re-reads the quota and is refused (403 `exceeded quota: ...`).
 * A dry run is checked the same way and charges nothing. Pods must set every compute resource a
 * quota limits (403 `failed quota: ...: must specify ...`).
 */
export function resourceQuota(env: AdmissionEnv): AdmissionPlugin {
  const quotaType = env.registry.lookup('', 'v1', 'resourcequotas')!;

  const cached = cachedQuotaObjects(env.registry, env.objects);

  async function update(quota: ApiObject, used: Usage): Promise<boolean> {
    const key = objectKey(env.store, quotaType, quota.metadata.namespace, quota.metadata.name!);
    try {
      await env.store.update(key, encodeForStorage(withUsage(quota, used)), Number(quota.metadata.resourceVersion));
      return true;
    } catch (error) {
      if (isStorageError(error, 'Conflict') || isStorageError(error, 'NotFound')) return false;
      throw error;
    }
  }

  /** Gives back a charge after a later quota refused the request (best effort: the usage sync recounts anyway). */
  async function refund(namespace: string, name: string, delta: Usage): Promise<void> {
    for (let attempt = 0; attempt < CHARGE_ATTEMPTS; attempt++) {
      const quota = await env.reader.get(quotaType, namespace, name);
      if (!quota) return;
      const used = recordedUsage(quota);
      for (const [resource, milli] of delta) if (used.has(resource)) used.set(resource, Math.max(0, used.get(resource)! - milli));
      if (await update(quota, used)) return;
    }
  }

  /** Charges the request to every quota of the namespace that tracks it (refused when one would go over). */
  async function charge(attrs: AdmissionAttributes, scope: AdmissionRequestScope, quotas: readonly ApiObject[], object: ApiObject): Promise<void> {
    const { type, namespace } = attrs;
    // By canonical names; each quota sees it through its own names (an upstream group in `count/`).
    const usage = usageOf(type, object);
    const isPod = type.group === '' && type.resource === 'pods';
    const relevant = quotas
      .filter((q) => quotaTracks(q, type, object))
      .filter((q) => inQuotaNames(q, usage).size > 0 || (isPod && Object.keys(hardOf(q)).some((name) => (COMPUTE_RESOURCES as readonly string[]).includes(name))))
      .map((q) => q.metadata.name!)
      .sort();
    if (relevant.length === 0) return;

    if (isPod) {
      for (const quota of quotas.filter((q) => relevant.includes(q.metadata.name!))) {
        const missing = Object.keys(hardOf(quota))
          .filter((name) => (COMPUTE_RESOURCES as readonly string[]).includes(name))
          .sort()
          .map((name) => [name, missingCompute(object, name)] as const)
          .filter(([, containers]) => containers.length > 0);
        if (missing.length > 0) {
          throw forbidden(
            { group: type.group, resource: type.resource },
            attrs.name,
            `failed quota: ${quota.metadata.name}: must specify ${missing.map(([name, containers]) => `${name} for: ${containers.join(',')}`).join('; ')}`,
          );
        }
      }
    }

    const charged: [string, Usage][] = [];
    for (const name of relevant) {
      for (let attempt = 1; ; attempt++) {
        // The store's copy, not the cache's: the compare-and-swap must start from the latest charge.
        const quota = await env.reader.get(quotaType, namespace, name);
        if (!quota) break;
        const hard = hardOf(quota);
        const delta = inQuotaNames(quota, usage);
        const used = recordedUsage(quota);
        const unrecorded = Object.keys(hard).filter((resource) => delta.has(resource) && !used.has(resource));
        if (unrecorded.length > 0) {
          // What the namespace uses now, from the cache: the base of a resource never recorded.
          for (const [resource, milli] of observedUsage(quota, cached, { names: unrecorded })) used.set(resource, milli);
        }
        const exceeded = Object.keys(hard).filter((resource) => delta.has(resource) && used.get(resource)! + delta.get(resource)! > milliQuantity(hard[resource])!);
        if (exceeded.length > 0) {
          await Promise.all(charged.map(([done, given]) => refund(namespace, done, given)));
          const limited: Usage = new Map(exceeded.map((resource) => [resource, milliQuantity(hard[resource])!]));
          throw forbidden(
            { group: type.group, resource: type.resource },
            attrs.name,
            `exceeded quota: ${name}, requested: ${pretty(delta, exceeded)}, used: ${pretty(used, exceeded)}, limited: ${pretty(limited, exceeded)}`,
          );
        }
        if (attrs.dryRun) break;
        for (const [resource, milli] of delta) if (resource in hard) used.set(resource, (used.get(resource) ?? 0) + milli);
        if (await update(quota, used)) {
          charged.push([name, delta]);
          scope.onAbandon(() => refund(namespace, name, delta));
          break;
        }
        if (attempt >= CHARGE_ATTEMPTS) {
          await Promise.all(charged.map(([done, given]) => refund(namespace, done, given)));
          throw forbidden({ group: type.group, resource: type.resource }, attrs.name, `status unknown for quota: ${name}: too many concurrent updates, try again`);
        }
      }
    }
  }

  return {
    name: 'ResourceQuota',
    appliesTo: ({ operation, type, subresource }) => operation === 'CREATE' && subresource === '' && type.namespaced,
    validate(attrs: AdmissionAttributes, scope) {
      const { type, namespace, object } = attrs;
      if (attrs.operation !== 'CREATE' || attrs.subresource !== '' || !type.namespaced || !object || namespace === '') return;
      const quotas = env.objects.list(quotaType, namespace);
      // Most namespaces have no quota: then there is nothing to wait for.
      return quotas.length === 0 ? undefined : charge(attrs, scope, quotas, object);
    },
  };
}
