import { Observable, type SchedulerLike } from 'rxjs';
import { APPS_GROUP, isStatusError, labelSelectorFromSpec, type Deployment, type LabelSelector, type Pod, type ReplicaSet } from '../../src/api/index.js';
import { builtin, type Client, type EventSink, type Informer, type InformerEvent } from '../../src/client/index.js';
import { awaitChange, requeueAfter, type Outcome } from '../../operators/index.js';
import { claimCandidates, claimObjects } from '../claim-objects.js';
import type { ControllerContext } from '../context.js';
import { controller, type ControllerResult, type SyncedSource } from '../controller.js';
import { controllerOf, controllerRef, groupOfApiVersion } from '../controller-ref.js';
import { findCondition, orphanTriggers, type WorkloadCondition } from '../workload/index.js';
import {
  calculateDeploymentStatus,
  deploymentComplete,
  deploymentCondition,
  deploymentProgressing,
  deploymentTimedOut,
  hasProgressDeadline,
  newCondition,
  REASON,
  removeDeploymentCondition,
  setDeploymentCondition,
  statusEqual,
  type DeploymentStatus,
} from './deployment-status.js';
import { desiredReplicas, isRollingUpdate, maxSurge, maxUnavailable, scaledValue } from './fenceposts.js';
import {
  ANNOTATION,
  equalIgnoringHash,
  intAnnotation,
  maxRevision,
  POD_TEMPLATE_HASH,
  podTemplateHash,
  replicasAnnotationsNeedUpdate,
  revisionOf,
  setNewReplicaSetAnnotations,
  setReplicasAnnotations,
} from './revisions.js';
import { TemplateKeys } from './template-key.js';

const NAME = 'deployment-controller';
const DEPLOYMENT_TYPE = { group: APPS_GROUP, version: 'v1', kind: 'Deployment' } as const;
const DEPLOYMENT_RESOURCE = { ...builtin.deployments, kind: 'Deployment' } as const;

export interface DeploymentControllerOptions {
  /** Deployments synced at once (`--concurrent-deployment-syncs`, default 5). */
  readonly concurrency?: number;
  /** The clock (ms) of conditions and progress deadlines; tests pass their own. */
  readonly now?: () => number;
  /** The work queue's scheduler (deadline requeues); tests pass one that shares `now`. */
  readonly scheduler?: SchedulerLike;
}

/**
 * The Deployment controller (`deployment-controller`), kube-controller-manager's behaviour: a
 * ReplicaSet per template version (named `<deployment>-<pod-template-hash>`), rolled by
 * RollingUpdate (maxSurge, maxUnavailable) or Recreate, revisions in annotations kubectl reads,
 * old sets kept up to `revisionHistoryLimit`, proportional scaling mid-rollout, `paused`, and the
 * Progressing and Available conditions with `progressDeadlineSeconds`
 * (docs/controller-manager.md#deployment-controller).
 */
export function deploymentController(ctx: ControllerContext, options: DeploymentControllerOptions = {}): Observable<ControllerResult<unknown>> {
  const deployments = ctx.informers.informer(builtin.deployments);
  const replicaSets = ctx.informers.informer(builtin.replicaSets, { ownerIndex: true });
  const pods = ctx.informers.informer(builtin.pods, { ownerIndex: true });
  const now = options.now ?? Date.now;
  // Kept across syncs: a template is written as a key once per object and generation.
  const templates = new TemplateKeys();
  return controller<unknown>({
    ...ctx.controllerDefaults(NAME),
    name: NAME,
    for: deployments,
    owns: [{ events: replicaSets, group: APPS_GROUP, kind: 'Deployment' }],
    watches: [orphanTriggers(replicaSets, deployments, (d) => d.spec.selector), podGoneTriggers(pods, replicaSets)],
    concurrency: options.concurrency ?? 5,
    ...(options.scheduler ? { scheduler: options.scheduler } : {}),
    reconcile: (key) => {
      const d = deployments.store.get(key);
      if (!d) return;
      return new DeploymentSync(ctx.client, ctx.events, d, replicaSets, pods, templates, now()).run();
    },
  });
}

