import {
  formatIndexIntervals,
  isStatusError,
  JOB_TRACKING_FINALIZER,
  labelSelectorFromSpec,
  matchesLabels,
  parseIndexIntervals,
  rfc3339,
  type Job,
  type Pod,
} from '../../src/api/index.js';
import { builtin, type Client, type EventSink, type Informer, type InvolvedObject } from '../../src/client/index.js';
import { requeueAfter, type Outcome } from '../../operators/index.js';
import { claimObjects } from '../claim-objects.js';
import { controllerOf } from '../controller-ref.js';
import type { Expectations } from '../expectations.js';
import { compareActivePods, createPods as createWorkloadPods, deletePods as deleteWorkloadPods, isPodReady } from '../workload/index.js';
import { nextCreateAt, type BackoffStore } from './failure-backoff.js';
import { conditionOf, isFinished, setCondition, type ConditionCause, type JobCondition } from './job-conditions.js';
import { completionIndexOf, indexFailureCountOf, indexIgnoredFailureCountOf, jobPodTemplate } from './job-pods.js';
import { finishTimeOf, matchPodFailurePolicy, restartsOf } from './pod-failure-policy.js';
import { successPolicyMatch } from './success-policy.js';

/** What a Job's sync reads and writes with. */
export interface JobSyncDeps {
  readonly client: Client;
  readonly pods: Informer<Pod>;
  /** Pod creations and deletions not yet in the pod cache. */
  readonly expectations: Expectations;
  /** Tracking finalizers removed (by pod uid) not yet in the pod cache: a pod is never counted twice. */
  readonly finalizerExpectations: Expectations;
  readonly backoff: BackoffStore;
  /** Events about the Job (the runtime's shared recorder). */
  readonly events: EventSink;
  /** The clock (ms): the controller's scheduler's. */
  readonly now: () => number;
}

type JobStatus = NonNullable<Job['status']>;
type Uncounted = { succeeded: Set<string>; failed: Set<string> };

const isTerminal = (pod: Pod) => pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
const hasFinalizer = (pod: Pod) => pod.metadata.finalizers?.includes(JOB_TRACKING_FINALIZER) === true;

/**
 * One sync of a Job, as upstream's syncJob: count the pods that ended (through
 * status.uncountedTerminatedPods, so that each is counted once even across restarts), decide
 * whether the Job has met its success criteria or a failure target, make the active pods what
 * parallelism, completions and the indexes want (after the failure back-off), and write the status
 * when it changed.
 */
