import type { z } from 'zod';
import { schemaNode, type Schema } from '../schema-walk.js';
import type { FieldCause } from '../status-error.js';
import { fieldInvalid, fieldNotSupported, fieldRequired, fieldTooLong, fieldTooMany, fieldTypeInvalid } from './causes.js';

/**
 * Turns zod issues into Kubernetes field causes. The field path follows Kubernetes notation, which
 * needs the schema: a map key reads `labels[app]`, a struct field `.name`, an index `[0]`.
 */

type Issue = z.core.$ZodIssue;

/** The Kubernetes path of `path` in a document of `root`: struct fields dotted, map keys and indexes bracketed. */
export function fieldPath(root: Schema, path: readonly PropertyKey[]): string {
  let out = '';
  let schema: Schema | undefined = root;
  for (const segment of path) {
    const node = schemaNode(schema);
    if (typeof segment === 'number') {
      out += `[${segment}]`;
      schema = node.kind === 'list' ? node.items : undefined;
      continue;
    }
    const key = String(segment);
    if (node.kind === 'map') {
      out += `[${key}]`;
      schema = node.values;
    } else {
      out += out === '' ? key : `.${key}`;
      schema = node.kind === 'struct' && Object.hasOwn(node.fields, key) ? node.fields[key] : undefined;
    }
  }
  return out;
}

function valueAt(data: unknown, path: readonly PropertyKey[]): unknown {
  let current = data;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[segment];
  }
  return current;
}

const jsonType = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

const EXPECTED: Record<string, string> = { int: 'integer', record: 'object', object: 'object' };

function unionTypes(branches: readonly (readonly Issue[])[]): string[] {
  const types = branches.flatMap((issues) =>
    issues.flatMap((issue) => (issue.code === 'invalid_type' && issue.path.length === 0 ? [EXPECTED[issue.expected] ?? issue.expected] : [])),
  );
  return [...new Set(types)];
}

/** The causes for the issues of one parse of `data` against `root`. */
export function causesFromIssues(root: Schema, data: unknown, issues: readonly Issue[], base: readonly PropertyKey[] = []): FieldCause[] {
  return issues.flatMap((issue) => causeFromIssue(root, data, issue, [...base, ...issue.path]));
}

function causeFromIssue(root: Schema, data: unknown, issue: Issue, path: readonly PropertyKey[]): FieldCause[] {
  const field = fieldPath(root, path);
  const value = valueAt(data, path);
  const missing = value === undefined && issue.code !== 'custom';
  if (missing) return [fieldRequired(field)];
  switch (issue.code) {
    case 'invalid_type':
      return [fieldTypeInvalid(field, jsonType(value), `must be of type ${EXPECTED[issue.expected] ?? issue.expected}`)];
    case 'too_small':
      // An empty string or list where one item is the minimum is how Kubernetes spells "required".
      if ((issue.origin === 'string' || issue.origin === 'array') && Number(issue.minimum) === 1) return [fieldRequired(field)];
      if (issue.origin === 'array') return [fieldInvalid(field, value, `must have at least ${issue.minimum} items`)];
      return [fieldInvalid(field, value, `must be greater than or equal to ${issue.minimum}`)];
    case 'too_big':
      if (issue.origin === 'string') return [fieldTooLong(field, Number(issue.maximum))];
      if (issue.origin === 'array') return [fieldTooMany(field, Array.isArray(value) ? value.length : 0, Number(issue.maximum))];
      return [fieldInvalid(field, value, `must be less than or equal to ${issue.maximum}`)];
    case 'invalid_value':
      return [fieldNotSupported(field, value, issue.values)];
    case 'invalid_union':
      // Reached only when no branch accepted the type: zod reports a half-matching branch itself.
      return [fieldTypeInvalid(field, jsonType(value), `must be of type ${unionTypes(issue.errors).join(' or ')}`)];
    case 'invalid_key':
      // zod puts the offending key at the end of the path; its problem is the key's own issue.
      return issue.issues.map((inner) => fieldInvalid(field, path[path.length - 1], inner.message));
    case 'invalid_element':
      return issue.issues.map((inner) => fieldInvalid(field, value, inner.message));
    default:
      return [fieldInvalid(field, value, issue.message)];
  }
}
