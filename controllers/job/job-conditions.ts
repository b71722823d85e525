import type { Job } from '../../src/api/index.js';

/** A Job condition (batch/v1 JobCondition). */
export interface JobCondition {
  [field: string]: unknown;
  type: string;
  status: string;
  reason?: string | undefined;
  message?: string | undefined;
  lastProbeTime?: string | undefined;
  lastTransitionTime?: string | undefined;
}

/** The reason and message of a condition to set. */
export interface ConditionCause {
  readonly reason: string;
  readonly message: string;
}

export const conditionOf = (job: Job, type: string): JobCondition | undefined => job.status?.conditions?.find((c) => c.type === type) as JobCondition | undefined;
export const isTrue = (job: Job, type: string): boolean => conditionOf(job, type)?.status === 'True';

/** Complete or Failed: the Job is done, nothing more is created or counted. */
export const isFinished = (job: Job): boolean => isTrue(job, 'Complete') || isTrue(job, 'Failed');

/**
 * The conditions with `type` set to `status`: a condition already in that status keeps its times
 * and reason (no write at steady state); a change stamps `now` as its transition and probe time.
 */
export function setCondition(conditions: readonly JobCondition[], type: string, status: 'True' | 'False', cause: ConditionCause, now: string): JobCondition[] {
  const existing = conditions.find((c) => c.type === type);
  if (existing && existing.status === status) return [...conditions];
  const next: JobCondition = { type, status, reason: cause.reason, message: cause.message, lastProbeTime: now, lastTransitionTime: now };
  return existing ? conditions.map((c) => (c.type === type ? next : c)) : [...conditions, next];
}
