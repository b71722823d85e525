import { EMPTY, Observable, asyncScheduler, combineLatest, defer, ignoreElements, map, merge, tap, timer, type SchedulerLike } from 'rxjs';
import { isStatusError, rfc3339, type Node, type Pod } from '../../src/api/index.js';
import { builtin, type Client, type Informer } from '../../src/client/index.js';
import type { ControllerContext } from '../context.js';
import { controller, type ControllerResult } from '../controller.js';
import { PodBook } from './pod-book.js';

export interface PodGcOptions {
  /** Terminated pods kept before the oldest are deleted (`--terminated-pod-gc-threshold`, 12500); ≤ 0: never. */
  readonly terminatedPodThreshold: number;
  /** The clock and the pass timer; tests pass a virtual one. Default: real time. */
  readonly scheduler?: SchedulerLike;
  /** Between passes (upstream's gcCheckPeriod, 20 s). */
  readonly periodMs?: number;
  /** How long a pod's node must be missing, and then still absent from the server, before its pods go (upstream's quarantineTime, 40 s). */
  readonly quarantineMs?: number;
}

const NAME = 'pod-garbage-collector-controller';
const KEY = 'podgc';
export const GC_PERIOD_MS = 20_000;
export const QUARANTINE_MS = 40_000;

/**
 * The pod garbage collector (upstream's `podgc`), one pass every 20 s over the cached pods and
 * nodes, each step as upstream:
 *
 * - terminating pods on a node that is not Ready and carries the `node.kubernetes.io/out-of-service`
 *   taint (non-graceful node shutdown);
 * - orphaned pods: bound to a node that does not exist, once the node has been missing for the
 *   quarantine (40 s) and a read of the server confirms it;
 * - unscheduled terminating pods: deleting, and never bound to a node (no node will end them);
 * - terminated pods (Succeeded, Failed) beyond `--terminated-pod-gc-threshold`, oldest first.
 *
 * A pod that has not ended is first marked Failed with the condition DisruptionTarget (reason
 * DeletionByPodGC), so that its controller (a Job) sees why; every delete is forced (grace 0) and
 * names the pod's uid.
 */
export function podGcController(ctx: ControllerContext, options: PodGcOptions): Observable<ControllerResult<unknown>> {
  const scheduler = options.scheduler ?? asyncScheduler;
  const pods = ctx.informers.informer(builtin.pods);
  const nodes = ctx.informers.informer(builtin.nodes);
  const missingSince = new Map<string, number>();
  const quarantineMs = options.quarantineMs ?? QUARANTINE_MS;
  const book = new PodBook();
  // A run's subscription starts the book anew: the informer replays its pods to it.
  const booked$ = defer(() => {
    book.clear();
    return pods.events$.pipe(tap((event) => book.apply(event)));
  });
  const passes = {
    // The informers run while the loop does (their events are not keys: the pod events keep the book the passes read).
    events$: merge(timer(0, options.periodMs ?? GC_PERIOD_MS, scheduler).pipe(map(() => KEY)), booked$.pipe(ignoreElements()), nodes.events$.pipe(ignoreElements())),
    synced$: combineLatest([pods.synced$, nodes.synced$]).pipe(map(([a, b]) => a && b)),
  };
  return controller<unknown>({
    ...ctx.controllerDefaults(NAME),
    name: NAME,
    for: EMPTY,
    watches: [passes],
    stop$: ctx.stop$,
    scheduler,
    reconcile: async () => {
      // The informer says it has synced before it announces its first list: the term's first pass reads the cache whole.
      if (!book.filled) book.fill(pods.store.list());
      const cached = (keys: Iterable<string>): Pod[] => Array.from(keys, (key) => pods.store.get(key)).filter((pod): pod is Pod => pod !== undefined);
      const deleting = cached(book.deleting);
      const errors: unknown[] = [];
      const collect = (error: unknown) => errors.push(error);
      await gcTerminatingOutOfService(ctx.client, deleting, nodes, scheduler.now()).catch(collect);
      await gcOrphaned(ctx.client, book, cached, nodes, missingSince, scheduler.now(), quarantineMs).catch(collect);
      await gcUnscheduledTerminating(ctx.client, deleting, scheduler.now()).catch(collect);
      if (options.terminatedPodThreshold > 0 && book.ended.size > options.terminatedPodThreshold) await gcTerminated(ctx.client, cached(book.ended), options.terminatedPodThreshold).catch(collect);
      if (errors.length > 0) throw errors[0];
    },
  });
}

const isTerminal = (pod: Pod) => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';

