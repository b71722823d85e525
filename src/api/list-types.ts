import { LIST_TYPES_BY_FIELD, LIST_TYPES_BY_ITEM } from './kinds/list-types.js';
import { itemSchema, unwrapSchema, type Schema } from './schema-walk.js';

/**
 * How a list field merges, as Kubernetes declares it on its Go types (`patchStrategy`,
 * `patchMergeKey`, `listType`, `listMapKeys`):
 * - `map`: an associative list; items are identified by `keys` (server-side apply) and merged by
 *   `mergeKey` (strategic merge patch: the first key, as Kubernetes' patchMergeKey).
 * - `set`: a list of scalars merged as a set (finalizers).
 * - `atomic`: replaced as a whole (every list not declared otherwise).
 */
export type ListType =
  | { readonly type: 'map'; readonly keys: readonly string[]; readonly mergeKey: string }
  | { readonly type: 'set' }
  | { readonly type: 'atomic' };

const ATOMIC: ListType = { type: 'atomic' };

let byItem: WeakMap<Schema, ListType> | undefined;
let byField: WeakMap<Schema, Readonly<Record<string, ListType>>> | undefined;

function tables() {
  if (!byItem || !byField) {
    byItem = new WeakMap(LIST_TYPES_BY_ITEM.map(([schema, type]) => [unwrapSchema(schema), type]));
    byField = new WeakMap(LIST_TYPES_BY_FIELD.map(([schema, fields]) => [unwrapSchema(schema), fields]));
  }
  return { byItem, byField };
}

/** The list type of field `field` of the struct `parent` (its schema); atomic unless declared. */
export function listTypeOf(parent: Schema | undefined, field: string, list: Schema | undefined): ListType {
  const { byItem, byField } = tables();
  if (parent) {
    const declared = byField.get(unwrapSchema(parent))?.[field];
    if (declared) return declared;
  }
  const items = itemSchema(list);
  return (items && byItem.get(unwrapSchema(items))) ?? ATOMIC;
}
