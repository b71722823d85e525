import { Observable, asyncScheduler, filter, mergeMap, type SchedulerLike } from 'rxjs';
import { isStatusError, rfc3339, type Node, type Pod } from '../../src/api/index.js';
import { builtin, type Client, type EventSink } from '../../src/client/index.js';
import { requeueAfter, type Outcome } from '../../operators/index.js';
import type { ControllerContext } from '../context.js';
import { controller, type ControllerResult } from '../controller.js';
import { POD_NODE_INDEX, podNodeIndex } from '../node-lifecycle/index.js';
import { evictionTime } from './eviction-time.js';

export interface TaintEvictionOptions {
  /** The clock and timers; tests pass a virtual one. Default: real time. */
  readonly scheduler?: SchedulerLike;
}

const NAME = 'taint-eviction-controller';
export const EVICTION_REASON = 'DeletionByTaintManager';
export const EVICTION_MESSAGE = 'Taint manager: deleting due to NoExecute taint';

/**
 * The taint-eviction controller (upstream's taint manager), one key per node: every pod bound to
 * a node with NoExecute taints is deleted at once when it does not tolerate one of them, after
 * the smallest `tolerationSeconds` of the tolerations it uses otherwise (see `evictionTime`), and
 * never when those tolerate forever. A pod change (tolerations, binding) or node change (taints)
 * judges the node again; a pod not due yet requeues the node for then. How fast nodes get such
 * taints — and so how fast pods are evicted after node failures, per zone — is the node lifecycle
 * controller's rate limit.
 *
 * A pod is first given the condition DisruptionTarget (reason DeletionByTaintManager) and an Event
 * TaintManagerEviction, then deleted with its own grace period and a uid precondition.
 */
export function taintEvictionController(ctx: ControllerContext, options: TaintEvictionOptions = {}): Observable<ControllerResult<unknown>> {
  const scheduler = options.scheduler ?? asyncScheduler;
  const nodes = ctx.informers.informer(builtin.nodes);
  const pods = ctx.informers.informer(builtin.pods, { indexers: { [POD_NODE_INDEX]: podNodeIndex } });
  /** When this controller first saw a NoExecute taint without timeAdded, by node and key (the start of its toleration). */
  const seen = new Map<string, number>();
  return controller<unknown>({
    ...ctx.controllerDefaults(NAME),
    name: NAME,
    for: nodes,
    watches: [
      {
        events$: pods.events$.pipe(
          filter((event) => event.type !== 'resync'),
          mergeMap((event) => [event.object.spec.nodeName, event.type === 'updated' ? event.old.spec.nodeName : undefined].filter((n): n is string => !!n)),
        ),
        synced$: pods.synced$,
      },
    ],
    stop$: ctx.stop$,
    scheduler,
    reconcile: async (name) => {
      const node = nodes.store.get(name);
      if (!node) return void seen.delete(name);
      return evictFromNode({ client: ctx.client, events: ctx.events, node, pods: () => pods.store.byIndex(POD_NODE_INDEX, name), seen, now: scheduler.now() });
    },
  });
}

interface NodeInput {
  readonly client: Client;
  readonly events: EventSink;
  readonly node: Node;
  /**
   * The node's pods, read only when it has a NoExecute taint: each pod change on a node with
   * hundreds of pods otherwise read them all, for nothing, on every untainted node.
   */
  readonly pods: () => readonly Pod[];
  readonly seen: Map<string, number>;
  readonly now: number;
}

async function evictFromNode(input: NodeInput): Promise<Outcome<unknown> | void> {
  const { node, now } = input;
  const taints = (node.spec?.taints ?? []).filter((t) => t.effect === 'NoExecute');
  if (taints.length === 0) return void input.seen.delete(node.metadata.name!);
  if (!input.seen.has(node.metadata.name!)) input.seen.set(node.metadata.name!, now);
  const seenAt = input.seen.get(node.metadata.name!)!;
  let next = Infinity;
  const due: Pod[] = [];
  for (const pod of input.pods()) {
    if (pod.metadata.deletionTimestamp !== undefined) continue;
    const at = evictionTime(pod, taints, seenAt);
    if (at === undefined || at === Infinity) continue;
    if (at <= now) due.push(pod);
    else next = Math.min(next, at);
  }
  await Promise.all(due.map((pod) => evict(input.client, input.events, pod, now)));
  if (next !== Infinity) return requeueAfter(next - now);
}

async function evict(client: Client, events: EventSink, pod: Pod, now: number): Promise<void> {
  const { name, namespace, uid } = pod.metadata;
  events.record({ apiVersion: 'v1', kind: 'Pod', name: name!, namespace, uid }, 'Normal', 'TaintManagerEviction', `Marking for deletion Pod ${namespace}/${name}`);
  const conditions = [
    ...(pod.status?.conditions ?? []).filter((c) => c.type !== 'DisruptionTarget'),
    { type: 'DisruptionTarget', status: 'True', reason: EVICTION_REASON, message: EVICTION_MESSAGE, lastTransitionTime: rfc3339(now) },
  ];
  try {
    await client.patchStatus(builtin.pods, name!, { metadata: { uid }, status: { conditions } }, { namespace });
    await client.delete(builtin.pods, name!, { namespace, preconditions: { uid: uid! } });
  } catch (error) {
    if (!isStatusError(error, 'NotFound') && !isStatusError(error, 'Conflict')) throw error;
  }
}
