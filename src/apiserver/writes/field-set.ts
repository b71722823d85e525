import { childSchema, hasField, itemSchema, listTypeOf, ownField, schemaNode, setField, type Schema } from '../../api/index.js';
import { isJsonObject, jsonEqual, type JsonObject } from './json-value.js';
import { shareEmbeddedJson } from '../../encoding/index.js';

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

/** The field sets a write compares: an object's and its next version's. */
export interface FieldSetPair {
  /** The object's paths, outside the fields both versions share. */
  readonly before: FieldSet;
  /** The next version's paths, outside the fields both versions share. */
  readonly after: FieldSet;
  /** The next version's whole set (`fieldSetOf`), walked when first asked for. */
  whole(): FieldSet;
}

/**
 * The field sets of an object and its next version for what a write changed. A top-level field
 * (or metadata field) whose value is the very same object in both (a status write's spec, the
 * labels of an unrelated patch) has the same paths in both, none of them changed: neither set
 * walks it. What the write did not touch costs nothing, and the next version's whole set is
 * walked only for a question about a path in such a field.
 */
export function fieldSetsOf(before: JsonObject, after: JsonObject, schema: Schema | undefined): FieldSetPair {
  const next = new Map<string, unknown>();
  eachTopField(after, schema, (value, _parent, _field, path) => {
    if (value !== null && typeof value === 'object') next.set(path, value);
  });
  const shared = new Set<string>();
  const beforeSet: FieldSet = new Set();
  eachTopField(before, schema, (value, parent, field, path) => {
    if (value !== null && typeof value === 'object' && next.get(path) === value) shared.add(path);
    else walk(value, parent, field, childSchema(parent, field), path, beforeSet);
  });
  const afterSet: FieldSet = new Set();
  eachTopField(after, schema, (value, parent, field, path) => {
    if (!shared.has(path)) walk(value, parent, field, childSchema(parent, field), path, afterSet);
  });
  let whole: FieldSet | undefined;
  return { before: beforeSet, after: afterSet, whole: () => (whole ??= shared.size === 0 ? afterSet : fieldSetOf(after, schema)) };
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
export const toFieldsV1 = (set: FieldSet): JsonObject => encodeFieldSet(set).wire;

/**
 * The trie, built from the paths in sorted order (so its keys are in that order). `plain` says that
 * no path continues another with a character that sorts before the separator (a field name holding
 * a raw control character): then a member's descendants follow it at once in that order, every
 * node is a member or an ancestor of one, and a member is marked `"."` exactly when it has a
 * descendant — the trie of a subset is this one with nodes taken out (`fieldSetWithout`).
 */
function encodeFieldSet(set: FieldSet): { readonly wire: JsonObject; readonly plain: boolean } {
  const root: JsonObject = {};
  const sorted = [...set].sort();
  let plain = true;
  // The nodes along the previous path: a path shares its leading elements with the one before it.
  const nodes: JsonObject[] = [root];
  let previous: readonly string[] = [];
  for (let i = 0; i < sorted.length; i++) {
    const path = sorted[i]!;
    const elements = splitPath(path);
    let depth = 0;
    while (depth < elements.length && depth < previous.length && elements[depth] === previous[depth]) depth++;
    let node = nodes[depth]!;
    for (let d = depth; d < elements.length; d++) {
      const element = elements[d]!;
      // Own fields only: a client's managedFields may name `__proto__`, which must stay a key.
      let child = ownField(node, element) as JsonObject | undefined;
      if (child === undefined) setField(node, element, (child = {}));
      node = child;
      nodes[d + 1] = node;
    }
    previous = elements;
    // Sorted, a member's children follow it at once: it needs its "." when the next path is one.
    const next = sorted[i + 1];
    let marked = hasOwnKeys(node);
    if (next !== undefined && next.length > path.length && next.startsWith(path)) {
      const after = next.charCodeAt(path.length);
      if (after === SEP_CODE) marked = true;
      else if (after < SEP_CODE) plain = false;
    }
    if (marked) node['.'] = {};
  }
  return { wire: root, plain };
}

const SEP_CODE = SEP.charCodeAt(0);

function hasOwnKeys(node: JsonObject): boolean {
  for (const key in node) if (Object.hasOwn(node, key)) return true;
  return false;
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
    sharedByText.add(set);
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
/** Wire forms of plain sets (`encodeFieldSet`): a subset's is made from them by taking nodes out. */
const plainWires = new WeakSet<JsonObject>();
/** Sets decoded from a text that many objects' entries share (the pods of one template). */
const sharedByText = new WeakSet<FieldSet>();

/**
 * `toFieldsV1(set)`, encoded once per set and shared by every object that holds the set: a set is
 * not changed once encoded (a write copies a set before changing it), and neither is its wire form
 * (objects are not changed in place on the write path: every step copies what it changes).
 */
export function fieldsV1Of(set: FieldSet): JsonObject {
  const kept = encodedFieldSets.get(set);
  if (kept) return kept;
  const { wire, plain } = encodeFieldSet(set);
  remember(set, wire, plain);
  return wire;
}

function remember(set: FieldSet, wire: JsonObject, plain: boolean): void {
  encodedFieldSets.set(set, wire);
  setsOfEncoded.set(wire, set);
  if (plain) plainWires.add(wire);
  // Never changed in place: its protobuf text is made once, and a body that sends the text back
  // (a node renewing its Lease) decodes to this very object, found equal to it by identity.
  shareEmbeddedJson(wire);
}

/**
 * A new set: `set` without the paths of `dropped` it holds (a manager's fields after a write took
 * some over or removed them). Its wire form is made now from `set`'s, when that one is known (or
 * `set` is shared by many objects: encoded once for all of them) and plain: the dropped members
 * are taken out of the trie and every node no dropped path passes through is shared — a creator's
 * entry that loses `status.phase` to the node's first status write keeps its spec's subtree as it
 * is, where encoding it anew sorted and rebuilt every path. The result is `toFieldsV1` of the new
 * set, node for node and key for key (test/apiserver/field-set.test.ts compares them).
 */
export function fieldSetWithout(set: FieldSet, dropped: Iterable<string>): FieldSet {
  const out = new Set(set);
  const gone: string[] = [];
  for (const path of dropped) if (out.delete(path)) gone.push(path);
  if (gone.length === 0) return out;
  const wire = encodedFieldSets.get(set) ?? (sharedByText.has(set) ? fieldsV1Of(set) : undefined);
  if (wire === undefined || !plainWires.has(wire)) return out;
  let derived = wire;
  for (const path of gone) derived = trieWithout(derived, splitPath(path), 0, '', out) ?? {};
  if (derived !== wire) remember(out, derived, true);
  return out;
}

/**
 * `node` (the trie's node at the first `depth` elements, `path`) with the member at `elements`
 * taken out, copied along the way (nothing is changed in place: wire forms are shared); undefined
 * when the node itself goes. A node that keeps nothing below it stays only as a member of `kept`
 * (a leaf, `{}`); a member that keeps descendants loses its `"."` mark only.
 */
function trieWithout(node: JsonObject, elements: readonly string[], depth: number, path: string, kept: FieldSet): JsonObject | undefined {
  let out: JsonObject;
  if (depth === elements.length) {
    out = hasField(node, '.') ? withoutField(node, '.') : node;
  } else {
    const key = elements[depth]!;
    const child = ownField(node, key);
    if (!isJsonObject(child)) return node;
    const next = trieWithout(child, elements, depth + 1, depth === 0 ? key : `${path}${SEP}${key}`, kept);
    if (next === child) return node;
    out = next === undefined ? withoutField(node, key) : withField(node, key, next);
  }
  if (depth === 0 || hasChildren(out)) return out;
  return depth < elements.length && kept.has(path) ? {} : undefined;
}

/** A copy of `node` with `key` set (an existing key keeps its place). */
function withField(node: JsonObject, key: string, value: JsonObject): JsonObject {
  const out: JsonObject = { ...node };
  setField(out, key, value);
  return out;
}

/** A copy of `node` without `key`, the others in their order. */
function withoutField(node: JsonObject, key: string): JsonObject {
  const out: JsonObject = {};
  for (const k of Object.keys(node)) if (k !== key) setField(out, k, node[k]);
  return out;
}

/** Whether a trie node has any element below it (its `"."` mark aside). */
function hasChildren(node: JsonObject): boolean {
  for (const key in node) if (key !== '.' && Object.hasOwn(node, key)) return true;
  return false;
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
