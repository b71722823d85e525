import { z } from 'zod';
import { kindSchema, objectReferenceSchema, timeSchema } from './common.js';

/** events.svc.io/v1: the newer Event shape (same objects as core Events, other field names). */

export const eventSchema = kindSchema({
  /** MicroTime; required on this API version. */
  eventTime: timeSchema,
  series: z.looseObject({ count: z.int(), lastObservedTime: timeSchema }).optional(),
  reportingController: z.string().optional(),
  reportingInstance: z.string().optional(),
  action: z.string().optional(),
  reason: z.string().optional(),
  regarding: objectReferenceSchema.optional(),
  related: objectReferenceSchema.optional(),
  note: z.string().optional(),
  type: z.string().optional(),
  deprecatedSource: z.looseObject({ component: z.string().optional(), host: z.string().optional() }).optional(),
  deprecatedFirstTimestamp: timeSchema.optional(),
  deprecatedLastTimestamp: timeSchema.optional(),
  deprecatedCount: z.int().optional(),
});

export type Event = z.infer<typeof eventSchema>;
