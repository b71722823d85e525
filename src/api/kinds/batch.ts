import { z } from 'zod';
import { objectMetaSchema } from '../meta.js';
import { conditionSchema, kindSchema, labelSelectorSchema, looseSchema, nonNegativeInt, objectReferenceSchema, timeSchema, requiredPart } from './common.js';
import { podSpecSchema } from './pod.js';

/** batch/v1: Job and CronJob. */

// A Job's pods must end: Kubernetes refuses the default `Always` and wants the policy spelled out.
const jobPodTemplateSchema = z.looseObject({
  metadata: objectMetaSchema.optional(),
  spec: podSpecSchema.extend({ restartPolicy: z.enum(['OnFailure', 'Never']) }),
});

export const jobSpecSchema = z.looseObject({
  template: jobPodTemplateSchema,
  parallelism: nonNegativeInt.optional(),
  completions: nonNegativeInt.optional(),
  activeDeadlineSeconds: z.int().min(1).optional(),
  backoffLimit: nonNegativeInt.optional(),
  backoffLimitPerIndex: nonNegativeInt.optional(),
  maxFailedIndexes: nonNegativeInt.optional(),
  selector: labelSelectorSchema.optional(),
  manualSelector: z.boolean().optional(),
  ttlSecondsAfterFinished: nonNegativeInt.optional(),
  completionMode: z.enum(['NonIndexed', 'Indexed']).optional(),
  suspend: z.boolean().optional(),
  podFailurePolicy: looseSchema.optional(),
  successPolicy: looseSchema.optional(),
  podReplacementPolicy: z.enum(['TerminatingOrFailed', 'Failed']).optional(),
  managedBy: z.string().optional(),
});

export const jobStatusSchema = z.looseObject({
  startTime: timeSchema.optional(),
  completionTime: timeSchema.optional(),
  active: nonNegativeInt.optional(),
  succeeded: nonNegativeInt.optional(),
  failed: nonNegativeInt.optional(),
  terminating: nonNegativeInt.optional(),
  ready: nonNegativeInt.optional(),
  conditions: z.array(conditionSchema).optional(),
  completedIndexes: z.string().optional(),
  failedIndexes: z.string().optional(),
  uncountedTerminatedPods: looseSchema.optional(),
});

export const jobSchema = kindSchema({
  spec: requiredPart(jobSpecSchema),
  status: jobStatusSchema.optional(),
});

export const cronJobSpecSchema = z.looseObject({
  /** Cron syntax, or a macro such as `@hourly`. */
  schedule: z.string().min(1),
  timeZone: z.string().optional(),
  startingDeadlineSeconds: z.int().min(0).optional(),
  concurrencyPolicy: z.enum(['Allow', 'Forbid', 'Replace']).optional(),
  suspend: z.boolean().optional(),
  jobTemplate: z.looseObject({ metadata: objectMetaSchema.optional(), spec: requiredPart(jobSpecSchema) }),
  successfulJobsHistoryLimit: nonNegativeInt.optional(),
  failedJobsHistoryLimit: nonNegativeInt.optional(),
});

export const cronJobSchema = kindSchema({
  spec: requiredPart(cronJobSpecSchema),
  status: z
    .looseObject({
      active: z.array(objectReferenceSchema).optional(),
      lastScheduleTime: timeSchema.optional(),
      lastSuccessfulTime: timeSchema.optional(),
    })
    .optional(),
});

export type JobSpec = z.infer<typeof jobSpecSchema>;
export type Job = z.infer<typeof jobSchema>;
export type CronJob = z.infer<typeof cronJobSchema>;
