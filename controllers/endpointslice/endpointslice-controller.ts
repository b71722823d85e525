import { defer, filter, mergeMap, type Observable, type SchedulerLike } from 'rxjs';
import {
  ENDPOINTSLICE_CONTROLLER_MANAGER,
  ENDPOINTSLICE_MANAGED_BY_LABEL,
  ENDPOINTSLICE_MANAGED_BY_SVC_LABEL,
  SERVICE_NAME_LABELS,
  type EndpointSlice,
  type Node,
  type Pod,
  type Service,
} from '../../src/api/index.js';
import { builtin, type Informer } from '../../src/client/index.js';
import type { ControllerContext } from '../context.js';
import { controller, type ControllerResult, type SyncedSource } from '../controller.js';
import { controllerRef } from '../controller-ref.js';
import { applySlices, hasPodSelector, labelsFromService, podServiceTriggers, serviceFamilies, SliceTracker, type SliceWrites } from '../service-endpoints/index.js';
import { conditionsAtWrite } from './conditions-at-write.js';
import { desiredGroups, EndpointCache } from './desired-endpoints.js';
import { applyTopologyHints, topologyModeAuto, zoneCpuRatios } from './topology-hints.js';

export interface EndpointSliceControllerOptions {
  /** Services synced at once (`--concurrent-service-endpoint-syncs`, 5). */
  readonly concurrency?: number;
  /** `--max-endpoints-per-slice` (100). */
  readonly maxEndpointsPerSlice?: number;
  /** `--endpointslice-updates-batch-period` (ms, 0: none). */
  readonly batchPeriodMs?: number;
  readonly scheduler?: SchedulerLike;
  /**
   * Slice writes of one phase of a sync in flight at once (`applySlices`' `writesInFlight`;
   * default 4). A sync of a busy Service rewrites most of its slices, and a flip waits for two
   * syncs' writes (the one running, then its own): one after another that is two chains of ~50
   * round trips; four at a time cut a sync's time and the flip → slice p99 three- to four-fold
   * for two to three times the writes, while 16 or a whole phase at once bought no shorter sync
   * and flooded the slice watchers (docs/benchmarks.md, issue #24).
   */
  readonly writesInFlight?: number;
  /**
   * Each slice write carries its endpoints' conditions as the pod cache shows them when the write
   * is sent, not when the sync computed its plan (default true; false: as planned, for the
   * bench's A/B). See `applySlices`' `current`.
   */
  readonly conditionsAtWrite?: boolean;
  /** Called after each sync of a Service with a selector, with what it did and when (the bench splits a flip's latency by it). */
  readonly onSync?: (key: string, sync: SyncReport) => void;
}

/** One sync of a Service, its moments in `performance.now()` time. */
export interface SyncReport {
  readonly startedAt: number;
  /** When the desired slices were computed (the writes start). */
  readonly computedAt: number;
  readonly endedAt: number;
  readonly writes: SliceWrites;
  /** Each slice created or updated, with when the server's answer arrived. */
  readonly written: readonly { readonly slice: EndpointSlice; readonly at: number }[];
}

const SERVICE_TYPE = { group: '', version: 'v1', kind: 'Service' } as const;

/** Whether this loop manages the slice (either spelling of the managed-by label). */
export const managedByEndpointSliceController = (slice: EndpointSlice): boolean =>
  slice.metadata.labels?.[ENDPOINTSLICE_MANAGED_BY_LABEL] === ENDPOINTSLICE_CONTROLLER_MANAGER.upstream ||
  slice.metadata.labels?.[ENDPOINTSLICE_MANAGED_BY_SVC_LABEL] === ENDPOINTSLICE_CONTROLLER_MANAGER.svc;

/**
 * The EndpointSlice controller (kube-controller-manager's `endpointslice-controller`): the
 * EndpointSlices of every Service with a selector, per address family and port set, at most
 * `--max-endpoints-per-slice` endpoints each, with the ready/serving/terminating conditions,
 * node, zone and hints; rewritten with upstream's minimal churn (docs/controller-manager.md#endpointslice-controller).
 */
export function endpointSliceController(ctx: ControllerContext, options: EndpointSliceControllerOptions = {}): Observable<ControllerResult<unknown>> {
  const services = ctx.informers.informer(builtin.services, { indexers: { [TOPOLOGY_AUTO_INDEX]: topologyAutoIndex } });
  const pods = ctx.informers.informer(builtin.pods);
  const nodes = ctx.informers.informer(builtin.nodes);
  const slices = ctx.informers.informer(builtin.endpointSlices, { ownerIndex: true });
  const tracker = new SliceTracker();
  const cache = new EndpointCache();
  const scheduler = options.scheduler;
  const max = options.maxEndpointsPerSlice ?? 100;
  return controller<unknown>({
    ...ctx.controllerDefaults(ctx.name),
    name: ctx.name,
    for: services,
    // A slice changed by someone else (or deleted) is put back; the loop's own writes trigger nothing.
    owns: [{ events: { events$: slices.events$.pipe(filter((event) => !tracker.observed(event.type, event.object))), synced$: slices.synced$ }, group: '', kind: 'Service' }],
    watches: [podServiceTriggers(pods, services, { batchPeriodMs: options.batchPeriodMs ?? 0, ...(scheduler ? { scheduler } : {}) }), zoneShareTriggers(nodes, services)],
    concurrency: options.concurrency ?? 5,
    ...(scheduler ? { scheduler } : {}),
    reconcile: async (key) => {
      await syncSlices(ctx, key, { services, pods, nodes, slices, tracker, cache, max, writesInFlight: options.writesInFlight ?? 4, conditionsAtWrite: options.conditionsAtWrite ?? true, onSync: options.onSync });
    },
  });
}

