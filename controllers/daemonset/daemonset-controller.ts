import { filter, mergeMap, type Observable } from 'rxjs';
import { canonicalJson, isStatusError, type ControllerRevision, type DaemonSet, type Node, type Pod } from '../../src/api/index.js';
import { builtin, type Client, type EventSink, type Informer, type InformerEvent, type InvolvedObject } from '../../src/client/index.js';
import { requeueAfter, type Outcome } from '../../operators/index.js';
import { claimCandidates, claimObjects } from '../claim-objects.js';
import type { ControllerContext } from '../context.js';
import { controller, type ControllerResult } from '../controller.js';
import { controllerRef, type OwnerType } from '../controller-ref.js';
import { Expectations } from '../expectations.js';
import { observeOwned } from '../observe-owned.js';
import { ensureRevision, revisionHash, truncateHistory, type RevisionOwner } from '../revision-history/index.js';
import { createPods, deletePods, orphanTriggers, podFromTemplate } from '../workload/index.js';
import { daemonPodTemplate, REVISION_HASH_LABEL, targetNodeOf, withNodeNameAffinity } from './daemon-pod.js';
import { daemonSetStatus } from './daemon-status.js';
import { FailedPodBackoff } from './failed-pod-backoff.js';
import { planNodes, podsByNode } from './node-pods.js';
import { rolloutBounds, rolloutStep } from './rolling-update.js';

export interface DaemonSetControllerOptions {
  /** DaemonSets synced at once (`--concurrent-daemonset-syncs`, default 2). */
  readonly concurrency: number;
  /** The clock (ms); tests pass their own. */
  readonly now?: () => number;
}

// Kubernetes' canonical controller name (`--controllers` also accepts `daemonset`).
const NAME = 'daemonset-controller';
const DAEMON_SET: OwnerType = { group: 'apps', version: 'v1', kind: 'DaemonSet' };

/**
 * The DaemonSet controller: one pod of each DaemonSet on every node it is eligible for (node
 * selector, required node affinity, taints against the template's and the automatic tolerations),
 * each pod naming its node in a required node affinity term so the scheduler binds it there;
 * pods go from nodes that lose eligibility or disappear. Template changes roll out by RollingUpdate
 * (maxUnavailable, maxSurge) or wait for the pods' deletion (OnDelete); each template is a
 * ControllerRevision. Status: the node counts kubectl shows.
 */
export function daemonSetController(ctx: ControllerContext, options: DaemonSetControllerOptions): Observable<ControllerResult<unknown>> {
  const daemonSets = ctx.informers.informer(builtin.daemonSets);
  const pods = ctx.informers.informer(builtin.pods, { ownerIndex: true });
  const nodes = ctx.informers.informer(builtin.nodes);
  const revisions = ctx.informers.informer(builtin.controllerRevisions, { ownerIndex: true });
  const expectations = new Expectations();
  const now = options.now ?? Date.now;
  const failedBackoff = new FailedPodBackoff(now);
  const allDaemonSets = () => daemonSets.store.list().map((ds) => `${ds.metadata.namespace}/${ds.metadata.name}`);
  return controller<unknown>({
    ...ctx.controllerDefaults(NAME),
    name: NAME,
    for: daemonSets,
    owns: [
      { events: pods, group: DAEMON_SET.group, kind: DAEMON_SET.kind },
      { events: revisions, group: DAEMON_SET.group, kind: DAEMON_SET.kind },
    ],
    watches: [
      observeOwned(expectations, pods, DAEMON_SET),
      // A pod without a controller that a DaemonSet selects: that DaemonSet may adopt it.
      orphanTriggers(pods, daemonSets, (ds) => ds.spec.selector),
      // A node added, removed, relabelled or (un)tainted may change where every DaemonSet runs.
      { events$: nodes.events$.pipe(filter(nodeChangeMatters), mergeMap(allDaemonSets)), synced$: nodes.synced$ },
    ],
    concurrency: options.concurrency,
    stop$: ctx.stop$,
    reconcile: (key) => {
      const ds = daemonSets.store.get(key);
      if (!ds) return expectations.delete(key);
      return syncDaemonSet({ client: ctx.client, events: ctx.events, ds, key, pods, nodes, revisions, expectations, failedBackoff, nowMs: now() });
    },
  });
}

function nodeChangeMatters(event: InformerEvent<Node>): boolean {
  if (event.type === 'resync') return false;
  if (event.type !== 'updated') return true;
  const before = event.old;
  const after = event.object;
  return (
    canonicalJson(before.metadata.labels ?? {}) !== canonicalJson(after.metadata.labels ?? {}) ||
    canonicalJson(before.spec?.taints ?? []) !== canonicalJson(after.spec?.taints ?? [])
  );
}

interface SyncInput {
  readonly client: Client;
  /** The loop's Events, on the DaemonSet (upstream's FailedCreate, SuccessfulDelete, FailedDelete, FailedDaemonPod). */
  readonly events: EventSink;
  readonly ds: DaemonSet;
  readonly key: string;
  readonly pods: Informer<Pod>;
  readonly nodes: Informer<Node>;
  readonly revisions: Informer<ControllerRevision>;
  readonly expectations: Expectations;
  readonly failedBackoff: FailedPodBackoff;
  readonly nowMs: number;
}

