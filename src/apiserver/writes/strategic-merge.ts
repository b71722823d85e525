import { badRequest, childSchema, hasField, itemSchema, listTypeOf, ownField, schemaNode, setField, type Schema } from '../../api/index.js';
import { isJsonObject, type JsonObject } from './json-value.js';
import { MISSING, ValueIndex } from './value-index.js';

/**
 * Strategic merge patch, as Kubernetes defines it for its built-in types: like a JSON merge
 * patch, but a list the type declares associative (containers by name, ports by containerPort,
 * ...) merges item by item on its merge key, and a set list (finalizers) merges as a union.
 * Directives:
 * - `$patch: replace` in a map replaces the map; `$patch: delete` removes it. In a list, an item
 *   `{$patch: replace}` replaces the whole list with the other items; `{<key>: x, $patch: delete}`
 *   removes the item with that key.
 * - `$deleteFromPrimitiveList/<field>: [values]` removes values from a set list.
 * - `$setElementOrder/<field>: [...]` orders the merged list (items not named keep their place
 *   after the named ones).
 * - `$retainKeys: [names]` keeps only those fields of the merged map.
 * Directives of the wrong shape are a 400 (as upstream: `$retainKeys` and `$setElementOrder` are
 * lists of strings, or of the merge key's values), and so is `$patch: delete` on the whole
 * object: a patch does not delete (DELETE does). Keys are data (`__proto__` too): no prototype is
 * read or set. Neither input is changed.
 */
export function applyStrategicMergePatch(original: unknown, patch: unknown, schema: Schema | undefined): unknown {
  if (!isJsonObject(patch)) throw badRequest('a strategic merge patch must be a JSON object');
  const merged = mergeMap(isJsonObject(original) ? original : {}, patch, schema);
  if (merged === DELETE) throw badRequest('a strategic merge patch cannot delete the whole object ($patch: delete at its root); use DELETE');
  return merged;
}

const DELETE = Symbol('delete');

function mergeMap(original: JsonObject, patch: JsonObject, schema: Schema | undefined): JsonObject | typeof DELETE {
  const directive = patch['$patch'];
  if (directive === 'delete') return DELETE;
  if (directive === 'replace') return withoutDirectives(patch);
  if (directive !== undefined) throw badRequest(`unknown $patch directive ${JSON.stringify(directive)} in a map`);

  const result: JsonObject = { ...original };
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$')) continue;
    if (value === null) {
      delete result[key];
      continue;
    }
    const fieldSchema = childSchema(schema, key);
    const current = ownField(result, key);
    if (Array.isArray(value)) {
      setField(result, key, mergeList(current, value, schema, key, fieldSchema));
    } else if (isJsonObject(value)) {
      const merged = mergeMap(isJsonObject(current) ? current : {}, value, fieldSchema);
      if (merged === DELETE) delete result[key];
      else setField(result, key, merged);
    } else {
      setField(result, key, value);
    }
  }

  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$deleteFromPrimitiveList/')) {
      const field = key.slice('$deleteFromPrimitiveList/'.length);
      if (!Array.isArray(value) || !value.every(isPrimitive)) throw badRequest(`${key} must be a list of primitive values`);
      const current = ownField(result, field);
      if (Array.isArray(current)) {
        const gone = new ValueIndex(value);
        setField(result, field, current.filter((item) => !gone.has(item)));
      }
    } else if (key.startsWith('$setElementOrder/')) {
      const field = key.slice('$setElementOrder/'.length);
      const listType = elementOrderType(schema, field, key, value);
      const current = ownField(result, field);
      if (Array.isArray(current)) setField(result, field, ordered(current, value as unknown[], listType));
    } else if (key === '$retainKeys') {
      if (!Array.isArray(value) || !value.every((name) => typeof name === 'string')) throw badRequest('$retainKeys must be a list of strings');
      const retained = new Set(value);
      for (const field of Object.keys(result)) if (!retained.has(field)) delete result[field];
    } else if (key.startsWith('$') && key !== '$patch') {
      throw badRequest(`unknown strategic merge patch directive ${JSON.stringify(key)}`);
    }
  }
  return result;
}

