import { badRequest, childSchema, itemSchema, listTypeOf, type Schema } from '../../api/index.js';
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
 * Neither input is changed.
 */
export function applyStrategicMergePatch(original: unknown, patch: unknown, schema: Schema | undefined): unknown {
  if (!isJsonObject(patch)) throw badRequest('a strategic merge patch must be a JSON object');
  const merged = mergeMap(isJsonObject(original) ? original : {}, patch, schema);
  return merged === DELETE ? {} : merged;
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
    if (Array.isArray(value)) {
      result[key] = mergeList(result[key], value, schema, key, fieldSchema);
    } else if (isJsonObject(value)) {
      const merged = mergeMap(isJsonObject(result[key]) ? (result[key] as JsonObject) : {}, value, fieldSchema);
      if (merged === DELETE) delete result[key];
      else result[key] = merged;
    } else {
      result[key] = value;
    }
  }

  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$deleteFromPrimitiveList/')) {
      const field = key.slice('$deleteFromPrimitiveList/'.length);
      if (!Array.isArray(value)) throw badRequest(`${key} must be a list`);
      const current = result[field];
      if (Array.isArray(current)) {
        const gone = new ValueIndex(value);
        result[field] = current.filter((item) => !gone.has(item));
      }
    } else if (key.startsWith('$setElementOrder/')) {
      const field = key.slice('$setElementOrder/'.length);
      if (!Array.isArray(value)) throw badRequest(`${key} must be a list`);
      const current = result[field];
      if (Array.isArray(current)) result[field] = ordered(current, value, listTypeOf(schema, field, childSchema(schema, field)));
    } else if (key === '$retainKeys') {
      if (!Array.isArray(value)) throw badRequest('$retainKeys must be a list');
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
    if (!(key in item)) throw badRequest(`an item of ${field} has no ${key}, the key it is merged on`);
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
  for (const [key, value] of Object.entries(map)) if (!key.startsWith('$')) out[key] = value;
  return out;
}