export async function syncJob(deps: JobSyncDeps, key: string, job: Job): Promise<Outcome<unknown> | void> {
  if (!deps.expectations.satisfied(key) || !deps.finalizerExpectations.satisfied(key)) return;
  // Another controller manages it (spec.managedBy), as upstream leaves such Jobs alone.
  if (job.spec.managedBy !== undefined && job.spec.managedBy !== 'kubernetes.io/job-controller') return;
  const pods = await podsOf(deps, job);

  if (isFinished(job) || job.metadata.deletionTimestamp !== undefined) {
    // Nothing more is counted: finalizers left (pods that ended after the end) are removed.
    await removeFinalizers(deps, key, pods.filter(hasFinalizer));
    if (isFinished(job)) deps.backoff.delete(key);
    return;
  }

  const now = deps.now();
  const nowText = rfc3339(now);
  const spec = job.spec;
  const indexed = spec.completionMode === 'Indexed';
  const completions = spec.completions;
  const parallelism = spec.parallelism ?? 1;
  const suspended = spec.suspend === true;
  const status: JobStatus = job.status ?? {};
  let conditions = [...((status.conditions ?? []) as JobCondition[])];
  let failureTarget: ConditionCause | undefined = conditionOf(job, 'FailureTarget')?.status === 'True' ? causeOf(conditionOf(job, 'FailureTarget')!) : undefined;
  let successTarget: ConditionCause | undefined = conditionOf(job, 'SuccessCriteriaMet')?.status === 'True' ? causeOf(conditionOf(job, 'SuccessCriteriaMet')!) : undefined;

  // 1. Count what ended. A pod's uid goes into uncountedTerminatedPods (written), then its
  //    finalizer is removed, then it moves into succeeded/failed (written): a crash between any two
  //    steps leaves it in exactly one place.
  const uncounted: Uncounted = {
    succeeded: new Set((status.uncountedTerminatedPods?.['succeeded'] as string[] | undefined) ?? []),
    failed: new Set((status.uncountedTerminatedPods?.['failed'] as string[] | undefined) ?? []),
  };
  const completed = new Set(indexed ? indexesOf(status.completedIndexes, completions) : []);
  const failedIndexes = new Set(indexed ? indexesOf(status.failedIndexes, completions) : []);
  const perIndex = indexed && spec.backoffLimitPerIndex !== undefined;
  const replacePolicy = spec.podReplacementPolicy ?? (spec.podFailurePolicy === undefined ? 'TerminatingOrFailed' : 'Failed');
  const toRelease: Pod[] = [];
  const ends: { failed: boolean; at: number }[] = [];
  let newlyUncounted = false;
  for (const pod of pods) {
    if (!hasFinalizer(pod)) continue;
    const uid = pod.metadata.uid!;
    if (uncounted.succeeded.has(uid) || uncounted.failed.has(uid)) {
      toRelease.push(pod);
      continue;
    }
    const index = indexed ? completionIndexOf(pod) : undefined;
    if (pod.status?.phase === 'Succeeded') {
      if (index !== undefined && index < (completions ?? 0) && !failedIndexes.has(index)) completed.add(index);
      uncounted.succeeded.add(uid);
      newlyUncounted = true;
      toRelease.push(pod);
      ends.push({ failed: false, at: finishTimeOf(pod) ?? now });
      continue;
    }
    // A pod deleted before it ended counts as failed (it never will), unless the Job replaces
    // only Failed pods; once the Job has a failure target, its pods being terminated count too.
    const deleting = pod.metadata.deletionTimestamp !== undefined;
    const failed = pod.status?.phase === 'Failed' || (deleting && (replacePolicy !== 'Failed' || failureTarget !== undefined));
    if (!failed) continue;
    const match = pod.status?.phase === 'Failed' && spec.podFailurePolicy !== undefined ? matchPodFailurePolicy(spec.podFailurePolicy, pod) : undefined;
    if (match?.action === 'Ignore') {
      // Not counted at all (a disruption, say): the pod is let go and replaced.
      toRelease.push(pod);
      continue;
    }
    uncounted.failed.add(uid);
    newlyUncounted = true;
    toRelease.push(pod);
    ends.push({ failed: true, at: finishTimeOf(pod) ?? now });
    // A Job that met its success criteria ends as succeeded, whatever its remaining pods do
    // (both targets at once is a status the API server refuses); a completed index cannot fail.
    if (match?.action === 'FailJob' && failureTarget === undefined && successTarget === undefined) failureTarget = { reason: 'PodFailurePolicy', message: match.message };
    if (perIndex && index !== undefined && !completed.has(index) && (match?.action === 'FailIndex' || indexFailureCountOf(pod) + 1 > spec.backoffLimitPerIndex!)) failedIndexes.add(index);
  }
  let current = job;
  if (newlyUncounted) {
    current = await writeStatus(deps, current, {
      ...status,
      uncountedTerminatedPods: { succeeded: [...uncounted.succeeded], failed: [...uncounted.failed] },
      ...(indexed ? { completedIndexes: formatIndexIntervals(completed) } : {}),
      ...(perIndex ? { failedIndexes: formatIndexIntervals(failedIndexes) } : {}),
    });
    // The ends count toward the back-off only once their pods are in uncountedTerminatedPods: a
    // write refused (a 409 from a cache behind the Job) leaves them to be found again by the next
    // sync, which would otherwise count each failure twice and double the back-off.
    deps.backoff.record(key, ends);
  }
  const released = await removeFinalizers(deps, key, toRelease);
  // Counted now: uids whose pod let go of its finalizer, or is gone.
  const present = new Map(pods.map((pod) => [pod.metadata.uid!, pod]));
  const settled = (uid: string) => released.has(uid) || !present.has(uid) || !hasFinalizer(present.get(uid)!);
  let succeeded = status.succeeded ?? 0;
  let failed = status.failed ?? 0;
  for (const uid of [...uncounted.succeeded]) {
    if (!settled(uid)) continue;
    uncounted.succeeded.delete(uid);
    if (!indexed) succeeded += 1;
  }
  for (const uid of [...uncounted.failed]) {
    if (!settled(uid)) continue;
    uncounted.failed.delete(uid);
    failed += 1;
  }
  if (indexed) succeeded = completed.size;
  const succeededSoFar = indexed ? completed.size : succeeded + uncounted.succeeded.size;
  const failedSoFar = failed + uncounted.failed.size;

  // 2. The pods as they are now.
  const live = pods.filter((pod) => !released.has(pod.metadata.uid!) || pod.metadata.deletionTimestamp === undefined);
  let active = live.filter((pod) => !isTerminal(pod) && pod.metadata.deletionTimestamp === undefined);
  const terminatingPods = live.filter((pod) => !isTerminal(pod) && pod.metadata.deletionTimestamp !== undefined);
  const terminating = terminatingPods.length;
  // podReplacementPolicy Failed: a pod still terminating holds its place until it has failed.
  const occupying = replacePolicy === 'Failed' ? terminatingPods : [];

  // 3. Has the Job failed or succeeded?
  // activeDeadlineSeconds counts from startTime, and the API server lets only a suspended Job's
  // startTime change: it is cleared while the Job is suspended and set when it runs (again).
  let startTime = suspended ? undefined : status.startTime;
  const wasSuspended = conditionOf(job, 'Suspended')?.status === 'True';
  if (!suspended && startTime === undefined) startTime = nowText;
  let requeueMs: number | undefined;
  if (failureTarget === undefined && successTarget === undefined) {
    if (perIndex) {
      if (spec.maxFailedIndexes !== undefined && failedIndexes.size > spec.maxFailedIndexes) {
        failureTarget = { reason: 'MaxFailedIndexesExceeded', message: 'Job has exceeded the specified maximal number of failed indexes' };
      }
    } else {
      const restarts = spec.template.spec.restartPolicy === 'OnFailure' ? active.reduce((sum, pod) => sum + restartsOf(pod), 0) : 0;
      if (failedSoFar + restarts > (spec.backoffLimit ?? 6)) failureTarget = { reason: 'BackoffLimitExceeded', message: 'Job has reached the specified backoff limit' };
    }
    if (failureTarget === undefined && !suspended && spec.activeDeadlineSeconds !== undefined && startTime !== undefined) {
      const deadline = Date.parse(startTime) + spec.activeDeadlineSeconds * 1000;
      if (now >= deadline) failureTarget = { reason: 'DeadlineExceeded', message: 'Job was active longer than specified deadline' };
      else requeueMs = deadline - now;
    }
    if (failureTarget === undefined) {
      if (indexed) {
        const rule = spec.successPolicy === undefined ? undefined : successPolicyMatch(spec.successPolicy, completed);
        if (rule !== undefined) successTarget = { reason: 'SuccessPolicy', message: 'Matched rules at index ' + rule };
        else if (completed.size + failedIndexes.size >= (completions ?? 0)) {
          if (failedIndexes.size > 0) failureTarget = { reason: 'FailedIndexes', message: 'Job has failed indexes' };
          else successTarget = { reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' };
        }
      } else if (completions !== undefined ? succeededSoFar >= completions : succeededSoFar > 0 && active.length === 0) {
        successTarget = { reason: 'CompletionsReached', message: 'Reached expected number of succeeded pods' };
      }
    }
  }
  if (failureTarget) conditions = setCondition(conditions, 'FailureTarget', 'True', failureTarget, nowText);
  if (successTarget) conditions = setCondition(conditions, 'SuccessCriteriaMet', 'True', successTarget, nowText);

  // 4. Make the active pods what the Job wants.
  if (failureTarget || successTarget) {
    // A failed Job's pods end as failures (counted once terminated); a succeeded one's are let go.
    await deletePods(deps, key, active, successTarget !== undefined);
    active = [];
  } else if (suspended) {
    await deletePods(deps, key, active, true);
    active = [];
    if (!wasSuspended) deps.events.record(about(job), 'Normal', 'Suspended', 'Job suspended');
    conditions = setCondition(conditions, 'Suspended', 'True', { reason: 'JobSuspended', message: 'Job suspended' }, nowText);
  } else {
    if (wasSuspended) {
      conditions = setCondition(conditions, 'Suspended', 'False', { reason: 'JobResumed', message: 'Job resumed' }, nowText);
      deps.events.record(about(job), 'Normal', 'Resumed', 'Job resumed');
    }
    const plan = indexed
      ? planIndexed(job, active, occupying, completed, failedIndexes, parallelism, live, perIndex)
      : planNonIndexed(job, active, occupying, parallelism, completions, succeededSoFar);
    if (plan.remove.length > 0) {
      await deletePods(deps, key, plan.remove, true);
      const gone = new Set(plan.remove.map((pod) => pod.metadata.uid));
      active = active.filter((pod) => !gone.has(pod.metadata.uid));
    }
    if (plan.create.length > 0) {
      const record = deps.backoff.get(key);
      const createAt = perIndex ? -Infinity : nextCreateAt(record.failuresSinceSuccess, record.lastFailureAt);
      const ready = plan.create.filter((p) => (p.notBefore ?? createAt) <= now);
      const waiting = plan.create.filter((p) => (p.notBefore ?? createAt) > now);
      if (waiting.length > 0) {
        const soonest = Math.min(...waiting.map((p) => p.notBefore ?? createAt)) - now;
        requeueMs = requeueMs === undefined ? soonest : Math.min(requeueMs, soonest);
      }
      if (ready.length > 0) await createPods(deps, key, job, ready.map((p) => p.pod));
    }
  }

  // 5. Finish once nothing is left running or uncounted.
  let completionTime = status.completionTime;
  // Pods deleted for a failure keep their finalizer until counted (next sync): not settled yet.
  const holding = live.some((pod) => hasFinalizer(pod) && !released.has(pod.metadata.uid!) && !toRelease.includes(pod));
  const settledNow = active.length === 0 && terminating === 0 && !holding && uncounted.succeeded.size === 0 && uncounted.failed.size === 0;
  // A finished Job has a startTime (the API server requires it), even one that ends suspended:
  // the one it had, else now.
  if (settledNow && failureTarget) {
    conditions = setCondition(conditions, 'Failed', 'True', failureTarget, nowText);
    startTime ??= status.startTime ?? nowText;
    deps.events.record(about(job), 'Warning', failureTarget.reason, failureTarget.message);
  } else if (settledNow && successTarget) {
    conditions = setCondition(conditions, 'Complete', 'True', successTarget, nowText);
    completionTime = nowText;
    startTime ??= status.startTime ?? nowText;
    deps.events.record(about(job), 'Normal', 'Completed', 'Job completed');
  }

  const { startTime: _startTime, ...rest } = status;
  const next: JobStatus = {
    ...rest,
    ...(startTime !== undefined ? { startTime } : {}),
    ...(completionTime !== undefined ? { completionTime } : {}),
    active: active.length,
    ready: active.filter(isPodReady).length,
    terminating,
    succeeded,
    failed,
    uncountedTerminatedPods: { ...(uncounted.succeeded.size > 0 ? { succeeded: [...uncounted.succeeded] } : {}), ...(uncounted.failed.size > 0 ? { failed: [...uncounted.failed] } : {}) },
    ...(indexed ? { completedIndexes: formatIndexIntervals(completed) } : {}),
    ...(perIndex ? { failedIndexes: formatIndexIntervals(failedIndexes) } : {}),
    ...(conditions.length > 0 ? { conditions } : {}),
  };
  if (!sameStatus(current.status, next)) await writeStatus(deps, current, next);
  return requeueMs === undefined ? undefined : requeueAfter(Math.max(1, requeueMs));
}

const about = (job: Job): InvolvedObject => ({
  apiVersion: 'batch/v1',
  kind: 'Job',
  name: job.metadata.name!,
  namespace: job.metadata.namespace,
  uid: job.metadata.uid,
  resourceVersion: job.metadata.resourceVersion,
});

const causeOf = (condition: JobCondition): ConditionCause => ({ reason: condition.reason ?? '', message: condition.message ?? '' });

function indexesOf(text: string | undefined, completions: number | undefined): number[] {
  const parsed = parseIndexIntervals(text ?? '', completions ?? Number.MAX_SAFE_INTEGER);
  return typeof parsed === 'string' ? [] : parsed;
}

interface PodToCreate {
  readonly pod: Pod;
  /** When this one may be created (an index's own back-off); undefined: the Job's back-off. */
  readonly notBefore?: number;
}

interface Plan {
  readonly create: PodToCreate[];
  readonly remove: Pod[];
}

/** NonIndexed: as many active pods as parallelism allows and the completions still need. */
function planNonIndexed(job: Job, active: Pod[], occupying: Pod[], parallelism: number, completions: number | undefined, succeeded: number): Plan {
  // A work queue (no completions): once one pod succeeded, no new pod starts; those running finish.
  const want = completions === undefined ? (succeeded > 0 ? active.length : parallelism) : Math.max(0, Math.min(parallelism, completions - succeeded));
  if (active.length > want) return { create: [], remove: rankForRemoval(active).slice(0, active.length - want) };
  return { create: Array.from({ length: Math.max(0, want - active.length - occupying.length) }, () => ({ pod: jobPodTemplate(job) })), remove: [] };
}

/** Indexed: one active pod per index neither completed nor failed, lowest indexes first, up to parallelism. */
function planIndexed(job: Job, active: Pod[], occupying: Pod[], completed: Set<number>, failedIndexes: Set<number>, parallelism: number, all: Pod[], perIndex: boolean): Plan {
  const completions = job.spec.completions ?? 0;
  const remove: Pod[] = [];
  const byIndex = new Map<number, Pod>();
  for (const pod of rankForRemoval(active).reverse()) {
    const index = completionIndexOf(pod);
    // A pod with no valid index, of an index done, or a second one of an index: let go.
    if (index === undefined || index >= completions || completed.has(index) || failedIndexes.has(index) || byIndex.has(index)) remove.push(pod);
    else byIndex.set(index, pod);
  }
  const kept = [...byIndex.entries()].sort((a, b) => a[0] - b[0]);
  while (kept.length > parallelism) remove.push(kept.pop()![1]);
  const create: PodToCreate[] = [];
  const held = new Set(occupying.map(completionIndexOf));
  const room = parallelism - kept.length - held.size;
  for (let index = 0; index < completions && create.length < room; index++) {
    if (completed.has(index) || failedIndexes.has(index) || byIndex.has(index) || held.has(index)) continue;
    const previous = all.filter((pod) => completionIndexOf(pod) === index && pod.status?.phase === 'Failed');
    const failures = previous.reduce((n, pod) => Math.max(n, indexFailureCountOf(pod) + 1), 0);
    const ignored = previous.reduce((n, pod) => Math.max(n, indexIgnoredFailureCountOf(pod)), 0);
    const lastEnd = previous.reduce<number | undefined>((at, pod) => Math.max(at ?? 0, finishTimeOf(pod) ?? 0), undefined);
    create.push({
      pod: jobPodTemplate(job, index, { failed: failures, ignored }),
      ...(perIndex ? { notBefore: nextCreateAt(failures, lastEnd) } : {}),
    });
  }
  return { create, remove };
}

/** Upstream's order for deleting a Job's surplus active pods (ActivePods): the cheapest to lose first. */
const rankForRemoval = (pods: Pod[]): Pod[] => [...pods].sort(compareActivePods);

/** The Job's pods: those it controls, and orphans its selector matches, adopted. */
async function podsOf(deps: JobSyncDeps, job: Job): Promise<Pod[]> {
  const owned = deps.pods.byOwner(job.metadata.uid!).filter((pod) => controllerOf(pod)?.uid === job.metadata.uid);
  if (job.spec.selector === undefined || job.metadata.deletionTimestamp !== undefined) return owned;
  const selector = labelSelectorFromSpec(job.spec.selector);
  // Narrowed by one of the selector's labels when it has one (the generated selector's uid label
  // picks the Job's pods alone), not the whole namespace for every Job.
  const [label] = Object.entries(job.spec.selector.matchLabels ?? {});
  const namespace = job.metadata.namespace!;
  const candidates = label ? deps.pods.store.byIndex('labels', `${label[0]}=${label[1]}`).filter((pod) => pod.metadata.namespace === namespace) : deps.pods.store.byIndex('namespace', namespace);
  const orphans = candidates.filter((pod) => controllerOf(pod) === undefined && pod.metadata.deletionTimestamp === undefined && matchesLabels(selector, pod.metadata.labels));
  if (orphans.length === 0) return owned;
  const { adopted, errors } = await claimObjects({ client: deps.client, owner: { object: job, resource: { ...builtin.jobs, kind: 'Job' } }, selector, resource: builtin.pods, candidates: orphans });
  if (errors.length > 0) throw errors[0];
  return [...owned, ...adopted];
}

/** Removes the tracking finalizer of each pod; answers the uids let go (or gone). Throws the first failure after trying all. */
async function removeFinalizers(deps: JobSyncDeps, key: string, pods: readonly Pod[]): Promise<Set<string>> {
  const done = new Set<string>();
  if (pods.length === 0) return done;
  deps.finalizerExpectations.expectDeletions(key, pods.map((pod) => pod.metadata.uid!));
  const errors: unknown[] = [];
  await Promise.all(
    pods.map(async (pod) => {
      const uid = pod.metadata.uid!;
      const at = (pod.metadata.finalizers ?? []).indexOf(JOB_TRACKING_FINALIZER);
      try {
        // test-then-remove: applies whatever else changed on the pod (its status, by the node), never to another finalizer list.
        await deps.client.patch(
          builtin.pods,
          pod.metadata.name!,
          [
            { op: 'test', path: '/metadata/uid', value: uid },
            { op: 'test', path: `/metadata/finalizers/${at}`, value: JOB_TRACKING_FINALIZER },
            { op: 'remove', path: `/metadata/finalizers/${at}` },
          ],
          { type: 'json', namespace: pod.metadata.namespace },
        );
        done.add(uid);
      } catch (error) {
        if (isStatusError(error, 'NotFound')) {
          done.add(uid);
          deps.finalizerExpectations.deletionObserved(key, uid);
          return;
        }
        deps.finalizerExpectations.deletionObserved(key, uid);
        errors.push(error);
      }
    }),
  );
  if (errors.length > 0) throw errors[0];
  return done;
}

/** Deletes pods the Job no longer wants; `release` lets go of their finalizer first (their end is not counted). */
async function deletePods(deps: JobSyncDeps, key: string, pods: readonly Pod[], release: boolean): Promise<void> {
  if (pods.length === 0) return;
  if (release) await removeFinalizers(deps, key, pods.filter(hasFinalizer));
  const { error } = await deleteWorkloadPods({ client: deps.client, expectations: deps.expectations, key, pods });
  if (error !== undefined) throw error;
}

async function createPods(deps: JobSyncDeps, key: string, job: Job, pods: readonly Pod[]): Promise<void> {
  const owner = about(job);
  const { error } = await createWorkloadPods({
    client: deps.client,
    expectations: deps.expectations,
    key,
    count: pods.length,
    pod: (i) => pods[i]!,
    // The Events upstream's PodControl records on the Job.
    onCreated: (pod) => deps.events.record(owner, 'Normal', 'SuccessfulCreate', `Created pod: ${pod.metadata.name}`),
    onFailed: (failure) => deps.events.record(owner, 'Warning', 'FailedCreate', `Error creating: ${failure instanceof Error ? failure.message : String(failure)}`),
  });
  if (error !== undefined) throw error;
}

async function writeStatus(deps: JobSyncDeps, job: Job, status: JobStatus): Promise<Job> {
  return deps.client.updateStatus(builtin.jobs, { ...job, status });
}

/** Equal as the server would store them (key order aside). */
function sameStatus(a: JobStatus | undefined, b: JobStatus): boolean {
  return canonical(a ?? {}) === canonical(b);
}

function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([x], [y]) => x.localeCompare(y))) : v,
  );
}

