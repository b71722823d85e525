import { EMPTY, Observable, asyncScheduler, combineLatest, ignoreElements, map, merge, timer, type SchedulerLike } from 'rxjs';
import { isStatusError, rfc3339, type Lease, type Node, type Pod } from '../../src/api/index.js';
import { builtin, type Client, type EventSink, type Informer } from '../../src/client/index.js';
import type { ControllerContext } from '../context.js';
import { controller, type ControllerResult } from '../controller.js';
import { NodeHealth, unknownConditions } from './node-health.js';
import { NodeReadings, type NodeReading } from './node-reading.js';
import { conditionTaintKey, noExecuteKey, withManagedTaints } from './node-taints.js';
import { POD_NODE_INDEX, podNodeIndex } from './pods-on-node.js';
import { ZoneLimiter } from './zone-limiter.js';
import { zoneRate, zoneStates, type ZoneState } from './zone-state.js';

export interface NodeLifecycleOptions {
  /** `--node-monitor-period` (5 s): how often nodes are judged. */
  readonly monitorPeriodMs: number;
  /** `--node-monitor-grace-period` (50 s): silence after which a node's conditions turn Unknown. */
  readonly gracePeriodMs: number;
  /** `--node-startup-grace-period` (60 s): the same for a node that never reported Ready. */
  readonly startupGracePeriodMs: number;
  /** `--node-eviction-rate` (0.1 nodes/s). */
  readonly evictionRate: number;
  /** `--secondary-node-eviction-rate` (0.01 nodes/s). */
  readonly secondaryEvictionRate: number;
  /** `--large-cluster-size-threshold` (50). */
  readonly largeClusterThreshold: number;
  /** `--unhealthy-zone-threshold` (0.55). */
  readonly unhealthyZoneThreshold: number;
  /** The clock and the pass timer; tests pass a virtual one. Default: real time. */
  readonly scheduler?: SchedulerLike;
  /** Called with each zone's state after every pass (tests, the bench). */
  readonly onZoneStates?: (states: ReadonlyMap<string, ZoneState>) => void;
}

const NAME = 'node-lifecycle-controller';
const KEY = 'node-lifecycle';
/** Where node agents keep their heartbeat Leases. */
export const NODE_LEASE_NAMESPACE = 'svc-node-lease';

/**
 * The node lifecycle controller (upstream's `nodelifecycle`), one pass per monitor period:
 *
 * 1. a node whose agent has neither renewed its Lease nor posted a heartbeat for the grace period
 *    (the startup grace for one that never reported) gets all its conditions Unknown;
 * 2. a node whose Ready is not True gets the `not-ready` (False) or `unreachable` (Unknown) taint
 *    with NoSchedule at once, and its pods' Ready condition False;
 * 3. such a node gets the same taint with NoExecute through its zone's rate limiter, whose rate
 *    follows the zone's state (Normal, PartialDisruption, FullDisruption); while every zone is
 *    fully disrupted no node is tainted NoExecute and those taints are lifted (the trouble is
 *    more likely this side's than every node's);
 * 4. a Ready node loses both taints at once.
 *
 * The NoExecute taint is what evicts: the taint-eviction loop deletes the pods that do not
 * tolerate it. Every write names the resourceVersion it was judged on; a conflict waits for the
 * next pass.
 */
export function nodeLifecycleController(ctx: ControllerContext, options: NodeLifecycleOptions): Observable<ControllerResult<unknown>> {
  const scheduler = options.scheduler ?? asyncScheduler;
  const nodes = ctx.informers.informer(builtin.nodes);
  // Every namespace's Leases, though only NODE_LEASE_NAMESPACE's are read: the same informer as
  // the garbage collector's, so a renewal comes over one watch and is decoded once.
  const leases = ctx.informers.informer(builtin.leases);
  const pods = ctx.informers.informer(builtin.pods, { indexers: { [POD_NODE_INDEX]: podNodeIndex } });
  const state = new LifecycleState(options);
  const passes = {
    events$: merge(timer(0, options.monitorPeriodMs, scheduler).pipe(map(() => KEY)), nodes.events$.pipe(ignoreElements()), leases.events$.pipe(ignoreElements()), pods.events$.pipe(ignoreElements())),
    synced$: combineLatest([nodes.synced$, leases.synced$, pods.synced$]).pipe(map((all) => all.every(Boolean))),
  };
  return controller<unknown>({
    ...ctx.controllerDefaults(NAME),
    name: NAME,
    for: EMPTY,
    watches: [passes],
    stop$: ctx.stop$,
    scheduler,
    reconcile: () => monitorPass({ client: ctx.client, events: ctx.events, nodes, leases, pods, state, options, now: scheduler.now() }),
  });
}