/**
 * A Recreate rollout waits for the old pods to be gone; their ReplicaSet's status does not change
 * when a terminating pod finally goes, so a pod deleted triggers its set's Deployment (upstream's deletePod).
 */
function podGoneTriggers(pods: Informer<Pod>, replicaSets: Informer<ReplicaSet>): SyncedSource<string> {
  const keys = new Observable<string>((subscriber) =>
    pods.events$.subscribe({
      next: (event: InformerEvent<Pod>) => {
        if (event.type !== 'deleted') return;
        const owner = controllerOf(event.object);
        if (!owner || owner.kind !== 'ReplicaSet' || groupOfApiVersion(owner.apiVersion) !== APPS_GROUP) return;
        const namespace = event.object.metadata.namespace ?? '';
        const rs = replicaSets.store.get(`${namespace}/${owner.name}`);
        const parent = rs && controllerOf(rs);
        if (parent && parent.kind === 'Deployment' && groupOfApiVersion(parent.apiVersion) === APPS_GROUP) subscriber.next(`${namespace}/${parent.name}`);
      },
      error: (error: unknown) => subscriber.error(error),
      complete: () => subscriber.complete(),
    }),
  );
  return { events$: keys, synced$: pods.synced$ };
}

/** One sync of one Deployment: the steps of upstream's syncDeployment, over a working copy of the objects it writes. */
class DeploymentSync {
  #d: Deployment;
  #sets: ReplicaSet[] = [];

  constructor(
    private readonly client: Client,
    private readonly events: EventSink,
    deployment: Deployment,
    private readonly replicaSets: Informer<ReplicaSet>,
    private readonly pods: Informer<Pod>,
    private readonly templates: TemplateKeys,
    private readonly nowMs: number,
  ) {
    this.#d = deployment;
  }

