import { isDeepStrictEqual as jsonEqual } from 'node:util';
import type { CronJob, Job, JobSpec } from '../kinds/index.js';
import type { KubeObject } from '../meta.js';
import type { WriteStrategy } from '../resource-type.js';
import { labelSelectorFromSpec, matchesLabels, type LabelSelectorSpec } from '../selectors/index.js';
import type { FieldCause } from '../status-error.js';
import { fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, fieldTooMany } from '../validation/causes.js';
import { JOB_CONTROLLER_UID_LABEL, JOB_NAME_LABEL, LEGACY_CONTROLLER_UID_LABEL, LEGACY_JOB_NAME_LABEL } from './batch-names.js';
import { parseCronSchedule } from './cron-schedule.js';
import { parseIndexIntervals } from './index-intervals.js';
import { validateJobStatusUpdate } from './job-status-rules.js';
import { withDefaults } from '../defaults/index.js';

const JOB_KIND = { group: 'batch', kind: 'Job' } as const;

/**
 * batch/v1's write rules beyond the schema, as upstream's Job and CronJob strategies: a Job's
 * selector is generated from its uid (unless `manualSelector`), and what the schema cannot say
 * (fields that go together, the selector matching the template, a parsable schedule, a known time
 * zone) is a 422 naming the field. Defaults are applied after the strategy, so an unset field is
 * read here as its default. A `/status` write runs the status rules of job-status-rules.ts.
 */

// Upstream's limits on Indexed Jobs.
const MAX_INDEXED_COMPLETIONS = 100_000;
const MAX_INDEXED_PARALLELISM = 100_000;
const MAX_FAILED_INDEXES_LIMIT = 100_000;
const MAX_POD_FAILURE_POLICY_RULES = 20;
const MAX_SUCCESS_POLICY_RULES = 20;
const MAX_EXIT_CODE_VALUES = 255;
/** A Job's name goes into its pods' labels (63): a CronJob's Jobs add 11 characters of schedule time. */
const MAX_CRONJOB_NAME = 52;

type Spec = JobSpec & Record<string, unknown>;

/** Labels and selector a Job gets when it does not pick its own: every pod names the Job's uid. */
function withGeneratedSelector(job: Job): Job {
  if (job.spec.manualSelector === true) return job;
  const uid = job.metadata.uid!;
  const name = job.metadata.name ?? '';
  const labels = { ...job.spec.template.metadata?.labels };
  // Set only where absent: a conflicting label the user set is then refused by validation.
  for (const [key, value] of [
    [JOB_CONTROLLER_UID_LABEL, uid],
    [LEGACY_CONTROLLER_UID_LABEL, uid],
    [JOB_NAME_LABEL, name],
    [LEGACY_JOB_NAME_LABEL, name],
  ] as const) {
    if (labels[key] === undefined) labels[key] = value;
  }
  const selector = job.spec.selector ?? { matchLabels: { [JOB_CONTROLLER_UID_LABEL]: uid } };
  return { ...job, spec: { ...job.spec, selector, template: { ...job.spec.template, metadata: { ...job.spec.template.metadata, labels } } } };
}

