import { childSchema, hasField, itemSchema, listTypeOf, ownField, schemaNode, setField, type Schema } from '../../api/index.js';
import { isJsonObject, jsonEqual, type JsonObject } from './json-value.js';

/**
 * The set of fields an object (or an applied configuration) sets, as server-side apply tracks
 * them. A path is a list of elements in Kubernetes' FieldsV1 spelling: `f:<field>`,
 * `k:<json of the key fields>` (an item of an associative list), `v:<json value>` (an item of a
 * set). A set holds leaves (scalars, atomic lists, empty maps) and each associative-list item
 * itself. Paths are kept joined by newlines (JSON never holds a raw one), so a set is a Set<string>.
 */
export type FieldSet = Set<string>;

const SEP = '\n';

/** Fields the server owns: never in a field set. */
const SERVER_META = new Set([
  'name',
  'namespace',
  'generateName',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'managedFields',
  'selfLink',
]);

export function fieldSetOf(object: JsonObject, schema: Schema | undefined): FieldSet {
  const set: FieldSet = new Set();
  eachTopField(object, schema, (value, parent, field, path) => walk(value, parent, field, childSchema(parent, field), path, set));
  return set;
}

/** The walk's starting points: each top-level field, and each field of metadata the client may own. */
function eachTopField(object: JsonObject, schema: Schema | undefined, visit: (value: unknown, parent: Schema | undefined, field: string, path: string) => void): void {
  for (const [key, value] of Object.entries(object)) {
    if (key === 'apiVersion' || key === 'kind' || value === undefined) continue;
    if (key === 'metadata' && isJsonObject(value)) {
      const metaSchema = childSchema(schema, 'metadata');
      for (const [field, v] of Object.entries(value)) {
        if (!SERVER_META.has(field) && v !== undefined) visit(v, metaSchema, field, `f:metadata${SEP}f:${field}`);
      }
      continue;
    }
    visit(value, schema, key, `f:${key}`);
  }
}

/**
 * `[fieldSetOf(before), fieldSetOf(after)]` of an object and its next version, walking what the two
 * share only once: a top-level field (or metadata field) whose value is the very same in both (a
 * status write's spec, the labels of an unrelated patch) gives both sets the same paths.
 */
export function fieldSetsOf(before: JsonObject, after: JsonObject, schema: Schema | undefined): [FieldSet, FieldSet] {
  const walked = new Map<string, { readonly value: unknown; readonly paths: FieldSet }>();
  const beforeSet: FieldSet = new Set();
  eachTopField(before, schema, (value, parent, field, path) => {
    if (value === null || typeof value !== 'object') return walk(value, parent, field, childSchema(parent, field), path, beforeSet);
    const paths: FieldSet = new Set();
    walk(value, parent, field, childSchema(parent, field), path, paths);
    for (const p of paths) beforeSet.add(p);
    walked.set(path, { value, paths });
  });
  const afterSet: FieldSet = new Set();
  eachTopField(after, schema, (value, parent, field, path) => {
    const shared = walked.get(path);
    if (shared !== undefined && shared.value === value) for (const p of shared.paths) afterSet.add(p);
    else walk(value, parent, field, childSchema(parent, field), path, afterSet);
  });
  return [beforeSet, afterSet];
}

function walk(value: unknown, parent: Schema | undefined, field: string, schema: Schema | undefined, path: string, set: FieldSet): void {
  if (Array.isArray(value)) {
    const listType = listTypeOf(parent, field, schema);
    if (listType.type === 'set') {
      for (const item of value) set.add(`${path}${SEP}v:${JSON.stringify(item)}`);
      if (value.length === 0) set.add(path);
    } else if (listType.type === 'map' && value.every(isJsonObject)) {
      const items = itemSchema(schema);
      for (const item of value as JsonObject[]) {
        const itemPath = `${path}${SEP}k:${itemKey(item, listType.keys)}`;
        set.add(itemPath);
        for (const [key, v] of Object.entries(item)) walk(v, items, key, childSchema(items, key), `${itemPath}${SEP}f:${key}`, set);
      }
      if (value.length === 0) set.add(path);
    } else {
      set.add(path);
    }
    return;
  }
  if (isJsonObject(value) && schemaNode(schema).kind !== 'leaf') {
    const entries = Object.entries(value);
    if (entries.length === 0) set.add(path);
    for (const [key, v] of entries) walk(v, schema, key, childSchema(schema, key), `${path}${SEP}f:${key}`, set);
    return;
  }
  set.add(path);
}

