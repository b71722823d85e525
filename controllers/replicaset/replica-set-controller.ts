import type { Observable, SchedulerLike } from 'rxjs';
import { APPS_GROUP, labelSelectorFromSpec, type KubeObject, type LabelSelector, type Pod, type ReplicaSet } from '../../src/api/index.js';
import { builtin, type Client, type EventSink, type Informer, type InvolvedObject } from '../../src/client/index.js';
import { awaitChange, requeueAfter, type Outcome } from '../../operators/index.js';
import { claimCandidates, claimObjects } from '../claim-objects.js';
import type { ControllerContext } from '../context.js';
import { controller, type ControllerResult } from '../controller.js';
import { apiVersionOf, controllerOf, controllerRef } from '../controller-ref.js';
import { Expectations } from '../expectations.js';
import { observeOwned } from '../observe-owned.js';
import { createPods, deletePods, isPodActive, orphanTriggers, podAvailableAt, podFromTemplate, podsToDelete } from '../workload/index.js';
import { calculateStatus, statusChanged } from './replica-status.js';
import type { ReplicatedKind, ReplicatedStatus } from './replicated-kind.js';

/** Upstream's BurstReplicas: at most this many pods created or deleted by one sync. */
export const BURST_REPLICAS = 500;

export interface ReplicaSetControllerOptions {
  /** Keys synced at once (`--concurrent-replicaset-syncs` / `--concurrent-rc-syncs`, default 5). */
  readonly concurrency?: number;
  /** The clock (ms) availability is judged by; tests pass their own. */
  readonly now?: () => number;
  /** The scheduler of the work queue (requeues, back-off); tests pass one that shares `now`. */
  readonly scheduler?: SchedulerLike;
}

const replicaSetKind: ReplicatedKind<ReplicaSet> = {
  name: 'replicaset-controller',
  resource: { ...builtin.replicaSets, kind: 'ReplicaSet' },
  type: { group: APPS_GROUP, version: 'v1', kind: 'ReplicaSet' },
  selector: (rs) => rs.spec.selector,
  replicas: (rs) => rs.spec.replicas ?? 1,
  minReadySeconds: (rs) => rs.spec.minReadySeconds ?? 0,
  template: (rs) => rs.spec.template,
  status: (rs) => rs.status,
  withStatus: (rs, status) => ({ ...rs, status: status as ReplicaSet['status'] }),
};

/**
 * The ReplicaSet controller (kube-controller-manager's `replicaset-controller`): keeps
 * `spec.replicas` active pods matching each ReplicaSet's selector — adopting orphans that match,
 * releasing pods that stopped matching, creating in slow-start batches, deleting in upstream's
 * rank order — and reports the counts in its status (docs/controller-manager.md#replicaset-controller).
 */
export function replicaSetController(ctx: ControllerContext, options: ReplicaSetControllerOptions = {}): Observable<ControllerResult<unknown>> {
  return replicatedController(ctx, replicaSetKind, options);
}

/** The loop of a replicated kind (ReplicaSet, ReplicationController). */
export function replicatedController<T extends KubeObject>(ctx: ControllerContext, kind: ReplicatedKind<T>, options: ReplicaSetControllerOptions = {}): Observable<ControllerResult<unknown>> {
  const owners = ctx.informers.informer(kind.resource, { ownerIndex: true });
  const pods = ctx.informers.informer(builtin.pods, { ownerIndex: true });
  const expectations = new Expectations(options.now ? { now: options.now } : {});
  const now = options.now ?? Date.now;
  const owned = { group: kind.type.group, kind: kind.type.kind };
  // A ReplicaSet of a Deployment ranks its pods for deletion with those of its siblings.
  const siblings = kind.type.kind === 'ReplicaSet' ? (owners as unknown as Informer<ReplicaSet>) : undefined;
  return controller<unknown>({
    ...ctx.controllerDefaults(kind.name),
    name: kind.name,
    for: owners,
    owns: [{ events: pods, ...owned }],
    watches: [observeOwned(expectations, pods, owned), orphanTriggers(pods, owners, kind.selector)],
    concurrency: options.concurrency ?? 5,
    ...(options.scheduler ? { scheduler: options.scheduler } : {}),
    reconcile: (key) => {
      const object = owners.store.get(key);
      if (!object) {
        expectations.delete(key);
        return;
      }
      return syncReplicas({ client: ctx.client, events: ctx.events, kind, object, key, pods, expectations, now: now(), siblings });
    },
  });
}

interface SyncInput<T extends KubeObject> {
  readonly client: Client;
  readonly events: EventSink;
  readonly kind: ReplicatedKind<T>;
  readonly object: T;
  readonly key: string;
  readonly pods: Informer<Pod>;
  readonly expectations: Expectations;
  readonly now: number;
  readonly siblings: Informer<ReplicaSet> | undefined;
}