function mergeList(original: unknown, patch: readonly unknown[], parent: Schema | undefined, field: string, schema: Schema | undefined): unknown[] {
  const current = Array.isArray(original) ? original : [];
  const listType = listTypeOf(parent, field, schema);
  if (listType.type === 'set') {
    const out = [...current];
    const present = new ValueIndex(current);
    for (const value of patch) {
      if (present.has(value)) continue;
      out.push(value);
      present.add(value, out.length - 1);
    }
    return out;
  }
  if (listType.type === 'atomic') {
    if (patch.some((item) => isJsonObject(item) && item['$patch'] !== undefined)) {
      return patch.filter((item) => !(isJsonObject(item) && item['$patch'] !== undefined));
    }
    return [...patch];
  }
  const key = listType.mergeKey;
  const items = itemSchema(schema);
  if (patch.some((item) => isJsonObject(item) && item['$patch'] === 'replace')) {
    return patch.filter((item) => !(isJsonObject(item) && item['$patch'] === 'replace')).map((item) => (isJsonObject(item) ? withoutDirectives(item) : item));
  }
  const out: unknown[] = [...current];
  // Items found by their key's value in a map, not by a scan per patch item (n² for long lists);
  // a deleted item leaves a hole until the end, so the indexes stay true.
  const keyOf = (item: unknown) => (isJsonObject(item) ? item[key] : MISSING);
  const index = new ValueIndex(out.map(keyOf));
  for (const item of patch) {
    if (!isJsonObject(item)) throw badRequest(`the items of ${field} must be objects, merged on ${key}`);
    if (!hasField(item, key)) throw badRequest(`an item of ${field} has no ${key}, the key it is merged on`);
    const at = index.find(item[key]);
    if (item['$patch'] === 'delete') {
      if (at >= 0) remove(at);
      continue;
    }
    if (at < 0) {
      out.push(withoutDirectives(item));
      index.add(item[key], out.length - 1);
      continue;
    }
    const merged = mergeMap(out[at] as JsonObject, item, items);
    if (merged === DELETE) remove(at);
    else out[at] = merged;
  }
  function remove(at: number) {
    index.remove(keyOf(out[at]), at);
    out[at] = HOLE;
  }
  return out.filter((item) => item !== HOLE);
}

/** `list` ordered as `order` names its items; items it does not name follow, in their order. */
function ordered(list: readonly unknown[], order: readonly unknown[], listType: ReturnType<typeof listTypeOf>): unknown[] {
  const identity = (item: unknown) => (listType.type === 'map' && isJsonObject(item) ? item[listType.mergeKey] : item);
  const ranks = new ValueIndex(order.map(identity));
  const rank = (item: unknown) => {
    const at = ranks.find(identity(item));
    return at < 0 ? order.length : at;
  };
  return list
    .map((item, index) => ({ item, index, rank: rank(item) }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map((entry) => entry.item);
}

const HOLE = Symbol('removed item');
function withoutDirectives(map: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(map)) if (!key.startsWith('$')) setField(out, key, value);
  return out;
}

const isPrimitive = (value: unknown): boolean => typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';

/**
 * The list type a `$setElementOrder/<field>` orders, after checking its shape as upstream does: a
 * list naming the items — their merge key's values (`[{name: a}]`) in a list merged on a key,
 * the values themselves in a list of primitives. A field that is no list is a 400 too.
 */
function elementOrderType(schema: Schema | undefined, field: string, key: string, order: unknown): ReturnType<typeof listTypeOf> {
  if (!Array.isArray(order)) throw badRequest(`${key} must be a list`);
  const fieldSchema = childSchema(schema, field);
  const node = schemaNode(fieldSchema);
  if (fieldSchema !== undefined && node.kind !== 'list' && !(node.kind === 'leaf' && node.open)) throw badRequest(`${key}: ${field} is not a list`);
  const listType = listTypeOf(schema, field, fieldSchema);
  if (listType.type === 'map') {
    const mergeKey = listType.mergeKey;
    if (!order.every((entry) => isJsonObject(entry) && isPrimitive(ownField(entry, mergeKey)))) {
      throw badRequest(`${key} must be a list of {${mergeKey}: value} maps naming the items of ${field}`);
    }
  } else if (!order.every(isPrimitive)) {
    throw badRequest(`${key} must be a list of the primitive values of ${field}`);
  }
  return listType;
}