/** What outlives one pass: when each node was last heard from, the zones' limiters and states, the nodes waiting for a NoExecute taint. */
class LifecycleState {
  readonly health = new NodeHealth();
  /** Each node's and Lease's current version as the pass reads it (status, labels, renewTime). */
  readonly readings = new NodeReadings();
  readonly limiters = new Map<string, ZoneLimiter>();
  readonly zones = new Map<string, ZoneState>();
  /** Nodes waiting for their zone's limiter, in the order they failed (a Map keeps insertion order). */
  readonly waiting = new Map<string, string>();
  allDisrupted = false;

  constructor(readonly options: NodeLifecycleOptions) {}

  limiter(zone: string): ZoneLimiter {
    let limiter = this.limiters.get(zone);
    if (!limiter) {
      limiter = new ZoneLimiter(this.options.evictionRate, this.options.monitorPeriodMs);
      this.limiters.set(zone, limiter);
    }
    return limiter;
  }
}

interface PassInput {
  readonly client: Client;
  readonly events: EventSink;
  readonly nodes: Informer<Node>;
  readonly leases: Informer<Lease>;
  readonly pods: Informer<Pod>;
  readonly state: LifecycleState;
  readonly options: NodeLifecycleOptions;
  readonly now: number;
}

async function monitorPass(input: PassInput): Promise<void> {
  const { state, options, now } = input;
  const errors: unknown[] = [];
  const collect = (error: unknown) => void errors.push(error);
  // 1. Silent nodes' conditions turn Unknown; what follows judges the nodes as written. A node's
  // version is read once (NodeReadings), so an idle cluster's pass over 5,000 nodes every 5 s is
  // a few map lookups per node.
  const current: { node: Node; reading: NodeReading }[] = [];
  const present = new Set<string>();
  for (const name of [...input.nodes.store.keys()]) {
    const cached = input.nodes.store.get(name);
    if (cached === undefined) continue;
    present.add(name);
    const reading = state.readings.node(name, cached);
    const lease = input.leases.store.get(`${NODE_LEASE_NAMESPACE}/${name}`);
    const heardAt = state.health.observe(reading, lease !== undefined, lease && state.readings.lease(name, lease), now);
    const grace = reading.ready === undefined ? options.startupGracePeriodMs : options.gracePeriodMs;
    let judged = { node: cached, reading };
    if (now - heardAt > grace) {
      const written = await markUnknown(input.client, cached, now).catch((error: unknown) => void collect(error));
      if (written) {
        judged = { node: written, reading: state.readings.node(name, written) };
        if (reading.ready === 'True') input.events.record(nodeRef(written), 'Normal', 'NodeNotReady', `Node ${name} status is now: NodeNotReady`);
      }
    }
    current.push(judged);
  }
  for (const name of [...state.health.names()]) if (!present.has(name)) state.health.forget(name);
  for (const name of [...state.readings.names()]) if (!present.has(name)) state.readings.forget(name);
  for (const name of [...state.waiting.keys()]) if (!present.has(name)) state.waiting.delete(name);

  // 2. Zone states and their rates.
  const zones = zoneStates(current.map((judged) => judged.reading), options.unhealthyZoneThreshold);
  const allDisrupted = zones.size > 0 && [...zones.values()].every((z) => z.state === 'FullDisruption');
  if (state.allDisrupted && !allDisrupted) state.health.resetAll(now);
  state.allDisrupted = allDisrupted;
  state.zones.clear();
  for (const [zone, { state: zoneState, size }] of zones) {
    state.zones.set(zone, zoneState);
    state.limiter(zone).setRate(allDisrupted ? 0 : zoneRate(zoneState, size, { primary: options.evictionRate, secondary: options.secondaryEvictionRate, largeClusterThreshold: options.largeClusterThreshold }), now);
  }
  options.onZoneStates?.(state.zones);

  // 3. Taints, and the pods of nodes that are not ready. Nodes waiting for a NoExecute taint go
  // first, in the order they failed: each takes its zone's token before its first await.
  const rank = new Map([...state.waiting.keys()].map((name, i) => [name, i]));
  const last = rank.size;
  current.sort((a, b) => (rank.get(a.reading.name) ?? last) - (rank.get(b.reading.name) ?? last));
  await Promise.all(
    current.map(({ node, reading }) => {
      if (!reading.settled) return syncNode(input, node, reading).catch(collect);
      state.waiting.delete(reading.name);
      return undefined;
    }),
  );
  if (errors.length > 0) throw errors[0];
}

