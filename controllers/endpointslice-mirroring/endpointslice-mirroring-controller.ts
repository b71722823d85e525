import { filter, from, map, mergeMap, type Observable, type SchedulerLike } from 'rxjs';
import {
  ENDPOINTSLICE_MANAGED_BY_LABEL,
  ENDPOINTSLICE_MANAGED_BY_SVC_LABEL,
  ENDPOINTSLICE_MIRRORING_MANAGER,
  SERVICE_NAME_LABELS,
  SKIP_MIRROR_LABEL,
  isStatusError,
  type EndpointSlice,
  type Endpoints,
  type Service,
} from '../../src/api/index.js';
import { builtin, type Informer } from '../../src/client/index.js';
import { batch, toKey } from '../../operators/index.js';
import type { ControllerContext } from '../context.js';
import { controller, type ControllerResult } from '../controller.js';
import { controllerRef } from '../controller-ref.js';
import { applySlices, SliceTracker } from '../service-endpoints/index.js';
import { mirroredGroups } from './mirrored-endpoints.js';

export interface EndpointSliceMirroringControllerOptions {
  /** `--mirroring-concurrent-service-endpoint-syncs` (5). */
  readonly concurrency?: number;
  /** `--mirroring-max-endpoints-per-subset` (1000): also the most endpoints of one mirrored slice. */
  readonly maxEndpointsPerSubset?: number;
  /** `--mirroring-endpointslice-updates-batch-period` (ms, 0: none): Endpoints changes are held this long. */
  readonly batchPeriodMs?: number;
  readonly scheduler?: SchedulerLike;
}

/** Annotations of an Endpoints object that its slices do not copy. */
const NOT_MIRRORED_ANNOTATIONS = ['endpoints.kubernetes.io/last-change-trigger-time', 'kubectl.kubernetes.io/last-applied-configuration', 'control-plane.alpha.kubernetes.io/leader'];
const LEADER_ANNOTATION = 'control-plane.alpha.kubernetes.io/leader';

const ENDPOINTS_TYPE = { group: '', version: 'v1', kind: 'Endpoints' } as const;

export const managedByMirroringController = (slice: EndpointSlice): boolean =>
  slice.metadata.labels?.[ENDPOINTSLICE_MANAGED_BY_LABEL] === ENDPOINTSLICE_MIRRORING_MANAGER.upstream ||
  slice.metadata.labels?.[ENDPOINTSLICE_MANAGED_BY_SVC_LABEL] === ENDPOINTSLICE_MIRRORING_MANAGER.svc;

/**
 * The EndpointSlice mirroring controller (kube-controller-manager's
 * `endpointslice-mirroring-controller`): the Endpoints a user writes for a Service without a
 * selector are mirrored into EndpointSlices (owned by the Endpoints, labelled with the Service's
 * name and the mirroring manager), so readers of slices see them. Endpoints of Services with a
 * selector (the endpoints loop's), without a Service, labelled `endpointslice.kubernetes.io/skip-mirror: "true"`
 * or used as a leader-election lock are not mirrored, and their mirrored slices go
 * (docs/controller-manager.md#endpointslice-mirroring-controller).
 */
export function endpointSliceMirroringController(ctx: ControllerContext, options: EndpointSliceMirroringControllerOptions = {}): Observable<ControllerResult<unknown>> {
  const endpoints = ctx.informers.informer(builtin.endpoints);
  const services = ctx.informers.informer(builtin.services);
  const slices = ctx.informers.informer(builtin.endpointSlices, { ownerIndex: true });
  const tracker = new SliceTracker();
  const scheduler = options.scheduler;
  const period = options.batchPeriodMs ?? 0;
  const endpointKeys = endpoints.events$.pipe(toKey());
  return controller<unknown>({
    ...ctx.controllerDefaults(ctx.name),
    name: ctx.name,
    for: {
      events$: (period > 0 ? endpointKeys.pipe(batch<string>({ period, ...(scheduler ? { scheduler } : {}) }), mergeMap((keys) => from(new Set(keys)))) : endpointKeys).pipe(map((key) => keyObject(key))),
      synced$: endpoints.synced$,
    },
    owns: [{ events: { events$: slices.events$.pipe(filter((event) => !tracker.observed(event.type, event.object))), synced$: slices.synced$ }, group: '', kind: 'Endpoints' }],
    // A Service's selector decides whether its Endpoints are mirrored: its changes sync them.
    watches: [{ events$: services.events$.pipe(toKey()), synced$: services.synced$ }],
    concurrency: options.concurrency ?? 5,
    ...(scheduler ? { scheduler } : {}),
    reconcile: (key) => syncMirror(ctx, key, { endpoints, services, slices, tracker, max: options.maxEndpointsPerSubset ?? 1000 }),
  });
}

