import { z } from 'zod';
import { badRequest } from './status-builders.js';

/** An OpenAPI v3 schema node as a CRD carries it (JSONSchemaProps). */
export type OpenApiSchema = { [keyword: string]: unknown };

/**
 * The structural OpenAPI v3 schema of a zod schema, as an apiextensions.k8s.io/v1 CRD wants it.
 * zod writes JSON Schema 2020-12 (`z.toJSONSchema`, the input side: a field with a default is not
 * required); Kubernetes takes a narrower dialect, so each node is rewritten:
 *
 * - `type: [T, "null"]` becomes `type: T` with `nullable: true`;
 * - `anyOf` of integer and string (`z.union([z.int(), z.string()])`) becomes
 *   `x-kubernetes-int-or-string`; `anyOf` of constants of one type becomes one `enum`;
 * - an object open to unknown fields (`z.looseObject`) keeps them with
 *   `x-kubernetes-preserve-unknown-fields`, a schema-less node (`z.unknown()`) too; a closed one
 *   drops `additionalProperties: false`, which Kubernetes refuses (it prunes unknown fields anyway);
 * - a record with enum keys becomes an object with those properties;
 * - `const` becomes a one-value `enum`; a numeric `exclusiveMinimum` becomes `minimum` with
 *   `exclusiveMinimum: true` (OpenAPI 3.0's form);
 * - the integer bounds zod adds for safe integers are dropped, int32's become `format: int32`;
 *   a known `format` drops the regex zod wrote for it (the server checks the format itself).
 *
 * What Kubernetes cannot express (other unions, intersections, tuples, recursion through `$ref`,
 * dates and other unrepresentable types) is refused with a 400 naming the field.
 */
export function zodToOpenApi(schema: z.ZodType, path = ''): OpenApiSchema {
  let json: Record<string, unknown>;
  try {
    json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'throw', cycles: 'throw', reused: 'inline' }) as Record<string, unknown>;
  } catch (error) {
    // zod's first line says what; the rest is advice about its own options, not the caller's.
    const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0];
    throw badRequest(`${path || 'schema'}: not representable in OpenAPI: ${reason}`);
  }
  return convertNode(json, path || '<root>');
}

/** Formats Kubernetes checks itself: zod's regex for them is redundant, and not always RE2. */
const CHECKED_FORMATS = new Set(['date-time', 'date', 'email', 'uuid', 'ipv4', 'ipv6', 'cidr', 'hostname', 'uri', 'byte', 'duration']);

/** Keywords copied as they are (their values are plain data). */
const PLAIN_KEYWORDS = new Set([
  'format',
  'title',
  'description',
  'default',
  'maximum',
  'minimum',
  'multipleOf',
  'maxLength',
  'minLength',
  'pattern',
  'maxItems',
  'minItems',
  'uniqueItems',
  'maxProperties',
  'minProperties',
  'enum',
]);

/** JSON Schema keywords zod writes that carry no constraint Kubernetes knows: dropped. */
const DROPPED_KEYWORDS = new Set(['$schema', '$id', 'propertyNames', 'examples', 'readOnly', 'writeOnly', 'deprecated', 'contentEncoding', 'contentMediaType']);

const SAFE_MIN = Number.MIN_SAFE_INTEGER;
const SAFE_MAX = Number.MAX_SAFE_INTEGER;
const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function refuse(path: string, what: string): never {
  throw badRequest(`${path}: ${what} cannot be expressed in a structural schema`);
}

