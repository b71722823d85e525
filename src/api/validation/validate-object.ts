import type { KubeObject } from '../meta.js';
import type { ResourceType } from '../resource-type.js';
import type { FieldCause } from '../status-error.js';
import { causesFromIssues } from './zod-causes.js';

export type ValidationResult = { readonly object: KubeObject } | { readonly causes: FieldCause[] };

/**
 * Checks a body against its type's schema: types, required fields, enumerations. Unknown fields
 * are kept. The object returned is the one to store: JSON `null`s are dropped first, because
 * Kubernetes reads a null field as unset (kubectl sends `creationTimestamp: null`). The metadata
 * rules (names, labels...) are `validateObjectMeta`'s job, not this one's.
 */
export function validateObject(type: ResourceType, body: unknown): ValidationResult {
  const data = withoutNulls(body);
  const result = type.schema.safeParse(data);
  if (result.success) return { object: result.data };
  return { causes: causesFromIssues(type.schema, data, result.error.issues) };
}

/** A copy without null-valued object fields, at any depth (array items are left as they are). */
export function withoutNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (field !== null) out[key] = withoutNulls(field);
  }
  return out;
}
