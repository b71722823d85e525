import { Observable, mergeMap, from, type SchedulerLike } from 'rxjs';
import type { Pod, Service } from '../../src/api/index.js';
import type { Informer, InformerEvent } from '../../src/client/index.js';
import { batch } from '../../operators/index.js';
import type { SyncedSource } from '../controller.js';

/**
 * Whether the Service's selector picks the pod: every key of `spec.selector` is a label of the
 * pod with that value. A Service without a selector (or with an empty one) picks no pod: its
 * endpoints are someone else's to write.
 */
export function serviceSelects(service: Service, pod: Pod): boolean {
  const selector = service.spec?.selector;
  if (!selector) return false;
  const keys = Object.keys(selector);
  if (keys.length === 0) return false;
  const labels = pod.metadata.labels;
  if (!labels) return false;
  for (const key of keys) if (labels[key] !== selector[key]) return false;
  return true;
}

/** Whether a Service has endpoints a controller computes from pods: a selector, and not an ExternalName. */
export const hasPodSelector = (service: Service): boolean => service.spec?.selector !== undefined && service.spec.type !== 'ExternalName';

/** The pods of the Service's namespace it selects. */
export function selectedPods(service: Service, pods: Informer<Pod>): Pod[] {
  if (!service.spec?.selector || Object.keys(service.spec.selector).length === 0) return [];
  return pods.store.byIndex('namespace', service.metadata.namespace!).filter((pod) => serviceSelects(service, pod));
}

export interface PodTriggerOptions {
  /**
   * How long the keys of pod changes are held before they are handed on (the
   * `--endpoint(slice)-updates-batch-period`): every Service a burst of pod changes touches is
   * then synced once. 0 hands each on at once (the work queue still folds a key queued twice).
   */
  readonly batchPeriodMs: number;
  readonly scheduler?: SchedulerLike;
}

/**
 * The keys of the Services a pod change concerns: those selecting the pod now, and — when its
 * labels changed — those that selected it before (it leaves them). A pod change that cannot move
 * an endpoint (a status field other than IPs, readiness and phase, an annotation) triggers
 * nothing: a busy node agent's status writes cost the loop no sync.
 */
export function podServiceTriggers(pods: Informer<Pod>, services: Informer<Service>, options: PodTriggerOptions): SyncedSource<string> {
  const keys = new Observable<string>((subscriber) =>
    pods.events$.subscribe({
      next: (event) => {
        for (const key of servicesOfChange(event, services)) subscriber.next(key);
      },
      error: (error: unknown) => subscriber.error(error),
      complete: () => subscriber.complete(),
    }),
  );
  const events$ =
    options.batchPeriodMs > 0
      ? keys.pipe(
          batch<string>({ period: options.batchPeriodMs, ...(options.scheduler ? { scheduler: options.scheduler } : {}) }),
          mergeMap((batched) => from(new Set(batched))),
        )
      : keys;
  return { events$, synced$: pods.synced$ };
}

function servicesOfChange(event: InformerEvent<Pod>, services: Informer<Service>): Set<string> {
  const found = new Set<string>();
  if (event.type === 'resync') return found;
  const pod = event.object;
  const namespace = pod.metadata.namespace ?? '';
  // A namespace without Services (a density run's): no change of its pods concerns one, and
  // saying so decodes nothing of either version (two loops look at every pod change).
  const candidates = services.store.byIndex('namespace', namespace);
  if (candidates.length === 0) return found;
  const old = event.type === 'updated' ? event.old : undefined;
  if (old !== undefined && !endpointRelevantChange(old, pod)) return found;
  for (const service of candidates) {
    if (serviceSelects(service, pod) || (old !== undefined && serviceSelects(service, old))) found.add(`${namespace}/${service.metadata.name!}`);
  }
  return found;
}

/** Whether a pod update may change an endpoint: labels, IPs, readiness, phase, deletion, node, hostname or ports. */
function endpointRelevantChange(old: Pod, pod: Pod): boolean {
  if (old.metadata.resourceVersion === pod.metadata.resourceVersion) return false;
  if (old.metadata.deletionTimestamp !== pod.metadata.deletionTimestamp) return true;
  if (!sameRecord(old.metadata.labels, pod.metadata.labels)) return true;
  if (old.status?.phase !== pod.status?.phase || old.status?.podIP !== pod.status?.podIP) return true;
  if (JSON.stringify(old.status?.podIPs ?? []) !== JSON.stringify(pod.status?.podIPs ?? [])) return true;
  if (readyOf(old) !== readyOf(pod)) return true;
  // The spec is immutable but for a few fields (node binding, hostname-bearing fields are fixed at creation): compare what endpoints copy.
  return old.spec?.nodeName !== pod.spec?.nodeName || old.spec?.hostname !== pod.spec?.hostname || old.spec?.subdomain !== pod.spec?.subdomain;
}

const readyOf = (pod: Pod): string | undefined => pod.status?.conditions?.find((c) => c.type === 'Ready')?.status;

function sameRecord(a: Readonly<Record<string, string>> | undefined, b: Readonly<Record<string, string>> | undefined): boolean {
  const ak = Object.keys(a ?? {});
  const bk = Object.keys(b ?? {});
  if (ak.length !== bk.length) return false;
  for (const key of ak) if (a![key] !== b![key]) return false;
  return true;
}