async function syncNode(input: PassInput, node: Node, reading: NodeReading): Promise<void> {
  const { state, now } = input;
  const { name, ready, zone } = reading;
  const key = conditionTaintKey(ready);
  let noExecute: string | undefined;
  if (key === undefined || state.allDisrupted) {
    state.waiting.delete(name);
  } else {
    const tainted = noExecuteKey(node);
    // A node already tainted for the other cause swaps at once: its eviction was paid for.
    if (tainted !== undefined) noExecute = key;
    else {
      if (!state.waiting.has(name)) state.waiting.set(name, zone);
      if (state.limiter(zone).tryTake(now)) noExecute = key;
    }
    if (noExecute !== undefined) state.waiting.delete(name);
  }
  const taints = withManagedTaints(node, { NoSchedule: key, NoExecute: noExecute }, rfc3339(now));
  if (ready === 'True' && taints === undefined) reading.settled = true;
  if (taints !== undefined) {
    try {
      await input.client.patch(builtin.nodes, name, { metadata: { resourceVersion: node.metadata.resourceVersion }, spec: { taints } });
    } catch (error) {
      // The token is spent either way; a conflict is judged again next pass.
      if (!isStatusError(error, 'Conflict') && !isStatusError(error, 'NotFound')) throw error;
      if (noExecute !== undefined && noExecuteKey(node) === undefined) state.waiting.set(name, zone);
    }
  }
  if (ready !== 'True') await markPodsNotReady(input.client, input.pods.store.byIndex(POD_NODE_INDEX, name), now);
}

/** Writes the node's conditions Unknown; returns the node as written, undefined when there was nothing to write or it changed meanwhile. */
async function markUnknown(client: Client, node: Node, now: number): Promise<Node | undefined> {
  const conditions = unknownConditions(node, now);
  if (conditions === undefined) return undefined;
  try {
    return await client.patchStatus(builtin.nodes, node.metadata.name!, { metadata: { resourceVersion: node.metadata.resourceVersion }, status: { conditions } });
  } catch (error) {
    // Its agent wrote meanwhile: it is alive after all, or the next pass says otherwise.
    if (isStatusError(error, 'Conflict') || isStatusError(error, 'NotFound')) return undefined;
    throw error;
  }
}

/** Upstream's MarkPodsNotReady: pods on a node that is not ready are not ready either (Services stop sending them traffic). */
async function markPodsNotReady(client: Client, pods: readonly Pod[], now: number): Promise<void> {
  const at = rfc3339(now);
  await Promise.all(
    pods.map(async (pod) => {
      if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') return;
      const conditions = pod.status?.conditions ?? [];
      if (!conditions.some((c) => c.type === 'Ready' && c.status !== 'False')) return;
      const next = conditions.map((c) => (c.type === 'Ready' ? { ...c, status: 'False', lastTransitionTime: at } : c));
      try {
        await client.patchStatus(builtin.pods, pod.metadata.name!, { metadata: { resourceVersion: pod.metadata.resourceVersion }, status: { conditions: next } }, { namespace: pod.metadata.namespace });
      } catch (error) {
        if (!isStatusError(error, 'Conflict') && !isStatusError(error, 'NotFound')) throw error;
      }
    }),
  );
}

const nodeRef = (node: Node) => ({ apiVersion: 'v1', kind: 'Node', name: node.metadata.name!, uid: node.metadata.uid });