/** The checks of a Job spec (a Job's, or a CronJob's template's under `path`). */
export function validateJobSpec(spec: Spec, path: string, generatedUid: string | undefined): FieldCause[] {
  const causes: FieldCause[] = [];
  const indexed = spec.completionMode === 'Indexed';
  const completions = spec.completions;
  if (indexed) {
    if (completions === undefined) causes.push(fieldRequired(`${path}.completions`, 'when completion mode is Indexed'));
    else if (completions > MAX_INDEXED_COMPLETIONS) causes.push(fieldInvalid(`${path}.completions`, completions, `must be less than or equal to ${MAX_INDEXED_COMPLETIONS} when completion mode is Indexed`));
    if ((spec.parallelism ?? 1) > MAX_INDEXED_PARALLELISM) causes.push(fieldInvalid(`${path}.parallelism`, spec.parallelism, `must be less than or equal to ${MAX_INDEXED_PARALLELISM} when completion mode is Indexed`));
  }
  if (spec.backoffLimitPerIndex !== undefined && !indexed) causes.push(fieldForbidden(`${path}.backoffLimitPerIndex`, 'requires indexed completion mode'));
  if (spec.maxFailedIndexes !== undefined) {
    if (spec.backoffLimitPerIndex === undefined) causes.push(fieldRequired(`${path}.backoffLimitPerIndex`, 'when maxFailedIndexes is specified'));
    if (completions !== undefined && spec.maxFailedIndexes > completions) causes.push(fieldInvalid(`${path}.maxFailedIndexes`, spec.maxFailedIndexes, 'must be less than or equal to completions'));
    if (spec.maxFailedIndexes > MAX_FAILED_INDEXES_LIMIT) causes.push(fieldInvalid(`${path}.maxFailedIndexes`, spec.maxFailedIndexes, `must be less than or equal to ${MAX_FAILED_INDEXES_LIMIT}`));
  }
  causes.push(...validatePodFailurePolicy(spec, path));
  causes.push(...validateSuccessPolicy(spec, path));
  causes.push(...validateSelector(spec, path, generatedUid));
  return causes;
}

function validatePodFailurePolicy(spec: Spec, path: string): FieldCause[] {
  const policy = spec.podFailurePolicy as { rules?: unknown } | undefined;
  if (policy === undefined) return [];
  const causes: FieldCause[] = [];
  const at = `${path}.podFailurePolicy`;
  if (spec.template.spec.restartPolicy !== 'Never') {
    causes.push(fieldInvalid(`${path}.template.spec.restartPolicy`, spec.template.spec.restartPolicy, 'only "Never" is supported when podFailurePolicy is specified'));
  }
  if (spec.podReplacementPolicy !== undefined && spec.podReplacementPolicy !== 'Failed') {
    causes.push(fieldNotSupported(`${path}.podReplacementPolicy`, spec.podReplacementPolicy, ['Failed']));
  }
  const rules = Array.isArray(policy.rules) ? (policy.rules as Record<string, unknown>[]) : undefined;
  if (rules === undefined) return [...causes, fieldRequired(`${at}.rules`)];
  if (rules.length > MAX_POD_FAILURE_POLICY_RULES) causes.push(fieldTooMany(`${at}.rules`, rules.length, MAX_POD_FAILURE_POLICY_RULES));
  rules.forEach((rule, i) => {
    const r = `${at}.rules[${i}]`;
    const actions = ['FailJob', 'FailIndex', 'Ignore', 'Count'];
    if (typeof rule['action'] !== 'string') causes.push(fieldRequired(`${r}.action`));
    else if (!actions.includes(rule['action'])) causes.push(fieldNotSupported(`${r}.action`, rule['action'], actions));
    else if (rule['action'] === 'FailIndex' && spec.backoffLimitPerIndex === undefined) causes.push(fieldInvalid(`${r}.action`, 'FailIndex', 'requires the backoffLimitPerIndex to be set'));
    const codes = rule['onExitCodes'] as { operator?: unknown; values?: unknown; containerName?: unknown } | undefined;
    const conditions = rule['onPodConditions'] as { type?: unknown; status?: unknown }[] | undefined;
    if ((codes === undefined) === (conditions === undefined || conditions.length === 0)) {
      causes.push(fieldInvalid(r, rule, 'specifying one of OnExitCodes and OnPodConditions is required'));
    }
    if (codes !== undefined) {
      if (codes.operator !== 'In' && codes.operator !== 'NotIn') causes.push(fieldNotSupported(`${r}.onExitCodes.operator`, codes.operator, ['In', 'NotIn']));
      const values = Array.isArray(codes.values) ? (codes.values as unknown[]) : [];
      if (values.length === 0) causes.push(fieldInvalid(`${r}.onExitCodes.values`, values, 'at least one value is required'));
      if (values.length > MAX_EXIT_CODE_VALUES) causes.push(fieldTooMany(`${r}.onExitCodes.values`, values.length, MAX_EXIT_CODE_VALUES));
      values.forEach((value, j) => {
        if (!Number.isInteger(value)) causes.push(fieldInvalid(`${r}.onExitCodes.values[${j}]`, value, 'must be an integer'));
        else if (codes.operator === 'In' && value === 0) causes.push(fieldInvalid(`${r}.onExitCodes.values[${j}]`, 0, 'must not be 0 for the In operator'));
        else if (j > 0 && (value as number) <= (values[j - 1] as number)) causes.push(fieldInvalid(`${r}.onExitCodes.values[${j}]`, value, 'must be ordered and unique'));
      });
    }
    (conditions ?? []).forEach((condition, j) => {
      if (typeof condition.type !== 'string' || condition.type === '') causes.push(fieldRequired(`${r}.onPodConditions[${j}].type`));
      const status = condition.status ?? 'True';
      if (!['True', 'False', 'Unknown'].includes(status as string)) causes.push(fieldNotSupported(`${r}.onPodConditions[${j}].status`, status, ['True', 'False', 'Unknown']));
    });
  });
  return causes;
}

