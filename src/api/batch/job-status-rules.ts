import { isDeepStrictEqual as jsonEqual } from 'node:util';
import type { Job } from '../kinds/index.js';
import type { FieldCause } from '../status-error.js';
import { fieldDuplicate, fieldInvalid, fieldInvalidWithoutValue, fieldRequired } from '../validation/causes.js';
import { parseIndexIntervals } from './index-intervals.js';

/**
 * A Job's status rules on a write through `/status` (upstream's ValidateJobUpdateStatus, with the
 * options its Job status strategy picks since JobManagedBy: the status may be written by a
 * controller other than ours, so the API server keeps its transitions sound). Most rules run only
 * when the fields they read changed in this write, as upstream's do: a write that leaves a broken
 * part alone still goes through (and the spec may have moved under a status that was right, as
 * when completions shrink below completedIndexes). Negative counts are the schema's.
 */

type Status = NonNullable<Job['status']>;

const isTrue = (status: Status, type: string): boolean => (status.conditions ?? []).some((c) => c.type === type && c.status === 'True');
const isComplete = (status: Status) => isTrue(status, 'Complete');
const isFailed = (status: Status) => isTrue(status, 'Failed');
const isFinished = (status: Status) => isComplete(status) || isFailed(status);

/** Two optional times the same instant (both absent is the same too); an unparsable one compares as text. */
function sameTime(a: string | undefined, b: string | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  const x = Date.parse(a);
  const y = Date.parse(b);
  return Number.isNaN(x) || Number.isNaN(y) ? a === b : x === y;
}

/** The uids of `uncountedTerminatedPods.<list>`, as written (the field is loosely typed). */
function uncountedOf(status: Status, list: 'succeeded' | 'failed'): unknown[] {
  const value = (status.uncountedTerminatedPods as Record<string, unknown> | undefined)?.[list];
  return Array.isArray(value) ? value : [];
}

/** Every uncounted pod named, and each once across both lists: a pod ends one way. */
function uncountedCauses(status: Status): FieldCause[] {
  const causes: FieldCause[] = [];
  const seen = new Set<unknown>();
  for (const list of ['succeeded', 'failed'] as const) {
    uncountedOf(status, list).forEach((uid, i) => {
      const at = `status.uncountedTerminatedPods.${list}[${i}]`;
      if (uid === '') causes.push(fieldInvalid(at, uid, 'must not be empty'));
      else if (seen.has(uid)) causes.push(fieldDuplicate(at, uid));
      else seen.add(uid);
    });
  }
  return causes;
}

/** What changed in this write, each gating the rules that read it. */
function changesOf(status: Status, old: Status) {
  return {
    finished: isFinished(old) !== isFinished(status),
    complete: isComplete(old) !== isComplete(status),
    failed: isFailed(old) !== isFailed(status),
    failureTarget: isTrue(old, 'FailureTarget') !== isTrue(status, 'FailureTarget'),
    completedIndexes: (old.completedIndexes ?? '') !== (status.completedIndexes ?? ''),
    failedIndexes: old.failedIndexes !== status.failedIndexes,
    active: (old.active ?? 0) !== (status.active ?? 0),
    startTime: !sameTime(old.startTime, status.startTime),
    completionTime: !sameTime(old.completionTime, status.completionTime),
    uncounted: !jsonEqual(old.uncountedTerminatedPods, status.uncountedTerminatedPods),
  };
}

/** The completed and failed indexes of an Indexed Job: well formed, below completions, apart. */
function indexCauses(job: Job, status: Status, changed: ReturnType<typeof changesOf>): FieldCause[] {
  const causes: FieldCause[] = [];
  const { completions, backoffLimitPerIndex } = job.spec;
  const indexed = job.spec.completionMode === 'Indexed';
  const completedText = status.completedIndexes ?? '';
  const failedText = status.failedIndexes;
  if (changed.completedIndexes && completions !== undefined) {
    const parsed = parseIndexIntervals(completedText, completions);
    if (typeof parsed === 'string') causes.push(fieldInvalid('status.completedIndexes', completedText, `error parsing completedIndexes: ${parsed}`));
  }
  if (changed.failedIndexes && completions !== undefined && backoffLimitPerIndex !== undefined && failedText !== undefined) {
    const parsed = parseIndexIntervals(failedText, completions);
    if (typeof parsed === 'string') causes.push(fieldInvalid('status.failedIndexes', failedText, `error parsing failedIndexes: ${parsed}`));
  }
  if (changed.completedIndexes && completedText !== '' && !indexed) {
    causes.push(fieldInvalid('status.completedIndexes', completedText, 'cannot set non-empty completedIndexes when non-indexed completion mode'));
  }
  if (changed.failedIndexes && backoffLimitPerIndex === undefined && failedText !== undefined) {
    causes.push(fieldInvalid('status.failedIndexes', failedText, 'cannot set non-null failedIndexes when backoffLimitPerIndex is null'));
  }
  if ((changed.failedIndexes || changed.completedIndexes) && completions !== undefined && failedText !== undefined) {
    const completed = parseIndexIntervals(completedText, completions);
    const failed = parseIndexIntervals(failedText, completions);
    if (typeof completed !== 'string' && typeof failed !== 'string') {
      const done = new Set(completed);
      const both = failed.find((index) => done.has(index));
      if (both !== undefined) causes.push(fieldInvalid('status.failedIndexes', failedText, `failedIndexes and completedIndexes overlap at index: ${both}`));
    }
  }
  return causes;
}

