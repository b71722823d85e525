import type { KubeObject } from '../meta.js';
import { formatMilliQuantity, milliQuantity } from '../../browser-safe/index.js';
import { quotaTracks } from './scopes.js';
import { canonicalQuotaName, totalUsage, typeCounted, usageOf, type CountedType, type Usage, type UsageOptions } from './usage.js';

/** A ResourceQuota's status as stored: `hard` mirrors the spec, `used` what is counted against it. */
export interface QuotaStatus {
  hard?: Record<string, string | number>;
  used?: Record<string, string | number>;
}

export const hardOf = (quota: KubeObject): Record<string, string | number> => (quota['spec'] as { hard?: Record<string, string | number> } | undefined)?.hard ?? {};
export const quotaStatusOf = (quota: KubeObject): QuotaStatus => (quota['status'] as QuotaStatus | undefined) ?? {};

/** The recorded usage of a quota, by the quota's resource names (milli-units). */
export function recordedUsage(quota: KubeObject): Usage {
  const usage: Usage = new Map();
  for (const [name, value] of Object.entries(quotaStatusOf(quota).used ?? {})) {
    const milli = milliQuantity(value);
    if (milli !== undefined) usage.set(name, milli);
  }
  return usage;
}

/** A usage (by canonical names, as `usageOf` makes it) seen through a quota's resource names. */
export function inQuotaNames(quota: KubeObject, usage: Usage): Usage {
  const named: Usage = new Map();
  for (const name of Object.keys(hardOf(quota))) {
    const milli = usage.get(canonicalQuotaName(name));
    if (milli !== undefined) named.set(name, milli);
  }
  return named;
}

/** The status a quota has with this usage (by its resource names): `hard` from the spec, `used` for each of them. */
export function statusWithUsage(quota: KubeObject, used: Usage): QuotaStatus {
  const hard = hardOf(quota);
  const usedOut: Record<string, string> = {};
  for (const name of Object.keys(hard)) usedOut[name] = formatMilliQuantity(used.get(name) ?? 0);
  return { ...quotaStatusOf(quota), hard: { ...hard }, used: usedOut };
}

/** The quota object with that status. */
export const withUsage = <T extends KubeObject>(quota: T, used: Usage): T => ({ ...quota, status: statusWithUsage(quota, used) });

/** Objects of one type in one namespace, as the caller's cache holds them; undefined when it has none of that type. */
export type QuotaObjectLister = (type: CountedType, namespace: string) => Iterable<KubeObject> | undefined;

/** The types a quota's resource names count objects of, once each. */
export function typesCountedBy(quota: KubeObject): CountedType[] {
  const types = new Map<string, CountedType>();
  for (const name of Object.keys(hardOf(quota))) {
    const type = typeCounted(name);
    if (type) types.set(`${type.group}/${type.resource}`, type);
  }
  return [...types.values()];
}

/**
 * What a quota's namespace uses now of `names` (default: every resource the quota limits), by the
 * quota's resource names: the sum of `usageOf` over the objects the quota tracks. The calculation
 * both the API server (a quota's first count) and the resourcequota loop (every recount) make.
 */
export interface ObservedUsageOptions extends UsageOptions {
  /** Only these resource names (default: every one the quota limits). */
  readonly names?: readonly string[] | undefined;
  /** What one object counts, when the caller keeps it (a memo per cached version); default `usageOf`. */
  readonly usageOf?: ((type: CountedType, object: KubeObject) => Usage) | undefined;
}

export function observedUsage(quota: KubeObject, list: QuotaObjectLister, options: ObservedUsageOptions = {}): Usage {
  const namespace = quota.metadata.namespace ?? '';
  const names = options.names ?? Object.keys(hardOf(quota));
  const types = new Map<string, CountedType>();
  for (const name of names) {
    const type = typeCounted(name);
    if (type) types.set(`${type.group}/${type.resource}`, type);
  }
  const usages: Usage[] = [];
  for (const type of types.values()) {
    for (const object of list(type, namespace) ?? []) if (quotaTracks(quota, type, object)) usages.push(options.usageOf ? options.usageOf(type, object) : usageOf(type, object, options));
  }
  const named = inQuotaNames(quota, totalUsage(usages));
  const out: Usage = new Map();
  for (const name of names) out.set(name, named.get(name) ?? 0);
  return out;
}
