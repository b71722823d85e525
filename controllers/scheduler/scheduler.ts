import { hostname } from 'node:os';
import { merge, Observable, Subject } from 'rxjs';
import { isStatusError, type Node, type Pod } from '../../src/api/index.js';
import { builtin, EventRecorder, InformerFactory, type Client, type InformerEvent, type InvolvedObject } from '../../src/client/index.js';
import type { TokenBucketOptions } from '../../operators/index.js';
import { SchedulerApi } from './api-calls.js';
import { SchedulerCache } from './cache.js';
import { DEFAULT_FILTERS } from './filters/index.js';
import { VolumeBinding, VolumeBindingError } from './volume-binding.js';
import { NodeFinder } from './find-node.js';
import type { FilterPlugin, ScorePlugin } from './plugin.js';
import { podInfo, podKey } from './pod-info.js';
import { SchedulingQueue, type SchedulingQueueOptions } from './scheduling-queue.js';
import { DEFAULT_SCORES } from './scores/index.js';
import { nodeChangeMayHelp } from './node-changes.js';

export const SCHEDULER_NAME = 'svc-scheduler';
/** Pods that name no scheduler get `default-scheduler` from the API server; svc-scheduler takes both. */
export const DEFAULT_SCHEDULER_NAMES: readonly string[] = [SCHEDULER_NAME, 'default-scheduler'];

export interface SchedulerOptions {
  readonly client: Client;
  /** Share informers with other loops of the process; default: a factory of its own. */
  readonly informers?: InformerFactory;
  /** The `spec.schedulerName`s this scheduler takes. Default `svc-scheduler` and `default-scheduler`. */
  readonly schedulerNames?: readonly string[];
  /** See `FindNodeOptions.percentageOfNodesToScore`; default adaptive. */
  readonly percentageOfNodesToScore?: number | undefined;
  /** Bindings in flight at once (the scheduling itself is one pod at a time). Default 64. */
  readonly bindConcurrency?: number;
  /** The bucket every API write takes a token from (`--svc-api-qps` / `--svc-api-burst`); `false`: none. Default 50 / 100. */
  readonly bucket?: TokenBucketOptions | false;
  readonly queue?: SchedulingQueueOptions;
  readonly filters?: readonly FilterPlugin[];
  readonly scores?: readonly ScorePlugin[];
  /** Emit a `Scheduled` Event per bound pod (as kube-scheduler does). Default true. */
  readonly scheduledEvents?: boolean;
  /** The Events' bounded buffer (default 1 000) and how many are written at once (default 4): Events are best effort. */
  readonly events?: { readonly bufferSize?: number; readonly inFlight?: number };
  /** This instance, in Events. Default the host name. */
  readonly identity?: string;
  readonly random?: () => number;
  /** How long binding a pod waits for its claims to be bound (kube-scheduler's `bindTimeoutSeconds`). Default 600 s. */
  readonly bindTimeoutMs?: number;
}

/** What became of one scheduling attempt. */
export type ScheduleResult =
  | { readonly type: 'bound'; readonly pod: string; readonly node: string }
  | { readonly type: 'unschedulable'; readonly pod: string; readonly message: string }
  | { readonly type: 'error'; readonly pod: string; readonly error: unknown };

/** A running scheduler's parts, for tests and metrics. */
export interface SchedulerState {
  readonly cache: SchedulerCache;
  readonly queue: SchedulingQueue;
  readonly events: EventRecorder;
}

/** Whether what scheduling reads of a pod (its spec, labels, annotations) is unchanged. */
const sameSchedulingInputs = (a: Pod, b: Pod): boolean =>
  JSON.stringify([a.spec, a.metadata.labels, a.metadata.annotations]) === JSON.stringify([b.spec, b.metadata.labels, b.metadata.annotations]);

const involved = (pod: Pod): InvolvedObject => {
  const { namespace, name, uid, resourceVersion } = pod.metadata;
  return { apiVersion: 'v1', kind: 'Pod', namespace, name: name ?? '', uid, resourceVersion };
};

const isTerminal = (pod: Pod): boolean => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';

