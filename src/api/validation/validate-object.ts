import { z } from 'zod';
import type { KubeObject } from '../meta.js';
import type { ResourceType } from '../resource-type.js';
import type { FieldCause } from '../status-error.js';
import { causesFromIssues } from './zod-causes.js';
import { setField } from '../json-fields.js';
import { childSchema, itemSchema, schemaNode, type Schema } from '../schema-walk.js';

export type ValidationResult = { readonly object: KubeObject } | { readonly causes: FieldCause[] };

/**
 * Checks a body against its type's schema: types, required fields, enumerations. Unknown fields
 * are kept. The object returned is the one to store: JSON `null`s are dropped first, because
 * Kubernetes reads a null field as unset (kubectl sends `creationTimestamp: null`). The metadata
 * rules (names, labels...) are `validateObjectMeta`'s job, not this one's.
 */
export function validateObject(type: ResourceType, body: unknown): ValidationResult {
  const seen = { proto: false };
  const data = copyWithoutNulls(body, seen);
  const result = type.schema.safeParse(data);
  if (!result.success) return { causes: causesFromIssues(type.schema, data, result.error.issues) };
  if (!seen.proto) return { object: result.data };
  const causes: FieldCause[] = [];
  restoreProtoFields(type.schema, data, result.data, '', causes);
  return causes.length > 0 ? { causes } : { object: result.data };
}

/** A copy without null-valued object fields, at any depth (array items are left as they are). */
export const withoutNulls = (value: unknown): unknown => copyWithoutNulls(value, { proto: false });

function copyWithoutNulls(value: unknown, seen: { proto: boolean }): unknown {
  if (Array.isArray(value)) return value.map((item) => copyWithoutNulls(item, seen));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (field === null) continue;
    if (key === '__proto__') seen.proto = true;
    setField(out, key, copyWithoutNulls(field, seen));
  }
  return out;
}

/**
 * zod leaves a `__proto__` key out of what it parses (so as never to set a prototype), but in a
 * map it is data (a ConfigMap's `data.__proto__`): each one is put back into the parsed object as
 * an own field, its value checked by the map's value schema (or, in a struct that declares a
 * `__proto__` field — a custom resource's schema may — by that field's). In a struct that keeps
 * unknown fields it is kept as they are; a closed struct has already dropped it as unknown.
 */
function restoreProtoFields(schema: Schema | undefined, input: unknown, output: unknown, path: string, causes: FieldCause[]): void {
  if (Array.isArray(input)) {
    const items = itemSchema(schema);
    if (Array.isArray(output)) input.forEach((item, i) => restoreProtoFields(items, item, output[i], `${path}[${i}]`, causes));
    return;
  }
  if (input === null || typeof input !== 'object' || output === null || typeof output !== 'object') return;
  const node = schemaNode(schema);
  const fields = input as Record<string, unknown>;
  const parsed = output as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    const keyPath = node.kind === 'map' ? `${path}[${key}]` : path === '' ? key : `${path}.${key}`;
    if (key !== '__proto__') {
      if (Object.hasOwn(parsed, key)) restoreProtoFields(childSchema(schema, key), fields[key], parsed[key], keyPath, causes);
      continue;
    }
    const value = fields[key];
    const declared = node.kind === 'struct' && Object.hasOwn(node.fields, key) ? node.fields[key] : undefined;
    if (node.kind === 'map' || declared) {
      const values = node.kind === 'map' ? node.values : declared;
      const checked = values ? z.safeParse(values, value) : { success: true as const, data: value };
      if (checked.success) setField(parsed, key, checked.data);
      else causes.push(...causesFromIssues(values!, value, checked.error.issues).map((cause) => ({ ...cause, field: cause.field ? `${keyPath}.${cause.field}` : keyPath })));
    } else if (node.kind === 'struct' && !node.closed) {
      setField(parsed, key, value);
    } else if (node.kind === 'leaf' && node.open) {
      setField(parsed, key, value);
    }
  }
}
