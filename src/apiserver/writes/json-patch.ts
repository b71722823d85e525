import { badRequest, hasField, invalid, requestEntityTooLarge, setField, type GroupKind } from '../../api/index.js';
import { jsonSizeUpTo, MAX_OBJECT_BYTES, objectTooLarge } from '../../encoding/index.js';
import { isJsonObject, jsonEqual, type JsonObject } from './json-value.js';

/** One RFC 6902 operation, as checked by `jsonPatchOperations`. */
export type Operation =
  | { readonly op: 'add' | 'replace' | 'test'; readonly path: string; readonly value: unknown }
  | { readonly op: 'remove'; readonly path: string }
  | { readonly op: 'move' | 'copy'; readonly from: string; readonly path: string };

const OPS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

/** Operations one JSON patch may hold, as in Kubernetes. */
export const MAX_JSON_PATCH_OPERATIONS = 10_000;

/** Checks that a decoded body is an RFC 6902 operation list (else 400) and returns it typed. */
export function jsonPatchOperations(body: unknown): Operation[] {
  if (!Array.isArray(body)) throw badRequest('a JSON patch must be a JSON array of operations');
  if (body.length > MAX_JSON_PATCH_OPERATIONS) {
    throw requestEntityTooLarge(`the allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${body.length}`);
  }
  body.forEach((op: unknown, i) => {
    if (!isJsonObject(op)) throw badRequest(`JSON patch operation ${i} is not an object`);
    const name = hasField(op, 'op') ? op['op'] : undefined;
    if (typeof name !== 'string' || !OPS.has(name)) {
      throw badRequest(`JSON patch operation ${i} has an unsupported op ${JSON.stringify(name)}`);
    }
    if (!hasField(op, 'path') || typeof op['path'] !== 'string') throw badRequest(`JSON patch operation ${i} (${name}) has no path`);
    if ((name === 'move' || name === 'copy') && (!hasField(op, 'from') || typeof op['from'] !== 'string')) {
      throw badRequest(`JSON patch operation ${i} (${name}) has no from`);
    }
    if ((name === 'add' || name === 'replace' || name === 'test') && !hasField(op, 'value')) {
      throw badRequest(`JSON patch operation ${i} (${name}) has no value`);
    }
  });
  return body as Operation[];
}

/** Why an operation does not apply; becomes the 422's cause. */
class NotApplicable extends Error {}

/**
 * Applies an RFC 6902 patch to a copy of `document`. A path that does not exist, a `test` that
 * does not hold, or a `move` into its own child fails the whole patch with 422 Invalid naming the
 * operation; nothing of it is applied. Keys are data: `/data/__proto__` is the field of that name
 * and `/__proto__/x` a path that does not exist; no prototype is read or written.
 */
export function applyJsonPatch(document: unknown, operations: readonly Operation[], subject: { kind: GroupKind; name: string }): unknown {
  // JSON.parse makes every key, `__proto__` too, an own field of a fresh object.
  let doc: unknown = document === undefined ? undefined : JSON.parse(JSON.stringify(document));
  // What `copy` operations copy is counted as they go: each can double the document, and thirty
  // would make it a thousand million times its size.
  let copied = 0;
  operations.forEach((op, index) => {
    try {
      if (op.op === 'copy') {
        copied += jsonSizeUpTo(get(doc, parsePointer(op.from), op.from), MAX_OBJECT_BYTES);
        if (copied > MAX_OBJECT_BYTES) throw objectTooLarge(`more than ${MAX_OBJECT_BYTES} bytes (its copy operations alone copy that much)`);
      }
      doc = applyOperation(doc, op);
    } catch (error) {
      if (!(error instanceof NotApplicable)) throw error;
      const text = op.op === 'test' ? `the test operation failed: ${error.message}` : `the ${op.op} operation cannot be applied: ${error.message}`;
      throw invalid(subject.kind, subject.name, [{ reason: 'FieldValueInvalid', field: op.path, message: `JSON patch operation ${index}: ${text}` }]);
    }
  });
  return doc;
}