/** Slots for bindings in flight: `acquire` waits while all are taken. */
class Slots {
  #free: number;
  readonly #waiting: (() => void)[] = [];
  constructor(size: number) {
    this.#free = size;
  }
  acquire(): Promise<void> {
    if (this.#free > 0) {
      this.#free--;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.#waiting.push(resolve));
  }
  release(): void {
    const next = this.#waiting.shift();
    if (next) next();
    else this.#free++;
  }
}

/**
 * The scheduler as one cold Observable of results: subscribing starts it (informers of nodes and
 * of unfinished pods; the queue; the scheduling loop), unsubscribing stops it.
 * Put it behind `whileLeader(...)` to run one replica at a time.
 *
 * ```
 * pending pods ─► queue (priority, back-off, unschedulable) ─► filters ─► scores ─► assume ─► bind
 * nodes, bound pods ─► cache (per-node sums) ──────────────────┘   fits nowhere ─► PodScheduled=False + Event
 *         └─ a node added or changed, a pod gone ─► unschedulable pods back to the queue
 * ```
 */
export function scheduler(options: SchedulerOptions, onState?: (state: SchedulerState) => void): Observable<ScheduleResult> {
  return new Observable<ScheduleResult>((subscriber) => {
    const informers = options.informers ?? new InformerFactory(options.client);
    const names = new Set(options.schedulerNames ?? DEFAULT_SCHEDULER_NAMES);
    const cache = new SchedulerCache();
    const queue = new SchedulingQueue(options.queue);
    // Claims, volumes and classes: the volume binding's filter reads them, and its pre-bind writes the selected node.
    const claims = informers.informer(builtin.persistentVolumeClaims);
    const volumes = informers.informer(builtin.persistentVolumes);
    const classes = informers.informer(builtin.storageClasses);
    const nodes = informers.informer(builtin.nodes);
    const volumeBinding = new VolumeBinding({ claims: claims.store, volumes: volumes.store, classes: classes.store, nodes: nodes.store }, options.client, options.bindTimeoutMs);
    const finder = new NodeFinder({
      filters: [...(options.filters ?? DEFAULT_FILTERS), volumeBinding.filter],
      scores: options.scores ?? DEFAULT_SCORES,
      percentageOfNodesToScore: options.percentageOfNodesToScore,
      ...(options.random ? { random: options.random } : {}),
    });
    const api = new SchedulerApi(options.client, options.bucket ?? { qps: 50, burst: 100 });
    const slots = new Slots(options.bindConcurrency ?? 64);
    // The shared recorder, its writes taking tokens of the scheduler's bucket as bindings do.
    const events = new EventRecorder({ ...options.events, client: options.client, component: SCHEDULER_NAME, host: options.identity ?? hostname(), throttle: () => api.token() });
    const results = new Subject<ScheduleResult>();
    const resultSub = results.subscribe(subscriber);
    onState?.({ cache, queue, events });
    let stopped = false;

    // One watch of the pods that are not finished, as kube-scheduler keeps, split here by
    // spec.nodeName. Two watches (pending, bound) would cost every binding two watch events — the
    // pod leaving one and joining the other — on the API server and here; one costs one.
    // A pod that finishes leaves this watch: its deletion event frees its node's resources.
    const pods = informers.informer(builtin.pods, { fieldSelector: 'status.phase!=Succeeded,status.phase!=Failed' });

    const onNode = (event: InformerEvent<Node>): void => {
      if (event.type === 'deleted') return cache.removeNode(event.object.metadata.name ?? '');
      if (event.type === 'resync') return;
      const before = event.type === 'updated' ? cache.node(event.object.metadata.name ?? '')?.node : undefined;
      cache.upsertNode(event.object);
      if (event.type === 'added' || before === undefined || nodeChangeMayHelp(before, event.object)) queue.moveAllToActive();
    };
    const onBound = (event: InformerEvent<Pod>): void => {
      if (event.type === 'resync') return;
      queue.delete(podKey(event.object));
      if (event.type === 'deleted') {
        cache.removeBoundPod(event.object);
        queue.moveAllToActive();
        return;
      }
      cache.upsertBoundPod(event.object);
      // A pod that finished frees its node's resources and ports.
      if (isTerminal(event.object)) queue.moveAllToActive();
    };
    const onPending = (event: InformerEvent<Pod>): void => {
      const pod = event.object;
      if (event.type === 'resync') return;
      if (event.type === 'deleted' || pod.metadata.deletionTimestamp || isTerminal(pod)) return queue.delete(podKey(pod));
      if (!names.has(pod.spec.schedulerName ?? 'default-scheduler') || pod.spec.nodeName) return;
      // A gated pod is not ready to be scheduled (spec.schedulingGates); removing its last gate is an update that adds it.
      if ((pod.spec.schedulingGates?.length ?? 0) > 0) return queue.delete(podKey(pod));
      queue.add(podInfo(pod), event.type === 'added' || !sameSchedulingInputs(event.old, pod));
    };

    // spec.nodeName is set once and never cleared: a pod moves from pending to bound, never back.
    const onPod = (event: InformerEvent<Pod>): void => (event.object.spec.nodeName ? onBound(event) : onPending(event));

    const watching = merge(
      new Observable<void>((s) => nodes.events$.subscribe({ next: onNode, error: (e: unknown) => s.error(e) })),
      new Observable<void>((s) => pods.events$.subscribe({ next: onPod, error: (e: unknown) => s.error(e) })),
      // A claim made or bound, a volume freed, a class added: a pod that waited on them may fit now.
      new Observable<void>((s) =>
        merge(claims.events$, volumes.events$, classes.events$).subscribe({
          next: (event: { readonly type: string }) => {
            if (event.type === 'resync') return;
            volumeBinding.changed();
            queue.moveAllToActive();
          },
          error: (e: unknown) => s.error(e),
        }),
      ),
    ).subscribe({ error: (error: unknown) => subscriber.error(error) });

    const bindOne = async (key: string, pod: Pod, nodeName: string, cycle: number): Promise<void> => {
      try {
        await volumeBinding.preBind(pod, nodeName);
        await api.bind(pod, nodeName);
        queue.done(key);
        results.next({ type: 'bound', pod: key, node: nodeName });
        if (options.scheduledEvents ?? true) events.record(involved(pod), 'Normal', 'Scheduled', `Successfully assigned ${key} to ${nodeName}`);
      } catch (error) {
        cache.forget(key);
        if (error instanceof VolumeBindingError) {
          // As kube-scheduler's failed PreBind: the pod says why, and is scheduled again after its back-off.
          queue.requeueFailed(key, cycle, false);
          const message = `running PreBind plugin "VolumeBinding": ${error.message}`;
          api
            .markUnschedulable(pod, 'SchedulerError', message)
            .then((changed) => changed && events.record(involved(pod), 'Warning', 'FailedScheduling', message))
            .catch(() => undefined);
        } else if (isStatusError(error) && error.code === 404) queue.delete(key);
        else if (isStatusError(error) && error.code === 409) queue.done(key); // bound by someone else: its watch event follows
        else queue.requeueFailed(key, cycle, false);
        results.next({ type: 'error', pod: key, error });
      } finally {
        slots.release();
      }
    };

    const unschedulable = (key: string, pod: Pod, message: string): void => {
      results.next({ type: 'unschedulable', pod: key, message });
      api
        .markUnschedulable(pod, 'Unschedulable', message)
        .then((changed) => changed && events.record(involved(pod), 'Warning', 'FailedScheduling', message))
        .catch(() => undefined);
    };

    const loop = async (): Promise<void> => {
      await Promise.all([nodes.waitForSync(), pods.waitForSync(), claims.waitForSync(), volumes.waitForSync(), classes.waitForSync()]);
      while (!stopped) {
        await slots.acquire();
        const queued = await queue.pop();
        if (!queued || stopped) {
          slots.release();
          return;
        }
        const { info } = queued;
        const cycle = queue.cycle;
        // Already placed by an earlier attempt whose binding is in flight or confirmed.
        if (cache.has(info.key)) {
          queue.done(info.key);
          slots.release();
          continue;
        }
        const placement = finder.find(info, cache);
        if ('error' in placement) {
          queue.requeueFailed(info.key, cycle, true);
          slots.release();
          unschedulable(info.key, info.pod, placement.error.message);
          continue;
        }
        cache.assume(info, placement.node);
        void bindOne(info.key, info.pod, placement.node, cycle);
      }
    };
    loop().catch((error: unknown) => subscriber.error(error));

    return () => {
      stopped = true;
      queue.close();
      volumeBinding.close();
      watching.unsubscribe();
      events.stop();
      resultSub.unsubscribe();
      if (!options.informers) informers.stop();
    };
  });
}
