import type { PrinterColumn } from '../api/index.js';
import type { ColumnDefinition, TableConvertor } from './columns.js';
import { parseJsonPath, valueAtPath } from './json-path.js';
import { str, type JsonObject } from './json-value.js';

const NAME_COLUMN: ColumnDefinition = Object.freeze({
  name: 'Name',
  type: 'string',
  format: 'name',
  description: 'Name must be unique within a namespace. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names',
  priority: 0,
});

/** One cell as its column's type reads it: kubectl formats dates as ages and the rest as given. */
function cell(type: string, value: unknown): unknown {
  if (value === undefined || value === null) return null;
  switch (type) {
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value) ? value : null;
    case 'number':
      return typeof value === 'number' ? value : null;
    case 'boolean':
      return typeof value === 'boolean' ? value : null;
    case 'date':
      return typeof value === 'string' ? value : null;
    default:
      return typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
}

const tables = new WeakMap<readonly PrinterColumn[], TableConvertor>();

/**
 * The table of a type that declares its columns (a CRD's `additionalPrinterColumns`): Name, then
 * each column's value at its JSONPath. Built once per column list.
 */
export function printerColumnsTable(columns: readonly PrinterColumn[]): TableConvertor {
  let table = tables.get(columns);
  if (table) return table;
  const paths = columns.map((c) => parseJsonPath(c.jsonPath) ?? []);
  table = Object.freeze({
    columns: [NAME_COLUMN, ...columns.map((c) => Object.freeze({ name: c.name, type: c.type, format: c.format, description: c.description, priority: c.priority }))],
    cells: (object: JsonObject) => [str(object, 'metadata.name') ?? '', ...columns.map((c, i) => cell(c.type, valueAtPath(object, paths[i]!)))],
  });
  tables.set(columns, table);
  return table;
}