/** `k:` element of an item: its key fields, in the declared order, as compact JSON. */
export function itemKey(item: JsonObject, keys: readonly string[]): string {
  const out: JsonObject = {};
  for (const key of keys) if (ownField(item, key) !== undefined) out[key] = item[key];
  return JSON.stringify(out);
}

export const splitPath = (path: string): string[] => path.split(SEP);

/** A field set as FieldsV1: a trie of elements whose leaves are `{}` and whose `"."` marks a member node. */
export function toFieldsV1(set: FieldSet): JsonObject {
  const root: JsonObject = {};
  const sorted = [...set].sort();
  sorted.forEach((path, i) => {
    let node = root;
    for (const element of splitPath(path)) {
      // Own fields only: a client's managedFields may name `__proto__`, which must stay a key.
      let child = ownField(node, element) as JsonObject | undefined;
      if (child === undefined) setField(node, element, (child = {}));
      node = child;
    }
    // Sorted, a member's children follow it at once: it needs its "." when the next path is one.
    if (Object.keys(node).length > 0 || sorted[i + 1]?.startsWith(`${path}${SEP}`)) node['.'] = {};
  });
  return root;
}

/**
 * A stored managedFields entry's field set, decoded once and shared: every write to an object
 * decodes each of its managers' entries and encodes them again, and most of them (the managers
 * the write does not touch) are the same from one write to the next. An entry this server encoded
 * (`fieldsV1Of`) is known by identity, when the write starts from the version this server last
 * wrote; any other is decoded once per FieldsV1 text. The set is shared: copy it before changing
 * it. Its wire form (`fieldsV1Of`) is then encoded once too.
 */
export function sharedFieldSet(fields: unknown): FieldSet {
  if (!isJsonObject(fields)) return fromFieldsV1(fields);
  const encoded = setsOfEncoded.get(fields);
  if (encoded) return encoded;
  const text = JSON.stringify(fields);
  let set = decodedFieldsV1.get(text);
  if (!set) {
    set = fromFieldsV1(fields);
    if (decodedFieldsV1.size >= MAX_SHARED_FIELD_SETS) decodedFieldsV1.clear();
    decodedFieldsV1.set(text, set);
  }
  return set;
}
// Entries of pods of one template share their texts: a few hundred cover a cluster's kinds of
// writers; each costs a few KiB (the text, the set and its encoded form), so the bound stays small.
// (A status writer's entry names the pod's IPs: it is found by identity instead.)
const MAX_SHARED_FIELD_SETS = 512;
const decodedFieldsV1 = new Map<string, FieldSet>();
/**
 * A create's field set, or the equal one an earlier create made: one writer's objects from one
 * template (a recorder's Events, a ReplicaSet's pods) set the same fields, so their managedFields
 * entries share one set, and its wire form (`fieldsV1Of`) is encoded once rather than once an
 * object. Shared: copied before it is changed, as every set is. Sets that differ in their order
 * only are kept apart (a miss, never a wrong answer).
 */
export function sharedCreatedFieldSet(set: FieldSet): FieldSet {
  const key = JSON.stringify([...set]);
  const shared = createdFieldSets.get(key);
  if (shared) return shared;
  if (createdFieldSets.size >= MAX_SHARED_FIELD_SETS) createdFieldSets.clear();
  createdFieldSets.set(key, set);
  return set;
}
const createdFieldSets = new Map<string, FieldSet>();
/** Each set's wire form, and back: both live as long as an object holds them. */
const encodedFieldSets = new WeakMap<FieldSet, JsonObject>();
const setsOfEncoded = new WeakMap<JsonObject, FieldSet>();

/**
 * `toFieldsV1(set)`, encoded once per set and shared by every object that holds the set: a set is
 * not changed once encoded (a write copies a set before changing it), and neither is its wire form
 * (objects are not changed in place on the write path: every step copies what it changes).
 */
