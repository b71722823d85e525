import { z } from 'zod';
import { base64Schema, kindSchema, requiredPart, timeSchema } from './common.js';

/**
 * apiregistration.svc.io/v1: APIService, the claim of one group-version by a server. Local ones
 * (no `service`) are served by the API server itself; remote ones are proxied to the endpoints of
 * a Service (docs/aggregation.md). The checks across fields (name, TLS, priorities) are the
 * type's strategy (src/api/builtin/apiregistration.ts), since they involve metadata.
 */

export const apiServiceReferenceSchema = z.looseObject({
  namespace: z.string().min(1),
  name: z.string().min(1),
  port: z.int().min(1).max(65535).default(443),
});

export const apiServiceSpecSchema = z.looseObject({
  /** Absent (or null) for a group-version the API server serves itself. */
  service: apiServiceReferenceSchema.nullish(),
  /** `''` only for the core group's `v1.`. */
  group: z.string().default(''),
  version: z.string().min(1),
  insecureSkipTLSVerify: z.boolean().optional(),
  /** PEM CA bundle the remote's serving certificate must chain to, base64 as bytes are in JSON. */
  caBundle: base64Schema.optional(),
  groupPriorityMinimum: z.int().min(0).max(20000).optional(),
  versionPriority: z.int().min(0).max(1000).optional(),
});

export const apiServiceConditionSchema = z.looseObject({
  type: z.string().min(1),
  status: z.enum(['True', 'False', 'Unknown']),
  lastTransitionTime: timeSchema.optional(),
  reason: z.string().optional(),
  message: z.string().optional(),
});

export const apiServiceSchema = kindSchema({
  spec: requiredPart(apiServiceSpecSchema),
  status: z.looseObject({ conditions: z.array(apiServiceConditionSchema).optional() }).optional(),
});

export type APIService = z.infer<typeof apiServiceSchema>;
export type APIServiceSpec = z.infer<typeof apiServiceSpecSchema>;
export type APIServiceCondition = z.infer<typeof apiServiceConditionSchema>;
