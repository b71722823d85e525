import type { z } from 'zod';

/**
 * Reads the structure of a kind's zod schema, for the code that walks an object alongside it:
 * unknown-field detection, strategic merge and server-side apply's field sets. Wrappers
 * (optional, default, prefault, pipe, lazy) are looked through: they do not change where a value
 * sits in the document.
 */

export type Schema = z.core.$ZodType;

interface Def {
  readonly type: string;
  readonly shape?: Record<string, Schema>;
  readonly catchall?: Schema;
  readonly valueType?: Schema;
  readonly element?: Schema;
  readonly innerType?: Schema;
  readonly in?: Schema;
  readonly getter?: () => Schema;
}

const defOf = (schema: Schema): Def => schema._zod.def as unknown as Def;

/** The schema under its wrappers. */
export function unwrapSchema(schema: Schema): Schema {
  let current = schema;
  for (let depth = 0; depth < 16; depth++) {
    const def = defOf(current);
    const inner = def.innerType ?? def.in ?? (def.type === 'lazy' ? def.getter?.() : undefined);
    if (!inner) return current;
    current = inner;
  }
  return current;
}

/** What a schema says about the value at its place. */
export type SchemaNode =
  /** A struct: `fields` are the ones svc models; `closed` when any other name is an unknown field. */
  | { readonly kind: 'struct'; readonly schema: Schema; readonly fields: Readonly<Record<string, Schema>>; readonly closed: boolean }
  /** A map with free keys (labels, data). */
  | { readonly kind: 'map'; readonly schema: Schema; readonly values: Schema | undefined }
  | { readonly kind: 'list'; readonly schema: Schema; readonly items: Schema | undefined }
  /** A scalar, a union of scalars, or anything svc does not model (`z.unknown()`). */
  | { readonly kind: 'leaf'; readonly schema: Schema | undefined; readonly open: boolean };

/**
 * Structs whose openness is said outright rather than read from their shape: a custom resource
 * schema's object with `properties` and `x-kubernetes-preserve-unknown-fields` (open), or with
 * neither properties nor that flag (closed: every field is unknown and pruned).
 */
const structOpenness = new WeakMap<Schema, boolean>();

/** Says whether an object schema keeps the fields it does not declare; returns it. */
export function markStruct<T extends Schema>(schema: T, options: { readonly closed: boolean }): T {
  structOpenness.set(schema, options.closed);
  nodes.delete(schema);
  return schema;
}

/**
 * Each schema's node, worked out once: the walks ask for it per field of every object they see
 * (150 000 times for a map of 150 000 labels), and schemas never change once built.
 */
const nodes = new WeakMap<Schema, SchemaNode>();

const OPEN_LEAF: SchemaNode = { kind: 'leaf', schema: undefined, open: true };

/**
 * A struct is closed when it declares its fields: a schema with an empty shape (`looseSchema`)
 * stands for a part svc does not model, where any field is accepted.
 */
export function schemaNode(schema: Schema | undefined): SchemaNode {
  if (!schema) return OPEN_LEAF;
  let node = nodes.get(schema);
  if (!node) {
    node = readNode(schema);
    nodes.set(schema, node);
  }
  return node;
}

function readNode(schema: Schema): SchemaNode {
  const inner = unwrapSchema(schema);
  const def = defOf(inner);
  switch (def.type) {
    case 'object': {
      const fields = def.shape ?? {};
      const typedCatchall = def.catchall !== undefined && defOf(def.catchall).type !== 'unknown';
      if (typedCatchall) return { kind: 'map', schema: inner, values: def.catchall };
      return { kind: 'struct', schema: inner, fields, closed: structOpenness.get(inner) ?? Object.keys(fields).length > 0 };
    }
    case 'record':
      return { kind: 'map', schema: inner, values: def.valueType };
    case 'array':
      return { kind: 'list', schema: inner, items: def.element };
    case 'unknown':
    case 'any':
      return OPEN_LEAF;
    default:
      return { kind: 'leaf', schema: inner, open: false };
  }
}

/** The schema of `key` inside a struct or map schema; undefined when svc does not model it. */
export function childSchema(schema: Schema | undefined, key: string): Schema | undefined {
  const node = schemaNode(schema);
  // Own fields only: `constructor` is no field of a struct (its shape is a plain object).
  if (node.kind === 'struct') return Object.hasOwn(node.fields, key) ? node.fields[key] : undefined;
  if (node.kind === 'map') return node.values;
  return undefined;
}

/** The schema of a list's items. */
export function itemSchema(schema: Schema | undefined): Schema | undefined {
  const node = schemaNode(schema);
  return node.kind === 'list' ? node.items : undefined;
}
