import { LIST_TYPES_BY_FIELD, LIST_TYPES_BY_ITEM } from './kinds/list-types.js';
import type { ListType } from './list-type.js';
import { itemSchema, unwrapSchema, type Schema } from './schema-walk.js';

export type { ListType } from './list-type.js';

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