export function fieldsV1Of(set: FieldSet): JsonObject {
  const kept = encodedFieldSets.get(set);
  if (kept) return kept;
  const wire = toFieldsV1(set);
  encodedFieldSets.set(set, wire);
  setsOfEncoded.set(wire, set);
  return wire;
}

/** Whether `fields` is the very wire form `fieldsV1Of(set)` made. */
export const isEncodingOf = (fields: unknown, set: FieldSet): boolean => isJsonObject(fields) && setsOfEncoded.get(fields) === set;

export function fromFieldsV1(fields: unknown): FieldSet {
  const set: FieldSet = new Set();
  const visit = (node: unknown, path: string) => {
    if (!isJsonObject(node)) return;
    const children = Object.keys(node).filter((k) => k !== '.');
    if (path !== '' && (children.length === 0 || hasField(node, '.'))) set.add(path);
    for (const key of children) visit(node[key], path === '' ? key : `${path}${SEP}${key}`);
  };
  visit(fields, '');
  return set;
}

const MISSING = Symbol('missing');

/** The value at a field path in an object; MISSING when absent. */
export function valueAtPath(object: unknown, path: string): unknown {
  let current: unknown = object;
  for (const element of splitPath(path)) current = childAt(current, element);
  return current;
}

/** One step of a field path (MISSING stays MISSING). */
function childAt(current: unknown, element: string): unknown {
  const kind = element.slice(0, 2);
  const rest = element.slice(2);
  if (kind === 'f:') {
    if (!isJsonObject(current) || !hasField(current, rest)) return MISSING;
    return current[rest];
  }
  if (kind === 'k:') {
    if (!Array.isArray(current)) return MISSING;
    const key = keyElementOf(rest);
    const found = itemsByKey(current, key.fields, key.signature).get(key.id);
    return found === undefined ? MISSING : found;
  }
  if (kind === 'v:') {
    if (!Array.isArray(current)) return MISSING;
    const value = JSON.parse(rest) as unknown;
    return itemsByKey(current, undefined).has(JSON.stringify(value)) ? value : MISSING;
  }
  return MISSING;
}

/** A `k:` element's key: its field names, their JSON (an index's signature) and the key's JSON. */
interface KeyElement {
  readonly fields: readonly string[];
  readonly signature: string;
  readonly id: string;
}

/**
 * `k:` elements parsed once: a write looks up every path of two objects, and the paths of an
 * associative list's items repeat their key element in each field (a pod's conditions, ports,
 * container statuses: the same few keys, write after write). Bounded; cleared when full.
 */
const keyElements = new Map<string, KeyElement>();
const MAX_KEY_ELEMENTS = 4_096;

function keyElementOf(text: string): KeyElement {
  let element = keyElements.get(text);
  if (!element) {
    const key = JSON.parse(text) as JsonObject;
    const fields = Object.keys(key);
    element = { fields, signature: JSON.stringify(fields), id: JSON.stringify(key) };
    if (keyElements.size >= MAX_KEY_ELEMENTS) keyElements.clear();
    keyElements.set(text, element);
  }
  return element;
}

/**
 * A list's items by the JSON of their key fields (`fields`), or of themselves (a set's items, no
 * `fields`), built once per list and field names: a write compares every path of an object, and a
 * scan of the list per path made a list of n items cost n². The first of equal items wins, as a
 * scan would find. Lists are not changed in place while indexed, except by `removePath`, which
 * forgets the index of the list it changes.
 */
const indexes = new WeakMap<readonly unknown[], Map<string, Map<string, unknown>>>();

function itemsByKey(list: readonly unknown[], fields: readonly string[] | undefined, signature = fields === undefined ? '' : JSON.stringify(fields)): Map<string, unknown> {
  let byFields = indexes.get(list);
  if (!byFields) indexes.set(list, (byFields = new Map()));
  let index = byFields.get(signature);
  if (!index) {
    index = new Map();
    for (const item of list) {
      let id: string;
      if (fields === undefined) id = JSON.stringify(item);
      else if (isJsonObject(item)) {
        const key: JsonObject = {};
        for (const field of fields) if (ownField(item, field) !== undefined) key[field] = ownField(item, field);
        if (Object.keys(key).length !== fields.length) continue;
        id = JSON.stringify(key);
      } else continue;
      if (!index.has(id)) index.set(id, item);
    }
    byFields.set(signature, index);
  }
  return index;
}