/** The rules on the status as written (upstream's validateJobStatus). */
function statusCauses(job: Job, status: Status, changed: ReturnType<typeof changesOf>): FieldCause[] {
  const causes: FieldCause[] = [...uncountedCauses(status)];
  const complete = isComplete(status);
  const finished = isFinished(status);
  const successCriteriaMet = isTrue(status, 'SuccessCriteriaMet');
  if ((changed.complete || changed.failed) && complete && isFailed(status)) {
    causes.push(fieldInvalidWithoutValue('status.conditions', 'cannot set Complete=True and Failed=true conditions'));
  }
  if ((changed.complete || changed.failureTarget) && complete && isTrue(status, 'FailureTarget')) {
    causes.push(fieldInvalidWithoutValue('status.conditions', 'cannot set Complete=True and FailureTarget=true conditions'));
  }
  if (changed.complete || changed.completionTime) {
    if (status.completionTime !== undefined && !complete) causes.push(fieldInvalid('status.completionTime', status.completionTime, 'cannot set completionTime when there is no Complete=True condition'));
    if (status.completionTime === undefined && complete) causes.push(fieldRequired('status.completionTime', 'completionTime is required for Complete jobs'));
  }
  if ((changed.startTime || changed.completionTime) && status.startTime !== undefined && status.completionTime !== undefined) {
    if (Date.parse(status.completionTime) < Date.parse(status.startTime)) causes.push(fieldInvalid('status.completionTime', status.completionTime, 'completionTime cannot be set before startTime'));
  }
  const active = status.active ?? 0;
  if ((changed.finished || changed.active) && finished && active > 0) causes.push(fieldInvalid('status.active', active, 'active>0 is invalid for finished job'));
  if ((changed.finished || changed.startTime) && finished && status.startTime === undefined) causes.push(fieldRequired('status.startTime', 'startTime is required for finished job'));
  if ((changed.finished || changed.uncounted) && finished && uncountedOf(status, 'succeeded').length + uncountedOf(status, 'failed').length > 0) {
    causes.push(fieldInvalid('status.uncountedTerminatedPods', status.uncountedTerminatedPods, 'uncountedTerminatedPods needs to be empty for finished job'));
  }
  causes.push(...indexCauses(job, status, changed));
  if (successCriteriaMet && isFailed(status)) causes.push(fieldInvalidWithoutValue('status.conditions', 'cannot set SuccessCriteriaMet=True and Failed=true conditions'));
  if (successCriteriaMet && isTrue(status, 'FailureTarget')) causes.push(fieldInvalidWithoutValue('status.conditions', 'cannot set SuccessCriteriaMet=True and FailureTarget=true conditions'));
  if (job.spec.successPolicy !== undefined && !successCriteriaMet && complete) {
    causes.push(fieldInvalidWithoutValue('status.conditions', 'cannot set Complete=True for Job with SuccessPolicy unless SuccessCriteriaMet=True'));
  }
  return causes;
}

/** The rules on the move from `old` (upstream's ValidateJobStatusUpdate). */
function transitionCauses(job: Job, status: Status, old: Status): FieldCause[] {
  const causes: FieldCause[] = [];
  for (const type of ['Failed', 'Complete', 'FailureTarget']) {
    if (isTrue(old, type) && !isTrue(status, type)) causes.push(fieldInvalidWithoutValue('status.conditions', `cannot disable the terminal ${type}=True condition`));
  }
  const failed = status.failed ?? 0;
  if (failed < (old.failed ?? 0)) causes.push(fieldInvalid('status.failed', failed, 'cannot decrease the failed counter'));
  // An elastic Indexed Job (completions moving with parallelism) may be scaled down past indexes it completed.
  const elastic = job.spec.completionMode === 'Indexed' && job.spec.completions === job.spec.parallelism;
  const succeeded = status.succeeded ?? 0;
  if (!elastic && succeeded < (old.succeeded ?? 0)) causes.push(fieldInvalid('status.succeeded', succeeded, 'cannot decrease the succeeded counter'));
  if (status.completionTime !== undefined && old.completionTime !== undefined && !sameTime(status.completionTime, old.completionTime)) {
    causes.push(fieldInvalid('status.completionTime', status.completionTime, 'completionTime cannot be mutated'));
  }
  // Its activeDeadlineSeconds counts from startTime: only a suspended Job's clock may be reset.
  if (old.startTime !== undefined && !sameTime(old.startTime, status.startTime) && job.spec.suspend !== true) {
    causes.push(fieldRequired('status.startTime', 'startTime cannot be removed for unsuspended job'));
  }
  const met = isTrue(status, 'SuccessCriteriaMet');
  const wasMet = isTrue(old, 'SuccessCriteriaMet');
  if (wasMet && !met) causes.push(fieldInvalidWithoutValue('status.conditions', 'cannot disable the SuccessCriteriaMet=True condition'));
  if (isComplete(old) && !wasMet && met) causes.push(fieldInvalidWithoutValue('status.conditions', 'cannot set SuccessCriteriaMet=True for Job already has Complete=true conditions'));
  return causes;
}

/** The causes of a Job's `/status` write that takes `old`'s status to `job`'s (the spec is the stored one). */
export function validateJobStatusUpdate(job: Job, old: Job): FieldCause[] {
  const status: Status = job.status ?? {};
  const before: Status = old.status ?? {};
  return [...statusCauses(job, status, changesOf(status, before)), ...transitionCauses(job, status, before)];
}