function validateSuccessPolicy(spec: Spec, path: string): FieldCause[] {
  const policy = spec.successPolicy as { rules?: unknown } | undefined;
  if (policy === undefined) return [];
  const at = `${path}.successPolicy`;
  if (spec.completionMode !== 'Indexed') return [fieldInvalid(`${path}.completionMode`, spec.completionMode ?? 'NonIndexed', 'requires indexed completion mode')];
  const rules = Array.isArray(policy.rules) ? (policy.rules as Record<string, unknown>[]) : [];
  const causes: FieldCause[] = [];
  if (rules.length === 0) causes.push(fieldRequired(`${at}.rules`, 'at least one rules must be specified when the successPolicy is specified'));
  if (rules.length > MAX_SUCCESS_POLICY_RULES) causes.push(fieldTooMany(`${at}.rules`, rules.length, MAX_SUCCESS_POLICY_RULES));
  rules.forEach((rule, i) => {
    const r = `${at}.rules[${i}]`;
    const indexes = rule['succeededIndexes'];
    const count = rule['succeededCount'];
    if (indexes === undefined && count === undefined) causes.push(fieldRequired(r, 'at least one of succeededCount or succeededIndexes must be specified'));
    let size: number | undefined;
    if (indexes !== undefined) {
      const parsed = typeof indexes === 'string' ? parseIndexIntervals(indexes, spec.completions ?? Number.MAX_SAFE_INTEGER) : 'must be a string';
      if (typeof parsed === 'string') causes.push(fieldInvalid(`${r}.succeededIndexes`, indexes, parsed));
      else size = parsed.length;
    }
    if (count !== undefined) {
      if (!Number.isInteger(count) || (count as number) < 0) causes.push(fieldInvalid(`${r}.succeededCount`, count, 'must be greater than or equal to 0'));
      else if (spec.completions !== undefined && (count as number) > spec.completions) causes.push(fieldInvalid(`${r}.succeededCount`, count, `must be less than or equal to ${spec.completions} (the number of specified completions)`));
      else if (size !== undefined && (count as number) > size) causes.push(fieldInvalid(`${r}.succeededCount`, count, `must be less than or equal to ${size} (the number of indexes in the specified succeededIndexes field)`));
    }
  });
  return causes;
}

function validateSelector(spec: Spec, path: string, generatedUid: string | undefined): FieldCause[] {
  const selectorSpec = spec.selector as LabelSelectorSpec | undefined;
  if (selectorSpec === undefined) {
    // A CronJob's template leaves it to each Job; a Job has one by now unless it asked for manual.
    return generatedUid === undefined && path !== 'spec' ? [] : [fieldRequired(`${path}.selector`)];
  }
  if (generatedUid !== undefined) {
    const wanted = { matchLabels: { [JOB_CONTROLLER_UID_LABEL]: generatedUid } };
    if (!jsonEqual(selectorSpec, wanted)) return [fieldInvalid(`${path}.selector`, selectorSpec, '`selector` not auto-generated (set manualSelector: true to choose your own)')];
  }
  let selector;
  try {
    selector = labelSelectorFromSpec(selectorSpec);
  } catch (error) {
    return [fieldInvalid(`${path}.selector`, selectorSpec, error instanceof Error ? error.message : String(error))];
  }
  if (selector.requirements.length === 0) return [fieldInvalid(`${path}.selector`, selectorSpec, 'empty selector is invalid for a job')];
  const labels = spec.template.metadata?.labels;
  if (!matchesLabels(selector, labels)) return [fieldInvalid(`${path}.template.metadata.labels`, labels ?? {}, '`selector` does not match template `labels`')];
  return [];
}