/** A key as the object shape `for` maps back to the same key. */
function keyObject(key: string) {
  const slash = key.indexOf('/');
  return { metadata: { namespace: key.slice(0, slash), name: key.slice(slash + 1) } };
}

interface MirrorInput {
  readonly endpoints: Informer<Endpoints>;
  readonly services: Informer<Service>;
  readonly slices: Informer<EndpointSlice>;
  readonly tracker: SliceTracker;
  readonly max: number;
}

async function syncMirror(ctx: ControllerContext, key: string, input: MirrorInput): Promise<void> {
  const object = input.endpoints.store.get(key);
  if (!object) return; // its slices are owned by it: the garbage collector takes them
  const namespace = object.metadata.namespace!;
  const uid = object.metadata.uid!;
  const service = input.services.store.get(key);
  const existing = input.tracker.current(input.slices.byOwner(uid).filter(managedByMirroringController), uid);
  const mirror =
    service !== undefined &&
    service.spec?.selector === undefined &&
    object.metadata.labels?.[SKIP_MIRROR_LABEL] !== 'true' &&
    object.metadata.annotations?.[LEADER_ANNOTATION] === undefined &&
    object.metadata.deletionTimestamp === undefined;
  if (!mirror) {
    for (const slice of existing) {
      try {
        await ctx.client.delete(builtin.endpointSlices, slice.metadata.name!, { namespace, preconditions: { uid: slice.metadata.uid! } });
      } catch (error) {
        if (!isStatusError(error, 'NotFound')) throw error;
      }
      input.tracker.deleted(slice);
    }
    return;
  }
  const { groups, truncated, invalid } = mirroredGroups(object, input.max);
  const involved = { apiVersion: 'v1', kind: 'Endpoints', name: object.metadata.name!, namespace, uid, resourceVersion: object.metadata.resourceVersion };
  if (truncated > 0) ctx.events.record(involved, 'Warning', 'MirroringEndpointsTruncated', `${truncated} addresses past --mirroring-max-endpoints-per-subset (${input.max}) per subset were not mirrored to EndpointSlices`);
  if (invalid > 0) ctx.events.record(involved, 'Warning', 'MirroringAddressesSkipped', `${invalid} addresses that are not IPs were not mirrored to EndpointSlices`);
  await applySlices({
    client: ctx.client,
    tracker: input.tracker,
    namespace,
    owner: controllerRef(object, ENDPOINTS_TYPE),
    namePrefix: `${object.metadata.name!.slice(0, 57)}-`,
    existing,
    desired: groups,
    labels: mirroredLabels(object),
    annotations: mirroredAnnotations(object),
    maxPerSlice: input.max,
  });
}

/** The Endpoints' labels, with the Service's name and the mirroring manager in both spellings. */
function mirroredLabels(endpoints: Endpoints): Record<string, string> {
  const labels: Record<string, string> = { ...endpoints.metadata.labels };
  delete labels[SKIP_MIRROR_LABEL];
  for (const label of SERVICE_NAME_LABELS) labels[label] = endpoints.metadata.name!;
  labels[ENDPOINTSLICE_MANAGED_BY_LABEL] = ENDPOINTSLICE_MIRRORING_MANAGER.upstream;
  labels[ENDPOINTSLICE_MANAGED_BY_SVC_LABEL] = ENDPOINTSLICE_MIRRORING_MANAGER.svc;
  return labels;
}

function mirroredAnnotations(endpoints: Endpoints): Record<string, string> {
  const annotations: Record<string, string> = { ...endpoints.metadata.annotations };
  for (const key of NOT_MIRRORED_ANNOTATIONS) delete annotations[key];
  return annotations;
}
