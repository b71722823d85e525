import { map, mergeMap, type Observable } from 'rxjs';
import {
  isStatusError,
  observedUsage,
  quotaStatusOf,
  statusWithUsage,
  typesCountedBy,
  usageOf,
  type CountedType,
  type KubeObject,
  type ResourceQuota,
  type Usage,
} from '../../src/api/index.js';
import { builtin, type InformerEvent } from '../../src/client/index.js';
import { mergeByKey, resync } from '../../operators/index.js';
import type { ControllerContext } from '../context.js';
import { controller, type ControllerResult } from '../controller.js';
import { CountedInformers } from './counted-informers.js';

export interface ResourceQuotaControllerOptions {
  /** Quotas recounted at once (`--concurrent-resource-quota-syncs`, default 5). */
  readonly concurrency?: number | undefined;
  /** Every quota is recounted after this even when nothing it counts changed (`--resource-quota-sync-period`, 5 min); 0: never. */
  readonly resyncPeriodMs?: number | undefined;
  /** The clock (ms): a pod past its deletion grace period no longer holds quota. */
  readonly now?: (() => number) | undefined;
}

// Kubernetes' canonical controller name (`--controllers` also accepts `resourcequota`).
const NAME = 'resourcequota-controller';

const quotaKey = (quota: KubeObject) => `${quota.metadata.namespace}/${quota.metadata.name}`;
const counts = (quota: KubeObject, type: CountedType) => typesCountedBy(quota).some((t) => t.group === type.group && t.resource === type.resource);

/**
 * Keeps every ResourceQuota's `status` true: `hard` as its spec says, `used` for each resource it
 * limits, counted from the informers' caches with the calculation the API server's quota
 * admission charges with (src/api/quota). A quota is recounted when it changes, when an object of
 * a type it counts changes in its namespace, and every resync period (what no event shows: a pod
 * whose deletion grace period ran out). Written through the status subresource, only on change,
 * at the cached resourceVersion (a 409 retries with the newer quota).
 */
export function resourceQuotaController(ctx: ControllerContext, options: ResourceQuotaControllerOptions = {}): Observable<ControllerResult<unknown>> {
  const quotas = ctx.informers.informer(builtin.resourceQuotas);
  const counted = new CountedInformers(ctx.discovery, ctx.informers);
  const now = options.now ?? Date.now;
  const period = options.resyncPeriodMs ?? 5 * 60_000;
  const quotaEvents = quotas.events$;
  // What each cached object version counts, computed once: a recount of 10,000 pods sums memos
  // instead of reading every pod's spec again. Keyed by the cache's object, so a new version (a
  // new object) is counted afresh and an old one's memo goes with it. A pod being deleted is
  // counted each time: its grace period running out changes what it counts.
  const memo = new WeakMap<KubeObject, Usage>();
  const countOnce = (type: CountedType, object: KubeObject): Usage => {
    if (object.metadata.deletionTimestamp) return usageOf(type, object, { now });
    let usage = memo.get(object);
    if (!usage) memo.set(object, (usage = usageOf(type, object, { now })));
    return usage;
  };

  // A change of a counted object: the quotas of its namespace that count its type.
  const objectChanges$ = counted.types$.pipe(
    mergeByKey(
      (type) => `${type.group}/${type.resource}`,
      (type) =>
        counted.cached(type)!.events$.pipe(
          mergeMap((event) => quotas.store.byIndex('namespace', event.object.metadata.namespace ?? '').filter((quota) => counts(quota, type))),
          map(quotaKey),
        ),
    ),
  );

  return controller<unknown>({
    ...ctx.controllerDefaults(NAME),
    name: NAME,
    for: { events$: period > 0 ? quotaEvents.pipe(resync({ period, isDelete: (e: InformerEvent<ResourceQuota>) => e.type === 'deleted' })) : quotaEvents, synced$: quotas.synced$ },
    watches: [objectChanges$],
    concurrency: options.concurrency ?? 5,
    stop$: ctx.stop$,
    reconcile: async (key) => {
      const quota = quotas.store.get(key);
      if (!quota || quota.metadata.deletionTimestamp) return;
      const informers = new Map<string, ReturnType<CountedInformers['cached']>>();
      for (const type of typesCountedBy(quota)) informers.set(`${type.group}/${type.resource}`, await counted.informer(type));
      const used = observedUsage(quota, (type, namespace) => informers.get(`${type.group}/${type.resource}`)?.store.byIndex('namespace', namespace), { now, usageOf: countOnce });
      const status = statusWithUsage(quota, used);
      if (sameStatus(status, quotaStatusOf(quota))) return;
      try {
        await ctx.client.updateStatus(builtin.resourceQuotas, { ...quota, status } as ResourceQuota, { namespace: quota.metadata.namespace });
      } catch (error) {
        // Gone: nothing to count. A newer quota (409): its own event recounts it.
        if (isStatusError(error) && (error.code === 404 || error.code === 409)) return;
        throw error;
      }
    },
  });
}

/** Equal amounts by name (`1000m` is `1`: the status is compared as quantities are). */
function sameStatus(a: { hard?: Record<string, unknown>; used?: Record<string, unknown> }, b: { hard?: Record<string, unknown>; used?: Record<string, unknown> }): boolean {
  const same = (x: Record<string, unknown> = {}, y: Record<string, unknown> = {}) =>
    Object.keys(x).length === Object.keys(y).length && Object.entries(x).every(([name, value]) => String(y[name]) === String(value));
  return same(a.hard, b.hard) && same(a.used, b.used);
}