/** What an update may change of a Job's spec (upstream's ValidateJobSpecUpdate). */
function validateJobUpdate(next: Job, old: Job): FieldCause[] {
  const causes: FieldCause[] = [];
  // The write path defaults after validation; upstream defaults the body first, so a PUT that leaves
  // a defaulted field out (completions, completionMode, the template's defaults) changes nothing.
  const a = withDefaults(JOB_KIND, next).spec as Spec;
  const b = old.spec as Spec;
  if (!jsonEqual(a.selector, b.selector)) causes.push(fieldInvalid('spec.selector', a.selector, 'field is immutable'));
  if (a.completionMode !== b.completionMode) causes.push(fieldInvalid('spec.completionMode', a.completionMode, 'field is immutable'));
  if (a.podFailurePolicy !== undefined && !jsonEqual(a.podFailurePolicy, b.podFailurePolicy)) causes.push(fieldInvalid('spec.podFailurePolicy', a.podFailurePolicy, 'field is immutable'));
  if (!jsonEqual(a.successPolicy, b.successPolicy)) causes.push(fieldInvalid('spec.successPolicy', a.successPolicy, 'field is immutable'));
  if (a.completions !== b.completions) {
    // Elastic Indexed Jobs: completions may move together with parallelism.
    const elastic = a.completionMode === 'Indexed' && a.completions === a.parallelism && a.backoffLimitPerIndex === undefined;
    if (!elastic) causes.push(fieldInvalid('spec.completions', a.completions, 'field is immutable'));
  }
  // The template may change only while the Job is suspended (and has not started pods since).
  if (!jsonEqual(a.template, b.template) && !(b.suspend === true && (old.status?.active ?? 0) === 0)) {
    causes.push(fieldInvalid('spec.template', a.template, 'field is immutable'));
  }
  return causes;
}

export const jobStrategy: WriteStrategy = {
  prepareForCreate: (object: KubeObject) => withGeneratedSelector(object as Job),
  validate(object, old) {
    const job = object as Job;
    const generated = job.spec.manualSelector === true ? undefined : job.metadata.uid;
    if (old === undefined) return validateJobSpec(job.spec as Spec, 'spec', generated);
    return [...validateJobSpec(job.spec as Spec, 'spec', undefined), ...validateJobUpdate(job, old as Job)];
  },
  validateStatus: (object, old) => validateJobStatusUpdate(object as Job, old as Job),
};

export const cronJobStrategy: WriteStrategy = {
  validate(object) {
    const cronJob = object as CronJob;
    const causes: FieldCause[] = [];
    const name = cronJob.metadata.name ?? '';
    if (name.length > MAX_CRONJOB_NAME) causes.push(fieldInvalid('metadata.name', name, `must be no more than ${MAX_CRONJOB_NAME} characters`));
    const { schedule, timeZone } = cronJob.spec;
    const parsed = parseCronSchedule(schedule, timeZone);
    if (typeof parsed === 'string') {
      const zoneBad = timeZone !== undefined && parsed.startsWith('unknown time zone');
      causes.push(zoneBad ? fieldInvalid('spec.timeZone', timeZone, parsed) : fieldInvalid('spec.schedule', schedule, parsed));
    }
    causes.push(...validateJobSpec(cronJob.spec.jobTemplate.spec as Spec, 'spec.jobTemplate.spec', undefined));
    return causes;
  },
};