function applyOperation(doc: unknown, op: Operation): unknown {
  switch (op.op) {
    case 'add':
      return add(doc, parsePointer(op.path), copyOf(op.value));
    case 'remove':
      return remove(doc, parsePointer(op.path)).doc;
    case 'replace': {
      const tokens = parsePointer(op.path);
      get(doc, tokens, op.path);
      return add(remove(doc, tokens).doc, tokens, copyOf(op.value));
    }
    case 'move': {
      const from = parsePointer(op.from);
      const to = parsePointer(op.path);
      // RFC 6902 §4.4: a location cannot be moved into one of its children.
      if (to.length > from.length && from.every((token, i) => token === to[i])) {
        throw new NotApplicable(`${op.from} cannot be moved into its own child ${op.path}`);
      }
      const removed = remove(doc, from);
      return add(removed.doc, to, removed.value);
    }
    case 'copy':
      return add(doc, parsePointer(op.path), copyOf(get(doc, parsePointer(op.from), op.from)));
    case 'test': {
      const value = get(doc, parsePointer(op.path), op.path);
      if (!jsonEqual(value, op.value)) throw new NotApplicable(`the value at ${op.path} is not ${JSON.stringify(op.value)}`);
      return doc;
    }
  }
}

const copyOf = (value: unknown): unknown => (value !== null && typeof value === 'object' ? JSON.parse(JSON.stringify(value)) : value);

/** RFC 6901: `''` is the whole document, every other pointer starts with `/`; `~1` is `/`, `~0` is `~`. */
function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw badRequest(`JSON patch path ${JSON.stringify(pointer)} is not a JSON pointer: it must start with /`);
  return pointer
    .slice(1)
    .split('/')
    .map((token) => {
      if (/~[^01]|~$/.test(token)) throw badRequest(`JSON patch path ${JSON.stringify(pointer)} has an invalid escape (only ~0 and ~1)`);
      return token.replace(/~1/g, '/').replace(/~0/g, '~');
    });
}

const describe = (tokens: readonly string[]) => (tokens.length === 0 ? 'the document' : `/${tokens.map((t) => t.replace(/~/g, '~0').replace(/\//g, '~1')).join('/')}`);

/** An array index as RFC 6901 spells it: digits, no leading zero. */
function indexOf(token: string, length: number, tokens: readonly string[]): number {
  if (!/^(0|[1-9]\d*)$/.test(token) || Number(token) >= length) throw new NotApplicable(`${describe(tokens)} does not exist`);
  return Number(token);
}

/** The container a path's last token is in. */
function parentOf(doc: unknown, tokens: readonly string[]): unknown {
  let at = doc;
  for (let i = 0; i < tokens.length - 1; i++) {
    const token = tokens[i]!;
    const path = tokens.slice(0, i + 1);
    if (Array.isArray(at)) at = at[indexOf(token, at.length, path)];
    else if (isJsonObject(at) && hasField(at, token)) at = at[token];
    else throw new NotApplicable(`${describe(path)} does not exist`);
  }
  return at;
}

function get(doc: unknown, tokens: readonly string[], pointer: string): unknown {
  if (tokens.length === 0) return doc;
  const parent = parentOf(doc, tokens);
  const last = tokens[tokens.length - 1]!;
  if (Array.isArray(parent)) return parent[indexOf(last, parent.length, tokens)];
  if (isJsonObject(parent) && hasField(parent, last)) return parent[last];
  throw new NotApplicable(`${pointer} does not exist`);
}

function add(doc: unknown, tokens: readonly string[], value: unknown): unknown {
  if (tokens.length === 0) return value;
  const parent = parentOf(doc, tokens);
  const last = tokens[tokens.length - 1]!;
  if (Array.isArray(parent)) {
    if (last === '-') parent.push(value);
    else parent.splice(indexOf(last, parent.length + 1, tokens), 0, value);
  } else if (isJsonObject(parent)) {
    setField(parent as JsonObject, last, value);
  } else {
    throw new NotApplicable(`${describe(tokens.slice(0, -1))} is neither an object nor a list`);
  }
  return doc;
}

function remove(doc: unknown, tokens: readonly string[]): { doc: unknown; value: unknown } {
  if (tokens.length === 0) return { doc: undefined, value: doc };
  const parent = parentOf(doc, tokens);
  const last = tokens[tokens.length - 1]!;
  if (Array.isArray(parent)) {
    const [value] = parent.splice(indexOf(last, parent.length, tokens), 1);
    return { doc, value };
  }
  if (isJsonObject(parent) && hasField(parent, last)) {
    const value = parent[last];
    delete (parent as JsonObject)[last];
    return { doc, value };
  }
  throw new NotApplicable(`${describe(tokens)} does not exist`);
}
