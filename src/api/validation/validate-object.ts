import { z } from 'zod';
import type { KubeObject } from '../meta.js';
import type { ResourceType } from '../resource-type.js';
import type { FieldCause } from '../status-error.js';
import { causesFromIssues } from './zod-causes.js';
import { setField } from '../json-fields.js';
import { childSchema, itemSchema, markStruct, schemaNode, type Schema } from '../schema-walk.js';

export type ValidationResult = { readonly object: KubeObject } | { readonly causes: FieldCause[] };

/**
 * Checks a body against its type's schema: types, required fields, enumerations. Unknown fields
 * are kept. The object returned is the one to store: JSON `null`s are dropped first, because
 * Kubernetes reads a null field as unset (kubectl sends `creationTimestamp: null`). The metadata
 * rules (names, labels...) are `validateObjectMeta`'s job, not this one's.
 */
export function validateObject(type: ResourceType, body: unknown): ValidationResult {
  return validateAgainst(type.schema, body);
}

/** The fields a status write is checked on; the rest is the stored object's (write-scope.ts). */
const STATUS_VIEW: readonly string[] = ['apiVersion', 'kind', 'metadata', 'status'];

/** A write body's status view (its `apiVersion`, `kind`, `metadata` and `status`) and the rest. */
export function statusViewOf(body: Record<string, unknown>): { view: Record<string, unknown>; rest: Record<string, unknown> } {
  const view: Record<string, unknown> = {};
  const rest: Record<string, unknown> = {};
  for (const key of Object.keys(body)) setField(STATUS_VIEW.includes(key) ? view : rest, key, body[key]);
  return { view, rest };
}

/**
 * Checks a write through `/status` as Kubernetes' status strategies do (ValidatePodStatusUpdate,
 * ValidateNodeStatusUpdate, the generic status strategies): the kind's schema for `apiVersion`,
 * `kind`, `metadata` and `status` only. The rest of `body` — the spec, which a status write keeps
 * from the stored object — passes as it is: an object stored before a rule it fails keeps its
 * status writable. A schema with checks on the whole object (a custom resource's root `allOf`,
 * `anyOf`...) is run whole, since those checks may read the status.
 */
export function validateStatusWrite(type: ResourceType, body: unknown): ValidationResult {
  const schema = statusPartOf(type);
  if (!schema || body === null || typeof body !== 'object' || Array.isArray(body)) return validateAgainst(type.schema, body);
  const { view, rest } = statusViewOf(body as Record<string, unknown>);
  const result = validateAgainst(schema, view);
  return 'object' in result ? { object: Object.assign(rest, result.object) as KubeObject } : result;
}

/** Each kind schema's status part, built once: `null` when the whole schema must run. */
const statusParts = new WeakMap<Schema, Schema | null>();

/**
 * The part of a kind's schema a status write is checked (and pruned) against: a struct of the
 * root's own `apiVersion`, `kind`, `metadata` and `status` schemas — the same schema objects, no
 * second source of truth — as open or closed as the root. Undefined when the root has checks of
 * its own, or is no struct.
 */
export function statusPartOf(type: ResourceType): Schema | undefined {
  let part = statusParts.get(type.schema);
  if (part === undefined) {
    part = buildStatusPart(type.schema);
    statusParts.set(type.schema, part);
  }
  return part ?? undefined;
}

function buildStatusPart(schema: Schema): Schema | null {
  const def = schema._zod.def as unknown as { type: string; shape?: Record<string, Schema>; checks?: readonly unknown[] };
  const root = schemaNode(schema);
  if (def.type !== 'object' || !def.shape || (def.checks?.length ?? 0) > 0 || root.kind !== 'struct') return null;
  const shape: Record<string, z.ZodType> = {};
  for (const key of STATUS_VIEW) if (Object.hasOwn(def.shape, key)) shape[key] = def.shape[key] as z.ZodType;
  return markStruct(z.looseObject(shape), { closed: root.closed });
}

function validateAgainst(schema: Schema, body: unknown): ValidationResult {
  const seen = { proto: false };
  const data = copyWithoutNulls(body, seen);
  const result = z.safeParse(schema, data);
  if (!result.success) return { causes: causesFromIssues(schema, data, result.error.issues) };
  const object = result.data as KubeObject;
  if (!seen.proto) return { object };
  const causes: FieldCause[] = [];
  restoreProtoFields(schema, data, object, '', causes);
  return causes.length > 0 ? { causes } : { object };
}

/** A copy without null-valued object fields, at any depth (array items are left as they are). */
export const withoutNulls = (value: unknown): unknown => copyWithoutNulls(value, { proto: false });

/**
 * `value` without null-valued object fields, at any depth (array items are left as they are):
 * copied only where a null is dropped, the rest shared (zod reads its input and builds its own
 * output, so a body without nulls is checked as it came).
 */
function copyWithoutNulls(value: unknown, seen: { proto: boolean }): unknown {
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const next = copyWithoutNulls(item, seen);
      if (next !== item) (out ??= value.slice())[i] = next;
    }
    return out ?? value;
  }
  if (value === null || typeof value !== 'object') return value;
  const fields = value as Record<string, unknown>;
  let out: Record<string, unknown> | undefined;
  const keys = Object.keys(fields);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const field = fields[key];
    if (key === '__proto__') seen.proto = true;
    const next = field === null ? undefined : copyWithoutNulls(field, seen);
    if (next === field) continue;
    // The first change copies the fields before it; the ones after are copied as they come.
    if (!out) {
      out = {};
      for (let j = 0; j < i; j++) setField(out, keys[j]!, fields[keys[j]!]);
    }
    if (field !== null) setField(out, key, next);
    for (let j = i + 1; j < keys.length; j++) {
      const later = fields[keys[j]!];
      if (keys[j] === '__proto__') seen.proto = true;
      if (later !== null) setField(out, keys[j]!, copyWithoutNulls(later, seen));
    }
    return out;
  }
  return value;
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
