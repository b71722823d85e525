import type { Observable, SchedulerLike } from 'rxjs';
import { filter, map } from 'rxjs';
import { canonicalJson, isStatusError, type Endpoints, type Pod, type Service } from '../../src/api/index.js';
import { builtin, type Informer, type InformerEvent } from '../../src/client/index.js';
import type { ControllerContext } from '../context.js';
import { controller, type ControllerResult } from '../controller.js';
import { labelsFromService, podServiceTriggers, selectedPods } from '../service-endpoints/index.js';
import { OVER_CAPACITY_ANNOTATION, OVER_CAPACITY_TRUNCATED, desiredSubsets, truncateSubsets, type EndpointSubset } from './endpoint-subsets.js';

/** The annotation of an Endpoints object used as a leader-election lock (old components did): never deleted as a leftover. */
const LEADER_ANNOTATION = 'control-plane.alpha.kubernetes.io/leader';

export interface EndpointsControllerOptions {
  /** Services synced at once (`--concurrent-endpoint-syncs`, 5). */
  readonly concurrency?: number;
  /** `--endpoint-updates-batch-period` (ms, 0: none): pod changes are held this long and each Service synced once for them. */
  readonly batchPeriodMs?: number;
  readonly scheduler?: SchedulerLike;
}

/**
 * The endpoints controller (kube-controller-manager's `endpoints-controller`): an Endpoints object
 * of the same name for every Service with a selector, listing the selected pods' addresses (ready
 * and not ready), the Service's ports resolved per pod, and cut to 1,000 addresses with the
 * over-capacity annotation past that. The Endpoints of a deleted Service go with it.
 * Selector-less Services' Endpoints are their authors' (docs/controller-manager.md#endpoints-controller).
 */
export function endpointsController(ctx: ControllerContext, options: EndpointsControllerOptions = {}): Observable<ControllerResult<unknown>> {
  const services = ctx.informers.informer(builtin.services);
  const pods = ctx.informers.informer(builtin.pods);
  const endpoints = ctx.informers.informer(builtin.endpoints);
  const scheduler = options.scheduler;
  return controller<unknown>({
    ...ctx.controllerDefaults(ctx.name),
    name: ctx.name,
    for: services,
    watches: [podServiceTriggers(pods, services, { batchPeriodMs: options.batchPeriodMs ?? 0, ...(scheduler ? { scheduler } : {}) }), removedEndpoints(endpoints)],
    concurrency: options.concurrency ?? 5,
    ...(scheduler ? { scheduler } : {}),
    reconcile: (key) => syncEndpoints(ctx, key, services, pods, endpoints),
  });
}

/** An Endpoints object deleted by someone else: its Service's key, so a controlled one is made again. */
function removedEndpoints(endpoints: Informer<Endpoints>) {
  return {
    events$: endpoints.events$.pipe(
      filter((event: InformerEvent<Endpoints>) => event.type === 'deleted'),
      map((event) => `${event.object.metadata.namespace}/${event.object.metadata.name}`),
    ),
    synced$: endpoints.synced$,
  };
}

async function syncEndpoints(ctx: ControllerContext, key: string, services: Informer<Service>, pods: Informer<Pod>, endpoints: Informer<Endpoints>): Promise<void> {
  const slash = key.indexOf('/');
  const namespace = key.slice(0, slash);
  const name = key.slice(slash + 1);
  const service = services.store.get(key);
  const current = endpoints.store.get(key);
  if (!service) {
    if (current && current.metadata.annotations?.[LEADER_ANNOTATION] === undefined) {
      try {
        await ctx.client.delete(builtin.endpoints, name, { namespace, preconditions: { uid: current.metadata.uid! } });
      } catch (error) {
        if (!isStatusError(error, 'NotFound') && !isStatusError(error, 'Conflict')) throw error;
      }
    }
    return;
  }
  const selector = service.spec?.selector;
  if (!selector || Object.keys(selector).length === 0 || service.metadata.deletionTimestamp !== undefined) return;

  const { subsets, truncated } = truncateSubsets(desiredSubsets(service, selectedPods(service, pods)));
  const labels = labelsFromService(service);
  const annotations: Record<string, string> = { ...current?.metadata.annotations };
  if (truncated) annotations[OVER_CAPACITY_ANNOTATION] = OVER_CAPACITY_TRUNCATED;
  else delete annotations[OVER_CAPACITY_ANNOTATION];
  if (current && sameSubsets(current.subsets ?? [], subsets) && sameMap(current.metadata.labels, labels) && sameMap(current.metadata.annotations, annotations)) return;

  const metadata = { ...current?.metadata, name, namespace, labels, annotations };
  if (Object.keys(annotations).length === 0) delete (metadata as { annotations?: unknown }).annotations;
  const object: Endpoints = { apiVersion: 'v1', kind: 'Endpoints', metadata, ...(subsets.length > 0 ? { subsets } : {}) };
  try {
    if (current) await ctx.client.update(builtin.endpoints, object, { namespace });
    else await ctx.client.create(builtin.endpoints, object, { namespace });
  } catch (error) {
    // A namespace being deleted refuses new objects: nothing to publish there.
    if (isStatusError(error, 'Forbidden') && service.metadata.namespace !== undefined && !current) return;
    ctx.events.record(involved(service), 'Warning', current ? 'FailedToUpdateEndpoint' : 'FailedToCreateEndpoint', `Failed to ${current ? 'update' : 'create'} endpoint ${key}: ${error instanceof Error ? error.message : String(error)}`);
    throw error;
  }
}

function involved(service: Service) {
  const { name, namespace, uid, resourceVersion } = service.metadata;
  return { apiVersion: 'v1', kind: 'Service', name: name!, namespace, uid, resourceVersion };
}

// Stored Endpoints come back with the server's defaults (ports' protocol), which desiredSubsets writes too; key order is the decoder's.
const sameSubsets = (a: readonly EndpointSubset[], b: readonly EndpointSubset[]): boolean => canonicalJson(a) === canonicalJson(b);

function sameMap(a: Readonly<Record<string, string>> | undefined, b: Readonly<Record<string, string>> | undefined): boolean {
  const ak = Object.keys(a ?? {});
  if (ak.length !== Object.keys(b ?? {}).length) return false;
  for (const key of ak) if (a![key] !== b?.[key]) return false;
  return true;
}
