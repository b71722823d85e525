import { badRequest, schemaNode, setField, type FieldCause, type ResourceType, type Schema } from '../../api/index.js';
import type { HandlerContext } from '../request/index.js';
import { queryParam } from '../request/index.js';
import { isJsonObject } from './json-value.js';
import { addWarnings } from './warnings.js';

/** `fieldValidation`: what a write does about unknown and duplicate fields (default Warn). */
export type FieldValidation = 'Ignore' | 'Warn' | 'Strict';

export function fieldValidationOf(ctx: HandlerContext): FieldValidation {
  const value = queryParam(ctx, 'fieldValidation');
  if (value === undefined || value === '') return 'Warn';
  if (value === 'Ignore' || value === 'Warn' || value === 'Strict') return value;
  throw badRequest(`fieldValidation must be one of Ignore, Warn, Strict, got ${JSON.stringify(value)}`);
}

/**
 * `value` without the fields its schema does not declare, and their paths. A struct svc does not
 * model (an empty shape) and the values of free maps accept anything.
 */
export function withoutUnknownFields(schema: Schema | undefined, value: unknown): { value: unknown; unknown: string[] } {
  const unknown: string[] = [];
  const pruned = prune(schema, value, new FieldTrail(), unknown);
  return { value: pruned, unknown };
}

/**
 * Where the walk is: the path from the root as segments, made text only for an unknown field's
 * report. Nearly every write has none, and a path string made for every field it walks (with an
 * `Object.entries` pair) was most of what the walk allocated: a few KiB per Lease renewal.
 */
class FieldTrail {
  readonly #names: (string | number)[] = [];
  /** Per segment: `[name]` (a map key, a list index) rather than `.name` (a struct field). */
  readonly #bracketed: boolean[] = [];

  push(name: string | number, bracketed: boolean): void {
    this.#names.push(name);
    this.#bracketed.push(bracketed);
  }

  pop(): void {
    this.#names.pop();
    this.#bracketed.pop();
  }

  /** `spec.containers[0].name`, `metadata.labels[a]`: a struct field after an empty path has no dot. */
  path(): string {
    let text = '';
    for (let i = 0; i < this.#names.length; i++) {
      const name = this.#names[i]!;
      text = this.#bracketed[i] ? `${text}[${name}]` : text === '' ? String(name) : `${text}.${name}`;
    }
    return text;
  }
}

function prune(schema: Schema | undefined, value: unknown, trail: FieldTrail, unknown: string[]): unknown {
  const node = schemaNode(schema);
  if (Array.isArray(value)) {
    if (node.kind !== 'list') return value;
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      trail.push(i, true);
      const next = prune(node.items, item, trail, unknown);
      trail.pop();
      if (next !== item) (out ??= value.slice())[i] = next;
    }
    return out ?? value;
  }
  if (!isJsonObject(value)) return value;
  const keys = Object.keys(value);
  if (node.kind === 'map') {
    let out: Record<string, unknown> | undefined;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const field = value[key];
      trail.push(key, true);
      const next = prune(node.values, field, trail, unknown);
      trail.pop();
      if (next !== field) setField((out ??= { ...value }), key, next);
    }
    return out ?? value;
  }
  if (node.kind !== 'struct') return value;
  let out: Record<string, unknown> | undefined;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const field = value[key];
    // Own fields only: `constructor` is no field of a struct (its shape is a plain object).
    const fieldSchema = Object.hasOwn(node.fields, key) ? node.fields[key] : undefined;
    trail.push(key, false);
    if (!fieldSchema && node.closed) {
      unknown.push(trail.path());
      trail.pop();
      out ??= { ...value };
      delete out[key];
      continue;
    }
    const next = prune(fieldSchema, field, trail, unknown);
    trail.pop();
    if (next !== field) setField((out ??= { ...value }), key, next);
  }
  return out ?? value;
}

/** What a write learnt about a body's fields before its schema check. */
export interface FieldProblems {
  readonly unknown: readonly string[];
  readonly duplicates: readonly string[];
}

export const NO_FIELD_PROBLEMS: FieldProblems = { unknown: [], duplicates: [] };

const problemTexts = (problems: FieldProblems) => [
  ...problems.duplicates.map((path) => `duplicate field ${JSON.stringify(path)}`),
  ...problems.unknown.map((path) => `unknown field ${JSON.stringify(path)}`),
];

export const hasFieldProblems = (problems: FieldProblems) => problems.unknown.length + problems.duplicates.length > 0;

/**
 * A body with unknown or duplicate fields that is also invalid gets 400 with only the first fatal
 * error, whatever the level (the spec's rule); `undefined` when the causes stand as a 422.
 */
export function firstFatalError(problems: FieldProblems, causes: readonly FieldCause[]) {
  if (!hasFieldProblems(problems) || causes.length === 0) return undefined;
  const first = causes[0]!;
  return badRequest(first.field ? `${first.field}: ${first.message}` : first.message);
}

/** Strict: 400 naming every problem; Warn: one Warning per problem; Ignore: nothing. */
export function reportFieldProblems(ctx: HandlerContext, level: FieldValidation, problems: FieldProblems): void {
  if (!hasFieldProblems(problems) || level === 'Ignore') return;
  const texts = problemTexts(problems);
  if (level === 'Warn') return addWarnings(ctx.reply, texts);
  throw strictDecodingError(ctx.type, texts);
}

function strictDecodingError(type: ResourceType, texts: readonly string[]) {
  const version = type.group ? `${type.group}/${type.version}` : type.version;
  return badRequest(
    `${type.kind} in version ${JSON.stringify(version)} cannot be handled as a ${type.kind}: strict decoding error: ${texts.join(', ')}`,
  );
}
