import { z } from 'zod';
import {
  base64Schema,
  conditionSchema,
  kindSchema,
  localObjectReferenceSchema,
  looseSchema,
  nonNegativeInt,
  objectReferenceSchema,
  quantitySchema,
  resourceListSchema,
  stringMapSchema,
  timeSchema,
  requiredPart,
} from './common.js';
import { podTemplateSpecSchema } from './pod.js';

/** Core (v1) kinds other than Pod, Node, Service/Endpoints and the volume kinds. */

export const namespaceSchema = kindSchema({
  spec: z.looseObject({ finalizers: z.array(z.string()).optional() }).optional(),
  status: z
    .looseObject({
      phase: z.enum(['Active', 'Terminating']).optional(),
      conditions: z.array(conditionSchema).optional(),
    })
    .optional(),
});

// ConfigMap and Secret keys become file names in volumes, hence the narrow alphabet.
const dataKeySchema = z
  .string()
  .max(253)
  .regex(/^[-._a-zA-Z0-9]+$/, { message: "must consist of alphanumeric characters, '-', '_' or '.'" });

export const configMapSchema = kindSchema({
  data: z.record(dataKeySchema, z.string()).optional(),
  binaryData: z.record(dataKeySchema, base64Schema).optional(),
  immutable: z.boolean().optional(),
});

export const secretSchema = kindSchema({
  /** Values are base64; `stringData` is the write-only plain-text convenience. */
  data: z.record(dataKeySchema, base64Schema).optional(),
  stringData: z.record(dataKeySchema, z.string()).optional(),
  type: z.string().optional(),
  immutable: z.boolean().optional(),
});

export const serviceAccountSchema = kindSchema({
  secrets: z.array(objectReferenceSchema).optional(),
  imagePullSecrets: z.array(localObjectReferenceSchema).optional(),
  automountServiceAccountToken: z.boolean().optional(),
});

export const coreEventSchema = kindSchema({
  involvedObject: objectReferenceSchema,
  reason: z.string().optional(),
  message: z.string().optional(),
  source: z.looseObject({ component: z.string().optional(), host: z.string().optional() }).optional(),
  firstTimestamp: timeSchema.optional(),
  lastTimestamp: timeSchema.optional(),
  count: z.int().optional(),
  type: z.string().optional(),
  eventTime: timeSchema.optional(),
  series: z.looseObject({ count: z.int().optional(), lastObservedTime: timeSchema.optional() }).optional(),
  action: z.string().optional(),
  related: objectReferenceSchema.optional(),
  reportingComponent: z.string().optional(),
  reportingInstance: z.string().optional(),
});

export const replicationControllerSchema = kindSchema({
  spec: z
    .looseObject({
      replicas: nonNegativeInt.optional(),
      minReadySeconds: nonNegativeInt.optional(),
      /** A plain equality map, unlike the label selector of the apps kinds. */
      selector: stringMapSchema.optional(),
      template: podTemplateSpecSchema.optional(),
    })
    .optional(),
  status: z
    .looseObject({
      replicas: nonNegativeInt.optional(),
      fullyLabeledReplicas: nonNegativeInt.optional(),
      readyReplicas: nonNegativeInt.optional(),
      availableReplicas: nonNegativeInt.optional(),
      observedGeneration: z.int().optional(),
      conditions: z.array(conditionSchema).optional(),
    })
    .optional(),
});

export const resourceQuotaSchema = kindSchema({
  spec: z
    .looseObject({
      hard: resourceListSchema.optional(),
      scopes: z.array(z.string()).optional(),
      scopeSelector: looseSchema.optional(),
    })
    .optional(),
  status: z.looseObject({ hard: resourceListSchema.optional(), used: resourceListSchema.optional() }).optional(),
});

export const limitRangeItemSchema = z.looseObject({
  type: z.string().min(1),
  max: resourceListSchema.optional(),
  min: resourceListSchema.optional(),
  default: resourceListSchema.optional(),
  defaultRequest: resourceListSchema.optional(),
  maxLimitRequestRatio: z.record(z.string(), quantitySchema).optional(),
});

export const limitRangeSchema = kindSchema({
  spec: requiredPart(z.looseObject({ limits: z.array(limitRangeItemSchema) })),
});

export type Namespace = z.infer<typeof namespaceSchema>;
export type ConfigMap = z.infer<typeof configMapSchema>;
export type Secret = z.infer<typeof secretSchema>;
export type ServiceAccount = z.infer<typeof serviceAccountSchema>;
export type CoreEvent = z.infer<typeof coreEventSchema>;
export type ReplicationController = z.infer<typeof replicationControllerSchema>;
export type ResourceQuota = z.infer<typeof resourceQuotaSchema>;
export type LimitRange = z.infer<typeof limitRangeSchema>;
