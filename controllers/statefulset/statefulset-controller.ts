import type { Observable } from 'rxjs';
import { canonicalJson, type ControllerRevision, type PersistentVolumeClaim, type Pod, type StatefulSet } from '../../src/api/index.js';
import { builtin, type Client, type EventSink, type Informer } from '../../src/client/index.js';
import { requeueAfter, type Outcome } from '../../operators/index.js';
import { cacheOnly } from '../cache-only.js';
import { claimCandidates, claimObjects } from '../claim-objects.js';
import type { ControllerContext } from '../context.js';
import { controller, type ControllerResult } from '../controller.js';
import { controllerRef, type OwnerType } from '../controller-ref.js';
import { Expectations } from '../expectations.js';
import { observeOwned } from '../observe-owned.js';
import { orphanTriggers } from '../workload/index.js';
import { ensureRevision, templateOfRevision, truncateHistory } from '../revision-history/index.js';
import { syncMembers } from './members-sync.js';
import { ordinalOf, podRevision, REVISION_HASH_LABEL } from './stateful-pod.js';
import { statefulSetStatus } from './stateful-status.js';

export interface StatefulSetControllerOptions {
  /** StatefulSets synced at once (`--concurrent-statefulset-syncs`, default 5). */
  readonly concurrency: number;
  /** The clock (ms); tests pass their own. */
  readonly now?: () => number;
}

// Kubernetes' canonical controller name (`--controllers` also accepts `statefulset`).
const NAME = 'statefulset-controller';
const STATEFUL_SET: OwnerType = { group: 'apps', version: 'v1', kind: 'StatefulSet' };

/**
 * The StatefulSet controller: members `<set>-<ordinal>` from `ordinals.start`, each with a stable
 * hostname under the set's Service and its own claims from the volume claim templates; created
 * and removed in ordinal order (OrderedReady) or all at once (Parallel); template changes rolled
 * out by RollingUpdate (partition, maxUnavailable) or OnDelete, each template a ControllerRevision
 * (`currentRevision`, `updateRevision`); claims kept or deleted with the set and on scale-down as
 * `persistentVolumeClaimRetentionPolicy` says.
 */
export function statefulSetController(ctx: ControllerContext, options: StatefulSetControllerOptions): Observable<ControllerResult<unknown>> {
  const sets = ctx.informers.informer(builtin.statefulSets);
  const pods = ctx.informers.informer(builtin.pods, { ownerIndex: true });
  const revisions = ctx.informers.informer(builtin.controllerRevisions, { ownerIndex: true });
  const claims = ctx.informers.informer(builtin.persistentVolumeClaims);
  const expectations = new Expectations();
  const now = options.now ?? Date.now;
  return controller<unknown>({
    ...ctx.controllerDefaults(NAME),
    name: NAME,
    for: sets,
    owns: [
      { events: pods, group: STATEFUL_SET.group, kind: STATEFUL_SET.kind },
      { events: revisions, group: STATEFUL_SET.group, kind: STATEFUL_SET.kind },
    ],
    // The claims' cache must be filled before a member is made (a claim not yet seen would be created again).
    watches: [observeOwned(expectations, pods, STATEFUL_SET), orphanTriggers(pods, sets, (set) => set.spec.selector), cacheOnly(claims)],
    concurrency: options.concurrency,
    stop$: ctx.stop$,
    reconcile: (key) => {
      const set = sets.store.get(key);
      if (!set) return expectations.delete(key);
      return syncStatefulSet({ client: ctx.client, events: ctx.events, set, key, pods, revisions, claims, expectations, nowMs: now() });
    },
  });
}

interface SyncInput {
  readonly client: Client;
  readonly events: EventSink;
  readonly set: StatefulSet;
  readonly key: string;
  readonly pods: Informer<Pod>;
  readonly revisions: Informer<ControllerRevision>;
  readonly claims: Informer<PersistentVolumeClaim>;
  readonly expectations: Expectations;
  readonly nowMs: number;
}

async function syncStatefulSet(input: SyncInput): Promise<Outcome<unknown> | void> {
  const { client, set, key, expectations, nowMs } = input;
  const namespace = set.metadata.namespace!;
  // Being deleted: the garbage collector removes the members (and the claims the policy gave the set).
  if (set.metadata.deletionTimestamp !== undefined) return;
  const selector = set.spec.selector;
  if (!selector.matchLabels && !selector.matchExpressions) return;
  const owner = { object: set, resource: { ...builtin.statefulSets, kind: STATEFUL_SET.kind } };
  const claim = await claimObjects({ client, owner, selector, resource: builtin.pods, candidates: claimCandidates(input.pods, set) });
  if (claim.errors.length > 0) throw claim.errors[0];
  // Pods the set controls that are not named as its members are not its members (upstream's isMemberOf).
  const members = claim.claimed.filter((pod) => ordinalOf(set, pod) !== undefined);
  const revisionClaim = await claimObjects({ client, owner, selector, resource: builtin.controllerRevisions, candidates: claimCandidates(input.revisions, set) });
  if (revisionClaim.errors.length > 0) throw revisionClaim.errors[0];

  const history = await ensureRevision(client, { object: set, type: STATEFUL_SET, hashLabel: REVISION_HASH_LABEL }, set.spec.template, revisionClaim.claimed, set.status?.collisionCount ?? 0);
  const update = history.updateRevision;
  const current = history.revisions.find((revision) => revision.metadata.name === set.status?.currentRevision) ?? update;
  const revisions = { current: current.metadata.name!, update: update.metadata.name! };

  if (expectations.satisfied(key)) {
    await syncMembers({
      client,
      set,
      key,
      expectations,
      claims: input.claims,
      members,
      current: { name: revisions.current, template: templateOfRevision(current) ?? set.spec.template },
      update: { name: revisions.update, template: set.spec.template },
      reference: controllerRef(set, STATEFUL_SET),
      nowMs,
      events: input.events,
    });
  }

  const { status, availableAt } = statefulSetStatus(set, members, revisions, history.collisionCount, nowMs);
  if (canonicalJson(status) !== canonicalJson(set.status ?? {})) {
    await client.updateStatus(builtin.statefulSets, { ...set, status }, { namespace });
  }
  // History: the current and update revisions and those members still run are kept; the rest beyond the limit go.
  const live = new Set([status.currentRevision!, status.updateRevision!]);
  for (const pod of members) {
    const revision = podRevision(pod);
    if (revision !== undefined) live.add(revision);
  }
  await truncateHistory(client, history.revisions, live, set.spec.revisionHistoryLimit ?? 10);
  if (availableAt !== undefined) return requeueAfter(Math.max(0, availableAt - nowMs));
}