/** The services informer's index of the Services with topology-mode Auto (all under one value). */
const TOPOLOGY_AUTO_INDEX = 'endpointslice-topology-auto';
const topologyAutoIndex = (service: Service): string[] => (topologyModeAuto(service) ? ['Auto'] : []);

/**
 * Nodes are read from the cache at each sync; only a change of the zones' CPU shares (a node
 * joining, leaving, becoming ready, relabelled, resized) resyncs something: the Services with
 * topology-mode Auto, whose hints follow the shares. Heartbeats change nothing. While no Service
 * asks for hints (the usual case) the shares are not computed at all — reading every node on each
 * node's status write is quadratic in the nodes — and the last ones are forgotten, so the first
 * node event after an Auto Service appears resyncs it whatever the shares.
 */
function zoneShareTriggers(nodes: Informer<Node>, services: Informer<Service>): SyncedSource<string> {
  return {
    events$: defer(() => {
      let last: string | undefined;
      return nodes.events$.pipe(
        filter((event) => event.type !== 'resync'),
        mergeMap(() => {
          const auto = services.store.indexKeys(TOPOLOGY_AUTO_INDEX, 'Auto');
          if (auto.length === 0) {
            last = undefined;
            return [];
          }
          const shares = JSON.stringify([...(zoneCpuRatios(nodes.store.list()) ?? [])]);
          if (shares === last) return [];
          last = shares;
          return auto;
        }),
      );
    }),
    synced$: nodes.synced$,
  };
}

interface SyncInput {
  readonly services: Informer<Service>;
  readonly pods: Informer<Pod>;
  readonly nodes: Informer<Node>;
  readonly slices: Informer<EndpointSlice>;
  readonly tracker: SliceTracker;
  readonly cache: EndpointCache;
  readonly max: number;
  readonly writesInFlight: number;
  readonly conditionsAtWrite: boolean;
  readonly onSync: EndpointSliceControllerOptions['onSync'];
}

async function syncSlices(ctx: ControllerContext, key: string, input: SyncInput): Promise<void> {
  const startedAt = performance.now();
  const service = input.services.store.get(key);
  // A deleted Service's slices go with it (the garbage collector follows their owner reference).
  if (!service || service.metadata.deletionTimestamp !== undefined || !hasPodSelector(service)) return undefined;
  const uid = service.metadata.uid!;
  const namespace = service.metadata.namespace!;
  const name = service.metadata.name!;
  const owned = input.slices.byOwner(uid).filter(managedByEndpointSliceController);
  const existing = input.tracker.current(owned, uid);
  let desired = desiredGroups(service, input.pods.store.byIndex('namespace', namespace), (node) => input.nodes.store.get(node), input.cache);
  if (topologyModeAuto(service)) {
    const applied = applyTopologyHints(desired, zoneCpuRatios(input.nodes.store.list()));
    desired = applied.groups;
    // An Event when hints come or go (not at every sync: a restart at steady state records nothing).
    for (const { addressType, outcome } of applied.families) {
      // The loop's own last write (a placeholder) may carry no endpoints field.
      const had = existing.some((slice) => slice.addressType === addressType && (slice.endpoints ?? []).some((e) => e.hints !== undefined));
      const involved = { apiVersion: 'v1', kind: 'Service', name, namespace, uid };
      if ('hints' in outcome && outcome.hints.size > 0 && !had) ctx.events.record(involved, 'Normal', 'TopologyAwareHintsEnabled', `Topology Aware Hints has been enabled, addressType: ${addressType}`);
      if ('disabled' in outcome && had) ctx.events.record(involved, 'Warning', 'TopologyAwareHintsDisabled', `${outcome.disabled}, addressType: ${addressType}`);
    }
  }
  const computedAt = performance.now();
  const written: { slice: EndpointSlice; at: number }[] = [];
  const onSync = input.onSync;
  const writes = await applySlices({
    client: ctx.client,
    tracker: input.tracker,
    namespace,
    owner: controllerRef(service, SERVICE_TYPE),
    namePrefix: `${name.slice(0, 57)}-`,
    existing,
    desired,
    labels: sliceLabels(service),
    maxPerSlice: input.max,
    placeholder: serviceFamilies(service)[0],
    writesInFlight: input.writesInFlight,
    ...(input.conditionsAtWrite ? { current: conditionsAtWrite(service, (name) => input.pods.store.get(`${namespace}/${name}`), (node) => input.nodes.store.get(node), input.cache) } : {}),
    ...(onSync ? { onWritten: (slice: EndpointSlice) => written.push({ slice, at: performance.now() }) } : {}),
  });
  onSync?.(key, { startedAt, computedAt, endedAt: performance.now(), writes, written });
}

/** A slice's labels: the Service's own, the Service's name and the manager, each in both spellings. */
function sliceLabels(service: Service): Record<string, string> {
  const labels = labelsFromService(service);
  for (const label of SERVICE_NAME_LABELS) labels[label] = service.metadata.name!;
  labels[ENDPOINTSLICE_MANAGED_BY_LABEL] = ENDPOINTSLICE_CONTROLLER_MANAGER.upstream;
  labels[ENDPOINTSLICE_MANAGED_BY_SVC_LABEL] = ENDPOINTSLICE_CONTROLLER_MANAGER.svc;
  return labels;
}
