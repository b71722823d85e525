import { z } from 'zod';
import { objectMetaSchema } from '../meta.js';

/** Building blocks the kind schemas share. Every object schema is loose (unknown fields kept). */

// The shape of a resource.Quantity ("500m", "1Gi", "2e3"); a bare JSON number is accepted too.
const QUANTITY = /^[+-]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+|[numkMGTPE]|[KMGTPE]i)?$/;

export const quantitySchema = z.union([
  z.string().regex(QUANTITY, { message: 'must be a quantity such as 500m, 2, 1.5Gi or 1e3' }),
  z.number(),
]);

export const intOrStringSchema = z.union([z.int(), z.string()]);

export const stringMapSchema = z.record(z.string(), z.string());

export const resourceListSchema = z.record(z.string(), quantitySchema);

/** Base64 (standard alphabet, padded), as Go encodes `[]byte` in JSON. */
export const base64Schema = z
  .string()
  .regex(/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/, { message: 'must be base64-encoded bytes' });

/** RFC 3339 time; svc stores it as sent. */
export const timeSchema = z.string();

export const nonNegativeInt = z.int().min(0);

export const labelSelectorRequirementSchema = z.looseObject({
  key: z.string().min(1),
  operator: z.enum(['In', 'NotIn', 'Exists', 'DoesNotExist']),
  values: z.array(z.string()).optional(),
});

export const labelSelectorSchema = z.looseObject({
  matchLabels: stringMapSchema.optional(),
  matchExpressions: z.array(labelSelectorRequirementSchema).optional(),
});

export const objectReferenceSchema = z.looseObject({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
  namespace: z.string().optional(),
  name: z.string().optional(),
  uid: z.string().optional(),
  resourceVersion: z.string().optional(),
  fieldPath: z.string().optional(),
});

export const localObjectReferenceSchema = z.looseObject({ name: z.string().optional() });

/** The condition shape of core and metav1 conditions (the union of their timestamp fields). */
export const conditionSchema = z.looseObject({
  type: z.string(),
  status: z.string(),
  reason: z.string().optional(),
  message: z.string().optional(),
  lastTransitionTime: timeSchema.optional(),
  lastProbeTime: timeSchema.optional(),
  lastHeartbeatTime: timeSchema.optional(),
  lastUpdateTime: timeSchema.optional(),
  observedGeneration: z.int().optional(),
});

export const protocolSchema = z.enum(['TCP', 'UDP', 'SCTP']);

export const looseSchema = z.looseObject({});

/** A top-level object: type meta, metadata (empty when absent), then the kind's own fields. */
export function kindSchema<Shape extends z.core.$ZodLooseShape>(shape: Shape) {
  return z.looseObject({
    apiVersion: z.string().optional(),
    kind: z.string().optional(),
    metadata: objectMetaSchema.default({}),
    ...shape,
  });
}

/**
 * A part that must be present, parsed as `{}` when absent: the client then hears which of its
 * required fields are missing (`spec.containers`), as Kubernetes reports it, not just `spec`.
 */
export function requiredPart<T extends z.ZodType>(schema: T) {
  return schema.prefault({} as z.input<T>);
}