  get #namespace(): string {
    return this.#d.metadata.namespace!;
  }

  async run(): Promise<Outcome<unknown> | void> {
    let selector: LabelSelector;
    try {
      selector = labelSelectorFromSpec(this.#d.spec.selector);
    } catch {
      return awaitChange();
    }
    if (selector.requirements.length === 0) {
      // Selecting everything is refused by validation; an old object that does is only observed.
      if ((this.#d.status?.observedGeneration ?? 0) < (this.#d.metadata.generation ?? 0)) await this.#writeStatus({ ...this.#d.status, observedGeneration: this.#d.metadata.generation });
      return awaitChange();
    }
    await this.#claim(selector);

    if (this.#d.metadata.deletionTimestamp !== undefined) {
      const { newRS, oldRSs } = await this.#setsAndRevision(false);
      await this.#syncStatus([...oldRSs, newRS], newRS);
      return awaitChange();
    }
    await this.#checkPausedConditions();
    if (this.#d.spec.paused) return this.#syncScaled(true);
    if (await this.#isScalingEvent()) return this.#syncScaled(false);
    return isRollingUpdate(this.#d) ? this.#rolloutRolling() : this.#rolloutRecreate();
  }

  /** Adopts the orphaned ReplicaSets the selector matches, releases those it no longer does. */
  async #claim(selector: LabelSelector): Promise<void> {
    // Its own sets and the namespace's orphans, from the owner index: a sync costs the Deployment's
    // sets, not the namespace's (1,500 Deployments of 100 pods in one namespace made every sync read
    // 1,500 sets, and a Deployment syncs on each status change of its set).
    const candidates = claimCandidates(this.replicaSets, this.#d);
    const claim = await claimObjects({ client: this.client, owner: { object: this.#d, resource: DEPLOYMENT_RESOURCE }, selector, resource: builtin.replicaSets, candidates });
    if (claim.errors.length > 0) throw claim.errors[0];
    this.#sets = claim.claimed;
  }

  // --- ReplicaSets and revisions -------------------------------------------------------------

  /** The new ReplicaSet (the oldest one whose template is the Deployment's) and the others. */
  #split(): { newRS: ReplicaSet | undefined; oldRSs: ReplicaSet[] } {
    const byAge = [...this.#sets].sort(byCreation);
    const newRS = byAge.find((rs) => this.templates.same(rs, this.#d));
    return { newRS, oldRSs: byAge.filter((rs) => rs !== newRS) };
  }

  /** upstream's getAllReplicaSetsAndSyncRevision: the sets, the new one created when asked, revisions synced. */
  async #setsAndRevision(create: boolean): Promise<{ newRS: ReplicaSet | undefined; oldRSs: ReplicaSet[] }> {
    const { newRS, oldRSs } = this.#split();
    return { newRS: await this.#newReplicaSet(newRS, oldRSs, create), oldRSs };
  }

  async #newReplicaSet(existing: ReplicaSet | undefined, oldRSs: ReplicaSet[], create: boolean): Promise<ReplicaSet | undefined> {
    const d = this.#d;
    const revision = maxRevision(oldRSs) + 1;
    const desired = desiredReplicas(d);
    const max = desired + maxSurge(d);
    if (existing) {
      const annotations = { ...existing.metadata.annotations };
      const annotationsChanged = setNewReplicaSetAnnotations(d, annotations, revision, true, desired, max);
      const minReadyChanged = (existing.spec.minReadySeconds ?? 0) !== (d.spec.minReadySeconds ?? 0);
      let rs = existing;
      if (annotationsChanged || minReadyChanged) {
        rs = await this.#updateSet({ ...existing, metadata: { ...existing.metadata, annotations }, spec: { ...existing.spec, minReadySeconds: d.spec.minReadySeconds ?? 0 } });
      }
      await this.#setDeploymentRevision(revisionOf(rs));
      if (hasProgressDeadline(this.#d) && !deploymentCondition(this.#d.status, 'Progressing')) {
        const status = setDeploymentCondition(this.#d.status ?? {}, newCondition('Progressing', 'True', REASON.foundNewRS, `Found new replica set "${rs.metadata.name}"`, this.nowMs));
        await this.#writeStatus(status);
      }
      return rs;
    }
    if (!create) return undefined;

    const hash = podTemplateHash(d.spec.template, d.status?.collisionCount);
    const labels = { ...d.spec.template.metadata?.labels, [POD_TEMPLATE_HASH]: hash };
    const selector = { ...d.spec.selector, matchLabels: { ...d.spec.selector.matchLabels, [POD_TEMPLATE_HASH]: hash } };
    const name = `${d.metadata.name}-${hash}`;
    const annotations: Record<string, string> = {};
    const fresh: ReplicaSet = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name, namespace: this.#namespace, labels, annotations, ownerReferences: [controllerRef(d, DEPLOYMENT_TYPE)] },
      spec: { replicas: 0, minReadySeconds: d.spec.minReadySeconds ?? 0, selector, template: { ...d.spec.template, metadata: { ...d.spec.template.metadata, labels } } },
    };
    fresh.spec.replicas = newReplicasFor(d, [...oldRSs, fresh], fresh);
    setNewReplicaSetAnnotations(d, annotations, revision, false, desired, max);

    let created: ReplicaSet;
    let alreadyExisted = false;
    try {
      created = await this.client.create(builtin.replicaSets, fresh, { namespace: this.#namespace });
      this.#sets.push(created);
      if ((created.spec.replicas ?? 0) > 0) this.#scalingEvent(created, 0, created.spec.replicas ?? 0);
    } catch (error) {
      if (isStatusError(error, 'AlreadyExists')) {
        // Ours already when the cache is behind; someone else's (or another template's) is a hash collision.
        const other = await this.client.get(builtin.replicaSets, name, { namespace: this.#namespace });
        if (controllerOf(other)?.uid === d.metadata.uid && equalIgnoringHash(other.spec.template, d.spec.template)) {
          created = other;
          alreadyExisted = true;
          if (!this.#sets.some((rs) => rs.metadata.uid === other.metadata.uid)) this.#sets.push(other);
        } else {
          await this.#writeStatus({ ...this.#d.status, collisionCount: (this.#d.status?.collisionCount ?? 0) + 1 });
          throw error;
        }
      } else {
        if (hasProgressDeadline(d)) {
          const message = `Failed to create new replica set "${name}": ${error instanceof Error ? error.message : String(error)}`;
          await this.#writeStatus(setDeploymentCondition(this.#d.status ?? {}, newCondition('Progressing', 'False', REASON.failedRSCreate, message, this.nowMs)));
        }
        throw error;
      }
    }
    let status = this.#d.status ?? {};
    if (!alreadyExisted && hasProgressDeadline(d)) status = setDeploymentCondition(status, newCondition('Progressing', 'True', REASON.newRSCreated, `Created new replica set "${name}"`, this.nowMs));
    await this.#setDeploymentRevision(revision);
    if (status !== (this.#d.status ?? {})) await this.#writeStatus(status);
    return created;
  }

  /** The Deployment's revision annotation follows its new ReplicaSet's (both names); patched when it differs. */
  async #setDeploymentRevision(revision: number): Promise<void> {
    const text = String(revision);
    const annotations = this.#d.metadata.annotations ?? {};
    if (ANNOTATION.revision.every((name) => annotations[name] === text)) return;
    const patch = { metadata: { annotations: Object.fromEntries(ANNOTATION.revision.map((name) => [name, text])) } };
    this.#d = await this.client.patch(builtin.deployments, this.#d.metadata.name!, patch, { type: 'merge', namespace: this.#namespace });
  }

  // --- Writes --------------------------------------------------------------------------------

  async #updateSet(rs: ReplicaSet): Promise<ReplicaSet> {
    const updated = await this.client.update(builtin.replicaSets, rs, { namespace: this.#namespace });
    this.#sets = this.#sets.map((set) => (set.metadata.uid === updated.metadata.uid ? updated : set));
    return updated;
  }

  async #writeStatus(status: DeploymentStatus): Promise<void> {
    this.#d = await this.client.updateStatus(builtin.deployments, { ...this.#d, status }, { namespace: this.#namespace });
  }

  /** Sets the set's replicas (and the replicas annotations); answers the set as it now is, and whether its size changed. */
  async #scaleSet(rs: ReplicaSet, replicas: number): Promise<{ rs: ReplicaSet; scaled: boolean }> {
    const d = this.#d;
    const desired = desiredReplicas(d);
    const max = desired + maxSurge(d);
    const sizeChanged = (rs.spec.replicas ?? 1) !== replicas;
    if (!sizeChanged && !replicasAnnotationsNeedUpdate(rs, desired, max)) return { rs, scaled: false };
    const annotations = { ...rs.metadata.annotations };
    setReplicasAnnotations(annotations, desired, max);
    const updated = await this.#updateSet({ ...rs, metadata: { ...rs.metadata, annotations }, spec: { ...rs.spec, replicas } });
    if (sizeChanged) this.#scalingEvent(rs, rs.spec.replicas ?? 1, replicas);
    return { rs: updated, scaled: sizeChanged };
  }

  /** What `kubectl describe deployment` lists (upstream's ScalingReplicaSet Events). */
  #scalingEvent(rs: ReplicaSet, from: number, to: number): void {
    const { name, namespace, uid, resourceVersion } = this.#d.metadata;
    this.events.record({ apiVersion: 'apps/v1', kind: 'Deployment', name: name!, namespace, uid, resourceVersion }, 'Normal', 'ScalingReplicaSet', `Scaled ${to > from ? 'up' : 'down'} replica set ${rs.metadata.name} from ${from} to ${to}`);
  }

  /** upstream's scaleReplicaSetAndRecordEvent: nothing when the size is right already. */
  async #scaleSetIfResized(rs: ReplicaSet, replicas: number): Promise<{ rs: ReplicaSet; scaled: boolean }> {
    if ((rs.spec.replicas ?? 1) === replicas) return { rs, scaled: false };
    return this.#scaleSet(rs, replicas);
  }

  // --- Paused, scaling ---------------------------------------------------------------------

  async #checkPausedConditions(): Promise<void> {
    const d = this.#d;
    if (!hasProgressDeadline(d)) return;
    const condition = deploymentCondition(d.status, 'Progressing');
    if (condition?.reason === REASON.timedOut) return;
    const pausedShown = condition?.reason === REASON.paused;
    if (d.spec.paused && !pausedShown) {
      await this.#writeStatus(setDeploymentCondition(d.status ?? {}, newCondition('Progressing', 'Unknown', REASON.paused, 'Deployment is paused', this.nowMs)));
    } else if (!d.spec.paused && pausedShown) {
      await this.#writeStatus(setDeploymentCondition(d.status ?? {}, newCondition('Progressing', 'Unknown', REASON.resumed, 'Deployment is resumed', this.nowMs)));
    }
  }

  /** A set with replicas whose desired-replicas annotation differs from `spec.replicas`: the Deployment was scaled. */
  async #isScalingEvent(): Promise<boolean> {
    const { newRS, oldRSs } = await this.#setsAndRevision(false);
    const desired = desiredReplicas(this.#d);
    return active([...oldRSs, newRS]).some((rs) => {
      const annotated = intAnnotation(rs, ANNOTATION.desiredReplicas);
      return annotated !== undefined && annotated !== desired;
    });
  }

  /** upstream's sync: scale (proportionally mid-rollout), clean up when paused, status. */
  async #syncScaled(paused: boolean): Promise<Outcome<unknown>> {
    const { newRS, oldRSs } = await this.#setsAndRevision(false);
    await this.#scale(newRS, oldRSs);
    const current = this.#split();
    if (paused) await this.#cleanup(current.oldRSs);
    await this.#syncStatus([...current.oldRSs, current.newRS], current.newRS);
    return awaitChange();
  }

  async #scale(newRS: ReplicaSet | undefined, oldRSs: ReplicaSet[]): Promise<void> {
    const d = this.#d;
    const desired = desiredReplicas(d);
    const latest = activeOrLatest(newRS, oldRSs);
    if (latest) {
      if ((latest.spec.replicas ?? 1) !== desired) await this.#scaleSetIfResized(latest, desired);
      return;
    }
    if (newRS && isSaturated(d, newRS)) {
      for (const old of active(oldRSs)) await this.#scaleSetIfResized(old, 0);
      return;
    }
    if (!isRollingUpdate(d)) return;
    // Proportional scaling: the replicas added or removed shared by the sets' sizes.
    const sets = active([...oldRSs, newRS]);
    const allowed = desired > 0 ? desired + maxSurge(d) : 0;
    const toAdd = allowed - specReplicasOf(sets);
    if (toAdd > 0) sets.sort(bySizeThen(true));
    else if (toAdd < 0) sets.sort(bySizeThen(false));
    let added = 0;
    const sizes = new Map<ReplicaSet, number>();
    for (const rs of sets) {
      if (toAdd === 0) {
        sizes.set(rs, rs.spec.replicas ?? 1);
        continue;
      }
      const share = proportion(rs, d, toAdd, added);
      sizes.set(rs, (rs.spec.replicas ?? 1) + share);
      added += share;
    }
    for (const [i, rs] of sets.entries()) {
      if (i === 0 && toAdd !== 0) sizes.set(rs, Math.max(0, sizes.get(rs)! + toAdd - added));
      await this.#scaleSet(rs, sizes.get(rs)!);
    }
  }

  // --- Rollouts ------------------------------------------------------------------------------

  async #rolloutRolling(): Promise<Outcome<unknown> | void> {
    const { newRS } = await this.#setsAndRevision(true);
    if (newRS && (await this.#reconcileNewReplicaSet(this.#all(), newRS))) return this.#syncRolloutStatus();
    const current = this.#split();
    if (current.newRS && (await this.#reconcileOldReplicaSets(this.#all(), active(current.oldRSs), current.newRS))) return this.#syncRolloutStatus();
    if (deploymentComplete(this.#d, this.#d.status ?? {})) await this.#cleanup(this.#split().oldRSs);
    return this.#syncRolloutStatus();
  }

  /** Every set the Deployment controls, as this sync has last written or read them. */
  #all(): ReplicaSet[] {
    const { newRS, oldRSs } = this.#split();
    return newRS ? [...oldRSs, newRS] : oldRSs;
  }

  async #reconcileNewReplicaSet(all: ReplicaSet[], newRS: ReplicaSet): Promise<boolean> {
    const desired = desiredReplicas(this.#d);
    const replicas = newRS.spec.replicas ?? 1;
    if (replicas === desired) return false;
    if (replicas > desired) return (await this.#scaleSetIfResized(newRS, desired)).scaled;
    return (await this.#scaleSetIfResized(newRS, newReplicasFor(this.#d, all, newRS))).scaled;
  }

  async #reconcileOldReplicaSets(all: ReplicaSet[], oldRSs: ReplicaSet[], newRS: ReplicaSet): Promise<boolean> {
    const oldCount = specReplicasOf(oldRSs);
    if (oldCount === 0) return false;
    const d = this.#d;
    const minAvailable = desiredReplicas(d) - maxUnavailable(d);
    const newUnavailable = (newRS.spec.replicas ?? 1) - (newRS.status?.availableReplicas ?? 0);
    const maxScaledDown = specReplicasOf(all) - minAvailable - newUnavailable;
    if (maxScaledDown <= 0) return false;
    // Unhealthy old pods first: they would block the rollout (kubernetes#16737).
    let cleaned = 0;
    const sorted = [...oldRSs].sort(byCreation);
    for (const [i, rs] of sorted.entries()) {
      if (cleaned >= maxScaledDown) break;
      const replicas = rs.spec.replicas ?? 1;
      const available = rs.status?.availableReplicas ?? 0;
      // A status that lags a scale-down counts more available pods than the spec keeps: the set
      // has nothing unhealthy to clean, and "scaling down" by a negative count would grow it.
      if (replicas === 0 || available >= replicas) continue;
      const down = Math.min(maxScaledDown - cleaned, replicas - available);
      sorted[i] = (await this.#scaleSetIfResized(rs, replicas - down)).rs;
      cleaned += down;
    }
    // Then as many available ones as minAvailable allows.
    const availableNow = availableOf([...sorted, newRS]);
    let scaledDown = 0;
    if (availableNow > minAvailable) {
      const total = availableNow - minAvailable;
      for (const rs of sorted) {
        if (scaledDown >= total) break;
        const replicas = rs.spec.replicas ?? 1;
        if (replicas === 0) continue;
        const down = Math.min(replicas, total - scaledDown);
        await this.#scaleSetIfResized(rs, replicas - down);
        scaledDown += down;
      }
    }
    return cleaned + scaledDown > 0;
  }

  async #rolloutRecreate(): Promise<Outcome<unknown> | void> {
    const { newRS, oldRSs } = await this.#setsAndRevision(false);
    let scaledDown = false;
    for (const rs of active(oldRSs)) if ((await this.#scaleSetIfResized(rs, 0)).scaled) scaledDown = true;
    if (scaledDown) return this.#syncRolloutStatus();
    if (this.#oldPodsRunning(newRS, oldRSs)) return this.#syncRolloutStatus();
    const target = newRS ?? (await this.#setsAndRevision(true)).newRS;
    if (target) await this.#scaleSetIfResized(target, desiredReplicas(this.#d));
    if (deploymentComplete(this.#d, this.#d.status ?? {})) await this.#cleanup(this.#split().oldRSs);
    return this.#syncRolloutStatus();
  }

  /** Old pods still there, running or terminating (a Recreate waits for every one to go). */
  #oldPodsRunning(newRS: ReplicaSet | undefined, oldRSs: ReplicaSet[]): boolean {
    if (oldRSs.some((rs) => (rs.status?.replicas ?? 0) > 0)) return true;
    return this.#sets.some(
      (rs) =>
        rs !== newRS &&
        rs.metadata.uid !== newRS?.metadata.uid &&
        this.pods.byOwner(rs.metadata.uid!).some((pod) => controllerOf(pod)?.uid === rs.metadata.uid && pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed'),
    );
  }

  /** Deletes the oldest old sets (by revision) beyond `revisionHistoryLimit` that have no pods left. */
  async #cleanup(oldRSs: ReplicaSet[]): Promise<void> {
    const limit = this.#d.spec.revisionHistoryLimit;
    if (limit === undefined) return;
    const alive = oldRSs.filter((rs) => rs.metadata.deletionTimestamp === undefined);
    const excess = alive.length - limit;
    if (excess <= 0) return;
    alive.sort((a, b) => revisionOf(a) - revisionOf(b) || byCreation(a, b));
    for (const rs of alive.slice(0, excess)) {
      if ((rs.status?.replicas ?? 0) !== 0 || (rs.spec.replicas ?? 1) !== 0 || (rs.metadata.generation ?? 0) > (rs.status?.observedGeneration ?? 0)) continue;
      try {
        await this.client.delete(builtin.replicaSets, rs.metadata.name!, { namespace: this.#namespace, preconditions: { uid: rs.metadata.uid! } });
      } catch (error) {
        if (!isStatusError(error, 'NotFound')) throw error;
      }
    }
  }

  // --- Status --------------------------------------------------------------------------------

  /** The counts and Available condition only (scaling, paused, deleting). */
  async #syncStatus(all: readonly (ReplicaSet | undefined)[], newRS: ReplicaSet | undefined): Promise<void> {
    const status = calculateDeploymentStatus(this.#d, all, newRS, this.nowMs);
    if (!statusEqual(this.#d.status, status)) await this.#writeStatus(status);
  }

  /** upstream's syncRolloutStatus: counts, Progressing (with the deadline), ReplicaFailure; requeued at the deadline. */
  async #syncRolloutStatus(): Promise<Outcome<unknown>> {
    const d = this.#d;
    const { newRS, oldRSs } = this.#split();
    const all = [...oldRSs, newRS];
    let status = calculateDeploymentStatus(d, all, newRS, this.nowMs);
    if (!hasProgressDeadline(d)) status = removeDeploymentCondition(status, 'Progressing');
    const current = deploymentCondition(d.status, 'Progressing');
    const complete = status.replicas === status.updatedReplicas && current?.reason === REASON.newRSAvailable;
    if (hasProgressDeadline(d) && !complete) {
      const subject = newRS ? `ReplicaSet "${newRS.metadata.name}"` : `Deployment "${d.metadata.name}"`;
      if (deploymentComplete(d, status)) {
        status = setDeploymentCondition(status, newCondition('Progressing', 'True', REASON.newRSAvailable, `${subject} has successfully progressed.`, this.nowMs));
      } else if (deploymentProgressing(d, status)) {
        let condition = newCondition('Progressing', 'True', REASON.replicaSetUpdated, `${subject} is progressing.`, this.nowMs);
        if (current) {
          if (current.status === 'True') condition = { ...condition, lastTransitionTime: current.lastTransitionTime };
          status = removeDeploymentCondition(status, 'Progressing');
        }
        status = setDeploymentCondition(status, condition);
      } else if (deploymentTimedOut(d, status, this.nowMs)) {
        status = setDeploymentCondition(status, newCondition('Progressing', 'False', REASON.timedOut, `${subject} has timed out progressing.`, this.nowMs));
      }
    }
    const failure = replicaFailure(newRS, all);
    status = failure ? setDeploymentCondition(status, failure) : removeDeploymentCondition(status, 'ReplicaFailure');
    if (statusEqual(d.status, status)) return this.#requeueStuck(status);
    await this.#writeStatus(status);
    return awaitChange();
  }

  /** A rollout without progress is looked at again when its deadline passes (upstream's requeueStuckDeployment). */
  #requeueStuck(status: DeploymentStatus): Outcome<unknown> {
    const d = this.#d;
    const current = deploymentCondition(d.status, 'Progressing');
    if (!hasProgressDeadline(d) || !current || deploymentComplete(d, status) || current.reason === REASON.timedOut) return awaitChange();
    const from = current.lastUpdateTime ? Date.parse(current.lastUpdateTime) : NaN;
    if (Number.isNaN(from)) return awaitChange();
    const after = from + d.spec.progressDeadlineSeconds! * 1000 - this.nowMs;
    return requeueAfter(after < 1000 ? 1000 : after + 1000);
  }
}

// --- Helpers over sets ---------------------------------------------------------------------

const created = (rs: ReplicaSet): number => (rs.metadata.creationTimestamp ? Date.parse(rs.metadata.creationTimestamp) : 0);
/** Oldest first, then by name (upstream's ReplicaSetsByCreationTimestamp). */
const byCreation = (a: ReplicaSet, b: ReplicaSet): number => created(a) - created(b) || (a.metadata.name! < b.metadata.name! ? -1 : a.metadata.name! > b.metadata.name! ? 1 : 0);
/** Larger first; ties newer first (scaling up) or older first (scaling down). */
const bySizeThen = (newerFirst: boolean) => (a: ReplicaSet, b: ReplicaSet): number =>
  (b.spec.replicas ?? 1) - (a.spec.replicas ?? 1) || (newerFirst ? -byCreation(a, b) : byCreation(a, b));

const active = (sets: readonly (ReplicaSet | undefined)[]): ReplicaSet[] => sets.filter((rs): rs is ReplicaSet => rs !== undefined && (rs.spec.replicas ?? 1) > 0);
const specReplicasOf = (sets: readonly ReplicaSet[]): number => sets.reduce((total, rs) => total + (rs.spec.replicas ?? 1), 0);
const availableOf = (sets: readonly ReplicaSet[]): number => sets.reduce((total, rs) => total + (rs.status?.availableReplicas ?? 0), 0);

/** The one set with replicas, or (none has) the newest; undefined when several have replicas. */
function activeOrLatest(newRS: ReplicaSet | undefined, oldRSs: readonly ReplicaSet[]): ReplicaSet | undefined {
  if (!newRS && oldRSs.length === 0) return undefined;
  const newestFirst = [...oldRSs].sort((a, b) => byCreation(b, a));
  const withReplicas = active([...newestFirst, newRS]);
  if (withReplicas.length === 0) return newRS ?? newestFirst[0];
  return withReplicas.length === 1 ? withReplicas[0] : undefined;
}

function isSaturated(d: Deployment, rs: ReplicaSet): boolean {
  const desired = desiredReplicas(d);
  return intAnnotation(rs, ANNOTATION.desiredReplicas) === desired && (rs.spec.replicas ?? 1) === desired && (rs.status?.availableReplicas ?? 0) === desired;
}

/** How far the new set may grow now (upstream's NewRSNewReplicas). */
function newReplicasFor(d: Deployment, all: readonly ReplicaSet[], newRS: ReplicaSet): number {
  const desired = desiredReplicas(d);
  if (!isRollingUpdate(d)) return desired;
  const surge = scaledValue(d.spec.strategy?.rollingUpdate?.maxSurge ?? 0, desired, true);
  const current = specReplicasOf(all);
  const maxTotal = desired + surge;
  const replicas = newRS.spec.replicas ?? 1;
  if (current >= maxTotal) return replicas;
  return replicas + Math.min(maxTotal - current, desired - replicas);
}

/** Go's math.Round: halves away from zero. */
const roundHalfAway = (x: number): number => Math.sign(x) * Math.round(Math.abs(x));

/** A set's share of the replicas added or removed (upstream's GetProportion). */
function proportion(rs: ReplicaSet, d: Deployment, toAdd: number, added: number): number {
  const replicas = rs.spec.replicas ?? 1;
  if (replicas === 0 || toAdd === 0 || toAdd === added) return 0;
  const fraction = replicaSetFraction(rs, d);
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

function replicaSetFraction(rs: ReplicaSet, d: Deployment): number {
  const desired = desiredReplicas(d);
  const replicas = rs.spec.replicas ?? 1;
  if (desired === 0) return -replicas;
  const maxReplicas = desired + maxSurge(d);
  const before = intAnnotation(rs, ANNOTATION.maxReplicas) ?? d.status?.replicas ?? 0;
  if (before === 0) return 0;
  return roundHalfAway((replicas * maxReplicas) / before) - replicas;
}

/** The new set's ReplicaFailure condition, else the first any set has, as a Deployment condition. */
function replicaFailure(newRS: ReplicaSet | undefined, all: readonly (ReplicaSet | undefined)[]): WorkloadCondition | undefined {
  for (const rs of [newRS, ...all]) {
    const condition = rs && findCondition(rs.status?.conditions as WorkloadCondition[] | undefined, 'ReplicaFailure');
    if (condition) return { type: 'ReplicaFailure', status: condition.status, reason: condition.reason, message: condition.message, lastTransitionTime: condition.lastTransitionTime, lastUpdateTime: condition.lastTransitionTime };
  }
  return undefined;
}