/** The taint an operator puts on a node that is down for good (non-graceful node shutdown). */
export const OUT_OF_SERVICE_TAINT = 'node.kubernetes.io/out-of-service';

/** Terminating pods on a node that is not Ready and tainted out-of-service: no node agent will end them (upstream's gcTerminating). */
async function gcTerminatingOutOfService(client: Client, pods: readonly Pod[], nodes: Informer<Node>, now: number): Promise<void> {
  const down = (name: string): boolean => {
    const node = nodes.store.get(name);
    if (!node) return false;
    const ready = node.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True';
    return !ready && (node.spec?.taints ?? []).some((taint) => taint.key === OUT_OF_SERVICE_TAINT);
  };
  const stuck = pods.filter((pod) => pod.metadata.deletionTimestamp !== undefined && pod.spec.nodeName && down(pod.spec.nodeName));
  await Promise.all(stuck.map((pod) => markFailedAndDelete(client, pod, now, 'PodGC: node is out of service')));
}

async function gcOrphaned(client: Client, book: PodBook, cached: (keys: Iterable<string>) => Pod[], nodes: Informer<Node>, missingSince: Map<string, number>, now: number, quarantineMs: number): Promise<void> {
  // The pods of the nodes the cache does not have.
  const bound = new Map<string, Pod[]>();
  for (const node of book.nodes()) {
    if (nodes.store.get(node) !== undefined) continue;
    const orphans = cached(book.podsOn(node)).filter((pod) => pod.spec.nodeName === node);
    if (orphans.length > 0) bound.set(node, orphans);
  }
  for (const node of missingSince.keys()) if (!bound.has(node)) missingSince.delete(node);
  for (const [node, orphans] of bound) {
    const since = missingSince.get(node);
    if (since === undefined) {
      missingSince.set(node, now);
      continue;
    }
    if (now - since < quarantineMs) continue;
    // The cache may lag: the server has the last word.
    if (await nodeExists(client, node)) {
      missingSince.delete(node);
      continue;
    }
    await Promise.all(orphans.map((pod) => markFailedAndDelete(client, pod, now, 'PodGC: node no longer exists')));
  }
}

async function gcUnscheduledTerminating(client: Client, pods: readonly Pod[], now: number): Promise<void> {
  const stuck = pods.filter((pod) => pod.metadata.deletionTimestamp !== undefined && (pod.spec.nodeName === undefined || pod.spec.nodeName === ''));
  await Promise.all(stuck.map((pod) => markFailedAndDelete(client, pod, now, 'PodGC: pod is terminating and not scheduled')));
}

async function gcTerminated(client: Client, pods: readonly Pod[], threshold: number): Promise<void> {
  const terminated = pods.filter((pod) => isTerminal(pod) && pod.metadata.deletionTimestamp === undefined);
  const excess = terminated.length - threshold;
  if (excess <= 0) return;
  // Oldest first, as upstream sorts by creation time.
  const oldest = [...terminated].sort((a, b) => (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') || (a.metadata.name ?? '').localeCompare(b.metadata.name ?? '')).slice(0, excess);
  await Promise.all(oldest.map((pod) => forceDelete(client, pod)));
}

async function nodeExists(client: Client, name: string): Promise<boolean> {
  try {
    await client.get(builtin.nodes, name);
    return true;
  } catch (error) {
    if (isStatusError(error, 'NotFound')) return false;
    throw error;
  }
}

/** A pod that has not ended is marked Failed (DisruptionTarget: DeletionByPodGC) before it is deleted. */
async function markFailedAndDelete(client: Client, pod: Pod, now: number, message: string): Promise<void> {
  if (!isTerminal(pod)) {
    const at = rfc3339(now);
    const conditions = [
      ...(pod.status?.conditions ?? []).filter((c) => c.type !== 'DisruptionTarget'),
      { type: 'DisruptionTarget', status: 'True', reason: 'DeletionByPodGC', message, lastTransitionTime: at },
    ];
    try {
      await client.patchStatus(builtin.pods, pod.metadata.name!, { metadata: { uid: pod.metadata.uid }, status: { phase: 'Failed', conditions } }, { type: 'merge', namespace: pod.metadata.namespace });
    } catch (error) {
      if (isStatusError(error, 'NotFound')) return;
      throw error;
    }
  }
  await forceDelete(client, pod);
}

async function forceDelete(client: Client, pod: Pod): Promise<void> {
  try {
    await client.delete(builtin.pods, pod.metadata.name!, { namespace: pod.metadata.namespace, gracePeriodSeconds: 0, preconditions: { uid: pod.metadata.uid! } });
  } catch (error) {
    if (isStatusError(error, 'NotFound')) return;
    throw error;
  }
}