async function syncDaemonSet(input: SyncInput): Promise<Outcome<unknown> | void> {
  const { client, ds, key, expectations, nowMs } = input;
  const namespace = ds.metadata.namespace!;
  // Being deleted: the garbage collector removes the pods; nothing to make.
  if (ds.metadata.deletionTimestamp !== undefined) return;
  const selector = ds.spec.selector;
  // An empty selector would select every pod of the namespace: upstream refuses to act on it.
  if (!selector.matchLabels && !selector.matchExpressions) return;
  const owner = { object: ds, resource: { ...builtin.daemonSets, kind: DAEMON_SET.kind } };
  const claim = await claimObjects({ client, owner, selector, resource: builtin.pods, candidates: claimCandidates(input.pods, ds) });
  if (claim.errors.length > 0) throw claim.errors[0];
  const revisionClaim = await claimObjects({ client, owner, selector, resource: builtin.controllerRevisions, candidates: claimCandidates(input.revisions, ds) });
  if (revisionClaim.errors.length > 0) throw revisionClaim.errors[0];

  const revisionOwner: RevisionOwner = { object: ds, type: DAEMON_SET, hashLabel: REVISION_HASH_LABEL };
  const history = await ensureRevision(client, revisionOwner, ds.spec.template, revisionClaim.claimed, ds.status?.collisionCount ?? 0);
  const hash = revisionHash(history.updateRevision, REVISION_HASH_LABEL);
  const nodes = input.nodes.store.list();
  const byNode = podsByNode(claim.claimed);
  let failedWaitMs: number | undefined;

  if (expectations.satisfied(key)) {
    const { maxSurge } = rolloutBounds(ds, nodes.length);
    const plan = planNodes(ds, nodes, byNode, hash, maxSurge > 0);
    const podsToDelete = [...plan.podsToDelete];
    for (const pod of plan.failedPods) {
      const node = targetNodeOf(pod) ?? '';
      const turn = input.failedBackoff.take(`${key}/${node}`);
      if (!turn.allowed) {
        failedWaitMs = Math.min(failedWaitMs ?? turn.waitMs, turn.waitMs);
        continue;
      }
      input.events.record(involved(ds), 'Warning', 'FailedDaemonPod', `Found failed daemon pod ${namespace}/${pod.metadata.name} on node ${node}, will try to kill it`);
      podsToDelete.push(pod);
    }
    let changed = await syncNodes(input, podsToDelete, plan.nodesNeedingPods, hash);
    if (!changed && ds.spec.updateStrategy?.type !== 'OnDelete') {
      const step = rolloutStep(ds, nodes, byNode, hash, nowMs);
      changed = await syncNodes(input, step.podsToDelete, step.nodesNeedingPods, hash);
    }
    if (!changed) {
      // Revisions still used by a pod are history that counts; the rest beyond the limit go.
      const live = new Set([history.updateRevision.metadata.name!]);
      for (const revision of history.revisions) {
        const revisionHashValue = revisionHash(revision, REVISION_HASH_LABEL);
        if (claim.claimed.some((pod) => pod.metadata.labels?.[REVISION_HASH_LABEL] === revisionHashValue)) live.add(revision.metadata.name!);
      }
      await truncateHistory(client, history.revisions, live, ds.spec.revisionHistoryLimit ?? 10);
    }
  }

  const { status, availableAt } = daemonSetStatus(ds, nodes, byNode, hash, history.collisionCount, nowMs);
  if (canonicalJson(status) !== canonicalJson(ds.status ?? {})) {
    await client.updateStatus(builtin.daemonSets, { ...ds, status }, { namespace });
  }
  // Look again when a pod becomes available, or when a node's back-off lets its failed pod go.
  const waits = [availableAt === undefined ? undefined : Math.max(0, availableAt - nowMs), failedWaitMs].filter((ms): ms is number => ms !== undefined);
  if (waits.length > 0) return requeueAfter(Math.min(...waits));
}

/** Creates the daemon pods of `nodeNames` and deletes `podsToDelete`, expectations kept; answers whether it wrote anything. */
async function syncNodes(input: SyncInput, podsToDelete: readonly Pod[], nodeNames: readonly string[], hash: string): Promise<boolean> {
  const { client, ds, key, expectations } = input;
  if (podsToDelete.length === 0 && nodeNames.length === 0) return false;
  const template = daemonPodTemplate(ds, hash);
  const reference = controllerRef(ds, DAEMON_SET);
  const created = await createPods({
    client,
    expectations,
    key,
    count: nodeNames.length,
    onCreated: (pod) => input.events.record(involved(ds), 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata.name}`),
    pod: (index) => {
      const pod = podFromTemplate(template, { namespace: ds.metadata.namespace!, controllerRef: reference });
      return { ...pod, spec: withNodeNameAffinity(pod.spec, nodeNames[index]!) };
    },
  });
  const deleted = await deletePods({ client, expectations, key, pods: podsToDelete });
  if (created.error !== undefined) input.events.record(involved(ds), 'Warning', 'FailedCreate', `Error creating: ${messageOf(created.error)}`);
  if (deleted.error !== undefined) input.events.record(involved(ds), 'Warning', 'FailedDelete', `Error deleting: ${messageOf(deleted.error)}`);
  else for (const pod of podsToDelete) input.events.record(involved(ds), 'Normal', 'SuccessfulDelete', `Deleted pod: ${pod.metadata.name}`);
  const error = created.error ?? deleted.error;
  if (error !== undefined && !isStatusError(error, 'NotFound')) throw error;
  return true;
}

const involved = (ds: DaemonSet): InvolvedObject => ({
  apiVersion: 'apps/v1',
  kind: 'DaemonSet',
  name: ds.metadata.name!,
  namespace: ds.metadata.namespace,
  uid: ds.metadata.uid,
  resourceVersion: ds.metadata.resourceVersion,
});
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