/**
 * Whether the two objects hold the same value at `path` (both absent counts as the same). Both are
 * walked together and the answer is yes as soon as they share a value on the way: a write keeps
 * what it does not change (a status write the stored spec, a patch the subtrees it leaves), so
 * most paths end at their first element instead of being looked up twice and compared.
 */
export function sameAt(a: unknown, b: unknown, path: string): boolean {
  let x = a;
  let y = b;
  for (const element of splitPath(path)) {
    if (x === y) return true;
    x = childAt(x, element);
    y = childAt(y, element);
  }
  return jsonEqual(x, y);
}

const SHARED: readonly [unknown, unknown] = [MISSING, MISSING];

/**
 * `sameAt(a, b, path)` for many paths of the same two objects: each path prefix is looked up once
 * (the paths of a field set share most of theirs: every field of a list item repeats the item's
 * key lookup), and everything below a value the two objects share is the same at once.
 */
export function sameAtEach(a: unknown, b: unknown): (path: string) => boolean {
  const pairs = new Map<string, readonly [unknown, unknown]>();
  const pairAt = (path: string): readonly [unknown, unknown] => {
    let pair = pairs.get(path);
    if (pair) return pair;
    const cut = path.lastIndexOf(SEP);
    const [x, y] = cut < 0 ? [a, b] : pairAt(path.slice(0, cut));
    const element = cut < 0 ? path : path.slice(cut + 1);
    pair = x === y ? SHARED : [childAt(x, element), childAt(y, element)];
    pairs.set(path, pair);
    return pair;
  };
  return (path) => {
    const [x, y] = pairAt(path);
    return x === y || jsonEqual(x, y);
  };
}

/** Removes the field at `path` from `object` (in place); a missing path is left alone. */
export function removePath(object: JsonObject, path: string): void {
  const elements = splitPath(path);
  const last = elements.pop()!;
  let parentPath = '';
  let parent: unknown = object;
  for (const element of elements) {
    parentPath = parentPath === '' ? element : `${parentPath}${SEP}${element}`;
    parent = valueAtPath(object, parentPath);
    if (parent === MISSING) return;
  }
  const kind = last.slice(0, 2);
  const rest = last.slice(2);
  if (Array.isArray(parent)) indexes.delete(parent);
  if (kind === 'f:' && isJsonObject(parent)) delete parent[rest];
  else if (kind === 'k:' && Array.isArray(parent)) {
    const key = JSON.parse(rest) as JsonObject;
    const at = parent.findIndex((item) => isJsonObject(item) && Object.entries(key).every(([k, v]) => jsonEqual(ownField(item, k), v)));
    if (at >= 0) parent.splice(at, 1);
  } else if (kind === 'v:' && Array.isArray(parent)) {
    const value = JSON.parse(rest) as unknown;
    const at = parent.findIndex((item) => jsonEqual(item, value));
    if (at >= 0) parent.splice(at, 1);
  }
}

/**
 * Whether `set` holds a path or anything beneath it, for many questions about one set: each
 * path's ancestors are indexed once, so a question costs a lookup rather than a pass over the set
 * (which made a write that drops or takes over n fields cost n²).
 */
export function ownedAtOrBelow(set: FieldSet): (path: string) => boolean {
  const ancestors = new Set<string>();
  for (const p of set) {
    for (let i = p.lastIndexOf(SEP); i > 0; i = p.lastIndexOf(SEP, i - 1)) {
      const prefix = p.slice(0, i);
      // Its own ancestors were indexed with it.
      if (ancestors.has(prefix)) break;
      ancestors.add(prefix);
    }
  }
  return (path) => set.has(path) || ancestors.has(path);
}

/** Human form of a path for conflict messages: `.spec.containers[name="web"].image`. */
export function describePath(path: string): string {
  return splitPath(path)
    .map((element) => {
      const rest = element.slice(2);
      if (element.startsWith('f:')) return `.${rest}`;
      if (element.startsWith('k:')) {
        const key = JSON.parse(rest) as JsonObject;
        return `[${Object.entries(key).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')}]`;
      }
      return `[=${rest}]`;
    })
    .join('');
}