async function syncReplicas<T extends KubeObject>(input: SyncInput<T>): Promise<Outcome<unknown> | void> {
  const { client, kind, object, key, expectations } = input;
  const uid = object.metadata.uid!;
  const namespace = object.metadata.namespace!;
  const needsSync = expectations.satisfied(key) && object.metadata.deletionTimestamp === undefined;
  const selectorSpec = kind.selector(object);
  let selector: LabelSelector;
  try {
    selector = labelSelectorFromSpec(selectorSpec ?? {});
  } catch {
    // The API server refuses such selectors; one stored before that rule existed selects nothing.
    return awaitChange();
  }
  if (selector.requirements.length === 0) return awaitChange();

  // Owned pods and orphans: the only ones a claim can keep or take.
  const candidates = claimCandidates(input.pods, object).filter(isPodActive);
  const claim = await claimObjects({ client, owner: { object, resource: kind.resource }, selector, resource: builtin.pods, candidates });
  if (claim.errors.length > 0) throw claim.errors[0];
  const active = claim.claimed;

  let manageError: unknown;
  if (needsSync) manageError = await manageReplicas(input, active);

  const status = calculateStatus({
    object,
    current: kind.status(object),
    template: kind.template(object),
    desired: kind.replicas(object),
    minReadySeconds: kind.minReadySeconds(object),
    pods: active,
    manageError,
    nowMs: input.now,
  });
  if (statusChanged(kind.status(object), status)) await client.updateStatus(kind.resource, kind.withStatus(object, status), { namespace });
  if (manageError !== undefined) throw manageError;
  return availabilityRequeue(active, kind.minReadySeconds(object), input.now);
}

/** Creates or deletes pods toward `spec.replicas`, at most BURST_REPLICAS at a time; answers the first failure. */
async function manageReplicas<T extends KubeObject>(input: SyncInput<T>, active: readonly Pod[]): Promise<unknown> {
  const { client, kind, object, key, expectations } = input;
  const diff = active.length - kind.replicas(object);
  const namespace = object.metadata.namespace!;
  if (diff < 0) {
    const template = kind.template(object);
    if (!template) return undefined;
    const reference = controllerRef(object, kind.type);
    const result = await createPods({
      client,
      expectations,
      key,
      count: Math.min(-diff, BURST_REPLICAS),
      pod: () => podFromTemplate(template, { namespace, controllerRef: reference }),
      // The Events upstream's PodControl records on the owner.
      onCreated: (pod) => input.events.record(involved(input), 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata.name}`),
      onFailed: (error) => input.events.record(involved(input), 'Warning', 'FailedCreate', `Error creating: ${messageOf(error)}`),
    });
    return result.error;
  }
  if (diff > 0) {
    const victims = podsToDelete(active, relatedPods(input, active), Math.min(diff, BURST_REPLICAS), input.now);
    return (
      await deletePods({
        client,
        expectations,
        key,
        pods: victims,
        onDeleted: (pod) => input.events.record(involved(input), 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name}`),
        onFailed: (pod, error) => input.events.record(involved(input), 'Warning', 'FailedDelete', `Error deleting pod ${pod.metadata.name}: ${messageOf(error)}`),
      })
    ).error;
  }
  return undefined;
}

/**
 * The pods whose nodes count in the scale-down rank (upstream's getIndirectlyRelatedPods): those
 * of every ReplicaSet with the same controller (a Deployment's old and new sets), or the owner's own.
 */
function relatedPods<T extends KubeObject>(input: SyncInput<T>, active: readonly Pod[]): readonly Pod[] {
  const parent = controllerOf(input.object);
  if (!input.siblings || !parent) return active;
  // The parent's sets from the owner index, not every set of the namespace (1,500 at 150,000 pods).
  const sets = input.siblings.byOwner(parent.uid).filter((rs) => controllerOf(rs)?.uid === parent.uid);
  return sets.flatMap((rs) => input.pods.byOwner(rs.metadata.uid!).filter((pod) => controllerOf(pod)?.uid === rs.metadata.uid));
}

function involved<T extends KubeObject>(input: SyncInput<T>): InvolvedObject {
  const { name, namespace, uid, resourceVersion } = input.object.metadata;
  return { apiVersion: apiVersionOf(input.kind.type), kind: input.kind.type.kind, name: name!, namespace, uid, resourceVersion };
}

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Looks again when the first ready pod that is not available yet becomes available (`minReadySeconds`). */
function availabilityRequeue(pods: readonly Pod[], minReadySeconds: number, nowMs: number): Outcome<unknown> {
  let next = Infinity;
  for (const pod of pods) next = Math.min(next, podAvailableAt(pod, minReadySeconds, nowMs) ?? Infinity);
  return next === Infinity ? awaitChange() : requeueAfter(next - nowMs);
}

export type { ReplicatedStatus };
