import { z } from 'zod';
import { canonicalJson, markStruct, objectMetaSchema, setField, type KubeObject } from '../../api/index.js';
import { matchesFormat } from './formats.js';
import { flag, isSchemaObject, numberOf, propertiesOf, stringOf, type JsonSchema } from './json-schema.js';

/**
 * Turns a custom resource's structural schema (already checked by `structural-schema.ts`) into
 * the zod schema its ResourceType validates with. The generic write path then does the rest:
 * `withoutUnknownFields` prunes what the schema does not declare (the walk reads the zod shape),
 * zod's issues become Kubernetes causes, and `prefault` fills in `default`s (a default is itself
 * parsed, so the defaults inside it apply too). Objects are open or closed as the schema says:
 * `x-kubernetes-preserve-unknown-fields` or `additionalProperties: true` keep unknown fields.
 */

type Zod = z.ZodType;

/** How a node is built: as a value's type (pruning, defaults) or only to check a value (allOf...). */
interface Mode {
  readonly validationOnly: boolean;
}

const TYPE_MODE: Mode = { validationOnly: false };
const VALIDATION_MODE: Mode = { validationOnly: true };

/** The schema of a custom resource object: its root node with apiVersion, kind and metadata. */
export function customResourceZod(root: JsonSchema | undefined): z.ZodType<KubeObject> {
  const node = root ?? { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
  const own = Object.fromEntries(
    propertiesOf(node)
      .filter(([key]) => key !== 'apiVersion' && key !== 'kind' && key !== 'metadata')
      .map(([key, child]) => [key, property(child, isRequired(node, key), TYPE_MODE)]),
  );
  const shape = { apiVersion: z.string().optional(), kind: z.string().optional(), metadata: objectMetaSchema.default({}), ...own };
  const object = markStruct(z.looseObject(shape), { closed: !keepsUnknown(node) });
  return withChecks(object, node, TYPE_MODE) as unknown as z.ZodType<KubeObject>;
}

/** The zod schema of one node (exported for the check that each `default` is valid). */
export function nodeZod(node: JsonSchema): Zod {
  return build(node, TYPE_MODE);
}

const isRequired = (node: JsonSchema, key: string) => Array.isArray(node['required']) && node['required'].includes(key);

const keepsUnknown = (node: JsonSchema) => flag(node, 'x-kubernetes-preserve-unknown-fields') || node['additionalProperties'] === true;

function property(node: JsonSchema, required: boolean, mode: Mode): Zod {
  const schema = build(node, mode);
  if (!mode.validationOnly && node['default'] !== undefined) return schema.prefault(node['default']);
  return required ? schema : schema.optional();
}

function build(node: JsonSchema, mode: Mode): Zod {
  let schema = base(node, mode);
  if (flag(node, 'nullable')) schema = schema.nullable();
  return withChecks(schema, node, mode);
}

function base(node: JsonSchema, mode: Mode): Zod {
  if (flag(node, 'x-kubernetes-int-or-string')) return z.union([z.int(), z.string()]);
  switch (stringOf(node, 'type')) {
    case 'string': {
      // As zod checks, so that the causes are Kubernetes' TooLong and TooMany.
      const max = numberOf(node, 'maxLength');
      return max === undefined ? z.string() : z.string().max(max);
    }
    case 'integer':
      return z.int();
    case 'number':
      return z.number();
    case 'boolean':
      return z.boolean();
    case 'array': {
      const items = isSchemaObject(node['items']) ? build(node['items'], mode) : z.unknown();
      const max = numberOf(node, 'maxItems');
      return max === undefined ? z.array(items) : z.array(items).max(max);
    }
    case 'object':
      return objectBase(node, mode);
    default:
      // No type: x-kubernetes-preserve-unknown-fields alone, or a validation-only node.
      return propertiesOf(node).length > 0 ? objectBase(node, mode) : z.unknown();
  }
}

function objectBase(node: JsonSchema, mode: Mode): Zod {
  const additional = node['additionalProperties'];
  if (isSchemaObject(additional)) return z.record(z.string(), build(additional, mode));
  const shape: Record<string, Zod> = {};
  if (flag(node, 'x-kubernetes-embedded-resource')) {
    shape['apiVersion'] = z.string().min(1);
    shape['kind'] = z.string().min(1);
    shape['metadata'] = objectMetaSchema.optional();
  }
  // setField: a property named `__proto__` is a field of the shape, not its prototype.
  for (const [key, child] of propertiesOf(node)) setField(shape, key, property(child, isRequired(node, key), mode));
  const object = z.looseObject(shape);
  return mode.validationOnly ? object : markStruct(object, { closed: !keepsUnknown(node) });
}

type Check = (value: unknown) => string | undefined;

/** The value checks beyond the type: bounds, pattern, format, enum, uniqueness, the combinators. */
function withChecks(schema: Zod, node: JsonSchema, mode: Mode): Zod {
  const checks = checksOf(node);
  const combinators = combinatorChecks(node);
  const values = Array.isArray(node['enum']) ? (node['enum'] as unknown[]) : undefined;
  if (checks.length === 0 && combinators.length === 0 && !values) return schema;
  void mode;
  const allowed = values && new Set(values.map((v) => JSON.stringify(v)));
  return schema.superRefine((value, ctx) => {
    if (value === null || value === undefined) return;
    if (values && !allowed!.has(JSON.stringify(value))) {
      ctx.addIssue({ code: 'invalid_value', values: values as z.core.util.Primitive[], input: value, message: 'unsupported value' });
      return;
    }
    for (const check of [...checks, ...combinators]) {
      const message = check(value);
      if (message) ctx.addIssue({ code: 'custom', input: value, message });
    }
  });
}

function checksOf(node: JsonSchema): Check[] {
  const checks: Check[] = [];
  const minimum = numberOf(node, 'minimum');
  const maximum = numberOf(node, 'maximum');
  const exclusiveMin = flag(node, 'exclusiveMinimum');
  const exclusiveMax = flag(node, 'exclusiveMaximum');
  if (minimum !== undefined) {
    checks.push((v) =>
      typeof v !== 'number' ? undefined : exclusiveMin ? (v <= minimum ? `should be greater than ${minimum}` : undefined) : v < minimum ? `should be greater than or equal to ${minimum}` : undefined,
    );
  }
  if (maximum !== undefined) {
    checks.push((v) =>
      typeof v !== 'number' ? undefined : exclusiveMax ? (v >= maximum ? `should be less than ${maximum}` : undefined) : v > maximum ? `should be less than or equal to ${maximum}` : undefined,
    );
  }
  const multipleOf = numberOf(node, 'multipleOf');
  if (multipleOf !== undefined && multipleOf > 0) {
    checks.push((v) => (typeof v === 'number' && !Number.isInteger(v / multipleOf) ? `should be a multiple of ${multipleOf}` : undefined));
  }
  const minLength = numberOf(node, 'minLength');
  if (minLength !== undefined) checks.push((v) => (typeof v === 'string' && [...v].length < minLength ? `should be at least ${minLength} chars long` : undefined));
  const pattern = stringOf(node, 'pattern');
  if (pattern !== undefined) {
    const re = new RegExp(pattern, 'u');
    checks.push((v) => (typeof v === 'string' && !re.test(v) ? `should match '${pattern}'` : undefined));
  }
  const format = stringOf(node, 'format');
  if (format !== undefined) checks.push((v) => (matchesFormat(format, v) ? undefined : `must be of format ${format}`));
  const minItems = numberOf(node, 'minItems');
  if (minItems !== undefined) checks.push((v) => (Array.isArray(v) && v.length < minItems ? `should have at least ${minItems} items` : undefined));
  if (flag(node, 'uniqueItems')) {
    checks.push((v) => {
      if (!Array.isArray(v)) return undefined;
      const seen = new Set(v.map((item) => canonicalJson(item)));
      return seen.size !== v.length ? 'shall not have duplicate items' : undefined;
    });
  }
  const minProperties = numberOf(node, 'minProperties');
  if (minProperties !== undefined) checks.push((v) => (isSchemaObject(v) && Object.keys(v).length < minProperties ? `should have at least ${minProperties} properties` : undefined));
  const maxProperties = numberOf(node, 'maxProperties');
  if (maxProperties !== undefined) checks.push((v) => (isSchemaObject(v) && Object.keys(v).length > maxProperties ? `should have at most ${maxProperties} properties` : undefined));
  return checks;
}

/** allOf, anyOf, oneOf and not: the value against validation-only schemas (no pruning, no defaults). */
function combinatorChecks(node: JsonSchema): Check[] {
  const list = (key: string) => (Array.isArray(node[key]) ? (node[key] as unknown[]).filter(isSchemaObject).map((n) => build(n, VALIDATION_MODE)) : []);
  const checks: Check[] = [];
  const all = list('allOf');
  if (all.length) checks.push((v) => (all.every((s) => s.safeParse(v).success) ? undefined : 'must validate all the schemas (allOf)'));
  const any = list('anyOf');
  if (any.length) checks.push((v) => (any.some((s) => s.safeParse(v).success) ? undefined : 'must validate at least one schema (anyOf)'));
  const one = list('oneOf');
  if (one.length) checks.push((v) => (one.filter((s) => s.safeParse(v).success).length === 1 ? undefined : 'must validate one and only one schema (oneOf)'));
  if (isSchemaObject(node['not'])) {
    const not = build(node['not'], VALIDATION_MODE);
    checks.push((v) => (not.safeParse(v).success ? "must not validate the schema (not)" : undefined));
  }
  return checks;
}

