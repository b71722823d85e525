import { z } from 'zod';

/**
 * Metadata every object, list and envelope carries. Every object schema is loose: a field svc does
 * not model is kept as the client sent it, never dropped.
 */

export const typeMetaSchema = z.looseObject({
  apiVersion: z.string().optional(),
  kind: z.string().optional(),
});

export const ownerReferenceSchema = z.looseObject({
  apiVersion: z.string(),
  kind: z.string(),
  name: z.string(),
  uid: z.string(),
  controller: z.boolean().optional(),
  blockOwnerDeletion: z.boolean().optional(),
});

/** Server-side apply bookkeeping; svc stores it as sent (the field set is opaque JSON). */
export const managedFieldsEntrySchema = z.looseObject({
  manager: z.string().optional(),
  operation: z.string().optional(),
  apiVersion: z.string().optional(),
  time: z.string().optional(),
  fieldsType: z.string().optional(),
  fieldsV1: z.unknown().optional(),
  subresource: z.string().optional(),
});

const stringMap = z.record(z.string(), z.string());

export const objectMetaSchema = z.looseObject({
  name: z.string().optional(),
  generateName: z.string().optional(),
  namespace: z.string().optional(),
  uid: z.string().optional(),
  resourceVersion: z.string().optional(),
  generation: z.int().optional(),
  /** RFC 3339, second precision. */
  creationTimestamp: z.string().optional(),
  deletionTimestamp: z.string().optional(),
  deletionGracePeriodSeconds: z.int().optional(),
  labels: stringMap.optional(),
  annotations: stringMap.optional(),
  finalizers: z.array(z.string()).optional(),
  ownerReferences: z.array(ownerReferenceSchema).optional(),
  managedFields: z.array(managedFieldsEntrySchema).optional(),
});

export const listMetaSchema = z.looseObject({
  resourceVersion: z.string().optional(),
  continue: z.string().optional(),
  remainingItemCount: z.int().optional(),
});

export type TypeMeta = z.infer<typeof typeMetaSchema>;
export type OwnerReference = z.infer<typeof ownerReferenceSchema>;
export type ManagedFieldsEntry = z.infer<typeof managedFieldsEntrySchema>;
export type ObjectMeta = z.infer<typeof objectMetaSchema>;
export type ListMeta = z.infer<typeof listMetaSchema>;

/** What every stored object has in common, whatever its kind. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}