function convertNode(node: Record<string, unknown>, path: string): OpenApiSchema {
  const out: OpenApiSchema = {};
  const keys = Object.keys(node).filter((key) => !DROPPED_KEYWORDS.has(key));
  // A node with no keyword at all accepts anything: z.unknown(), z.any(), a loose object's extra field.
  if (keys.length === 0) return { 'x-kubernetes-preserve-unknown-fields': true };

  for (const key of keys) {
    const value = node[key];
    switch (key) {
      case 'type':
        setType(out, value, path);
        break;
      case 'const':
        out['enum'] = [value];
        break;
      case 'exclusiveMinimum':
      case 'exclusiveMaximum': {
        if (typeof value !== 'number') break;
        const bound = key === 'exclusiveMinimum' ? 'minimum' : 'maximum';
        out[bound] = value;
        out[key] = true;
        break;
      }
      case 'properties':
        if (!isRecord(value)) refuse(path, 'properties that are not a map');
        if (Object.keys(value).length === 0) break; // `properties: {}` says nothing
        out['properties'] = Object.fromEntries(Object.entries(value).map(([name, child]) => [name, convertChild(child, `${path}.${name}`)]));
        break;
      case 'required':
        if (Array.isArray(value) && value.length > 0) out['required'] = value;
        break;
      case 'additionalProperties':
        break; // after the loop: it depends on `properties`
      case 'items':
        out['items'] = convertChild(value, `${path}[]`);
        break;
      case 'anyOf':
      case 'oneOf':
        Object.assign(out, convertUnion(value, path));
        break;
      default:
        if (PLAIN_KEYWORDS.has(key)) out[key] = value;
        else refuse(path, `the JSON Schema keyword ${JSON.stringify(key)}`);
    }
  }

  const extra = node['additionalProperties'];
  const keyNames = isRecord(node['propertyNames']) ? node['propertyNames']['enum'] : undefined;
  if (Array.isArray(keyNames) && isRecord(extra) && out['properties'] === undefined) {
    // A record with enum keys (`z.record(z.enum([...]), v)`) is an object with those properties.
    const value = convertChild(extra, `${path}.*`);
    out['properties'] = Object.fromEntries(keyNames.map((key) => [String(key), value]));
  } else if (extra !== undefined && extra !== false) {
    const open = extra === true || (isRecord(extra) && Object.keys(extra).length === 0);
    if (open) out['x-kubernetes-preserve-unknown-fields'] = true;
    else if (out['properties'] !== undefined) refuse(path, 'an object with both fixed properties and a schema for the others');
    else out['additionalProperties'] = convertChild(extra, `${path}.*`);
  }
  tidyNumbers(out);
  if (typeof out['format'] === 'string' && CHECKED_FORMATS.has(out['format'])) delete out['pattern'];
  if (out['type'] === undefined && out['x-kubernetes-int-or-string'] === undefined && out['x-kubernetes-preserve-unknown-fields'] === undefined) {
    refuse(path, 'a value of no single type');
  }
  return out;
}

function convertChild(child: unknown, path: string): OpenApiSchema {
  if (child === true) return { 'x-kubernetes-preserve-unknown-fields': true };
  if (!isRecord(child)) refuse(path, 'a schema that is not an object');
  return convertNode(child, path);
}

function setType(out: OpenApiSchema, value: unknown, path: string): void {
  const types = Array.isArray(value) ? value.filter((type) => type !== 'null') : [value];
  if (Array.isArray(value) && types.length < value.length) out['nullable'] = true;
  if (types.length !== 1 || typeof types[0] !== 'string') refuse(path, `a value of several types (${JSON.stringify(value)})`);
  out['type'] = types[0];
}

/** The unions Kubernetes has a form for: nullable, int-or-string, and constants of one type. */
function convertUnion(branches: unknown, path: string): OpenApiSchema {
  if (!Array.isArray(branches) || !branches.every(isRecord)) refuse(path, 'a union');
  const nonNull = branches.filter((branch) => branch['type'] !== 'null');
  const nullable = nonNull.length < branches.length ? { nullable: true } : {};
  if (nonNull.length === 1) return { ...convertNode(nonNull[0]!, path), ...nullable };
  const types = new Set(nonNull.map((branch) => branch['type']));
  if (types.size === 2 && types.has('integer') && types.has('string')) return { 'x-kubernetes-int-or-string': true, ...nullable };
  const constants = nonNull.flatMap((branch) => ('const' in branch ? [branch['const']] : Array.isArray(branch['enum']) ? branch['enum'] : [undefined]));
  if (types.size === 1 && !constants.includes(undefined)) {
    return { type: [...types][0], enum: constants, ...nullable };
  }
  refuse(path, 'a union other than nullable, int-or-string or constants of one type');
}

function tidyNumbers(out: OpenApiSchema): void {
  if (out['type'] !== 'integer') return;
  if (out['minimum'] === SAFE_MIN) delete out['minimum'];
  if (out['maximum'] === SAFE_MAX) delete out['maximum'];
  if (out['minimum'] === INT32_MIN && out['maximum'] === INT32_MAX && out['format'] === undefined) {
    delete out['minimum'];
    delete out['maximum'];
    out['format'] = 'int32';
  }
}
