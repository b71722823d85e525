import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { isStatusError, zodToOpenApi } from '../../src/api/index.js';
import { validateStructuralSchema } from '../../src/apiserver/crd/index.js';

/** Each zod schema and the structural node it must become. */
const CASES: ReadonlyArray<readonly [string, z.ZodType, Record<string, unknown>]> = [
  ['nullable, optional', z.string().nullable().optional(), { type: 'string', nullable: true }],
  ['nullable object', z.object({ a: z.string() }).nullable(), { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], nullable: true }],
  ['a default is kept, the field not required', z.object({ b: z.boolean().default(false) }), { type: 'object', properties: { b: { type: 'boolean', default: false } } }],
  ['positive integer', z.int().positive(), { type: 'integer', minimum: 0, exclusiveMinimum: true }],
  ['safe-integer bounds dropped', z.int(), { type: 'integer' }],
  ['int32', z.int32(), { type: 'integer', format: 'int32' }],
  ['lengths', z.string().length(3), { type: 'string', minLength: 3, maxLength: 3 }],
  ['description and title', z.string().describe('hello').meta({ title: 'T' }), { type: 'string', description: 'hello', title: 'T' }],
  ['a closed object drops additionalProperties: false', z.strictObject({ a: z.string() }), { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }],
  ['a loose object keeps unknown fields', z.looseObject({}), { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }],
  ['an open record keeps unknown fields', z.record(z.string(), z.unknown()), { type: 'object', 'x-kubernetes-preserve-unknown-fields': true }],
  ['a record of strings', z.record(z.string(), z.string()), { type: 'object', additionalProperties: { type: 'string' } }],
  ['a record with enum keys', z.record(z.enum(['a', 'b']), z.int()), { type: 'object', properties: { a: { type: 'integer' }, b: { type: 'integer' } }, required: ['a', 'b'] }],
  ['literals of one type', z.union([z.enum(['a']), z.literal('b')]), { type: 'string', enum: ['a', 'b'] }],
  ['a literal', z.literal(3), { type: 'number', enum: [3] }],
  ['int or string', z.union([z.int(), z.string()]).nullable(), { 'x-kubernetes-int-or-string': true, nullable: true }],
  ['anything', z.unknown(), { 'x-kubernetes-preserve-unknown-fields': true }],
  ['a checked format drops zod regex', z.iso.datetime(), { type: 'string', format: 'date-time' }],
  ['uuid', z.uuid(), { type: 'string', format: 'uuid' }],
  ['a pattern', z.string().regex(/^[a-z]+$/), { type: 'string', pattern: '^[a-z]+$' }],
  ['an intersection of objects, merged', z.intersection(z.object({ a: z.string() }), z.object({ b: z.string() })), { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, required: ['a', 'b'] }],
  ['an array', z.array(z.string()).min(1).max(3), { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 3 }],
];

describe('zodToOpenApi', () => {
  it.each(CASES)('%s', (_name, schema, expected) => {
    const node = zodToOpenApi(schema, 'x');
    expect(node).toEqual(expected);
    const root = { type: 'object', properties: { x: node } };
    expect(validateStructuralSchema(root, 'openAPIV3Schema')).toEqual([]);
  });

  const recursive: z.ZodType = z.object({ child: z.lazy(() => recursive).optional() });
  it.each([
    ['a Date', z.date(), 'x: not representable in OpenAPI: Date cannot be represented in JSON Schema'],
    ['a bigint', z.bigint(), 'x: not representable in OpenAPI: BigInt cannot be represented in JSON Schema'],
    ['a recursive schema', recursive, 'x: not representable in OpenAPI: Cycle detected'],
    ['a union of objects', z.discriminatedUnion('k', [z.object({ k: z.literal('a') }), z.object({ k: z.literal('b') })]), 'x: a union other than nullable'],
    ['a union of number and string', z.union([z.number(), z.string()]), 'x: a value of several types'],
    ['a tuple', z.tuple([z.string()]), 'x: the JSON Schema keyword "prefixItems"'],
    ['fixed properties and a catchall', z.object({ a: z.string() }).catchall(z.string()), 'x: an object with both fixed properties and a schema for the others'],
  ] as const)('refuses %s with a 400', (_name, schema, message) => {
    let error: unknown;
    try {
      zodToOpenApi(schema as z.ZodType, 'x');
    } catch (caught) {
      error = caught;
    }
    expect(isStatusError(error, 'BadRequest')).toBe(true);
    expect((error as Error).message).toContain(message);
  });
});
