import { badRequest, type ResourceType } from '../api/index.js';
import { tableConvertorOf, type TableConvertor } from './columns.js';
import { isObject, parseObject, type JsonObject } from './json-value.js';
import { printerColumnsTable } from './printer-columns.js';
import type { Representation, View } from './negotiate.js';

/** What a Table row carries besides its cells (`includeObject`; Kubernetes' default is Metadata). */
export type IncludeObject = 'None' | 'Metadata' | 'Object';

/** `includeObject` as given on the query; anything but the three values is a 400. */
export function parseIncludeObject(text: string | undefined): IncludeObject {
  if (text === undefined || text === '') return 'Metadata';
  if (text === 'None' || text === 'Metadata' || text === 'Object') return text;
  throw badRequest(`unrecognized includeObject value: ${JSON.stringify(text)}`);
}

/** The collection metadata of a list (as it goes on the wire). */
export interface ListMetadata {
  readonly resourceVersion: string;
  readonly continue?: string;
  readonly remainingItemCount?: number;
}

/** Everything a view needs beyond the object: the negotiated view, the type, the clock. */
export interface ViewOptions {
  readonly view: View;
  readonly viewGroup: string;
  readonly viewVersion: string;
  readonly includeObject: IncludeObject;
  readonly table: TableConvertor;
  /** The time Age cells are computed at (ms since the epoch). */
  readonly now: number;
}

/** The ViewOptions of a negotiated representation for a type. */
export function viewOptions(rep: Representation, type: Pick<ResourceType, 'group' | 'kind' | 'printerColumns'>, builtin: boolean, includeObject: IncludeObject = 'Metadata', now = Date.now()): ViewOptions {
  const table = type.printerColumns ? printerColumnsTable(type.printerColumns) : tableConvertorOf(type.group, type.kind, builtin);
  return { view: rep.view, viewGroup: rep.viewGroup, viewVersion: rep.viewVersion, includeObject, table, now };
}

const viewApiVersion = (options: ViewOptions) => `${options.viewGroup}/${options.viewVersion}`;

/** An object's metadata alone, as kind PartialObjectMetadata. */
export function partialObjectMetadata(object: JsonObject, options: Pick<ViewOptions, 'viewGroup' | 'viewVersion'>): JsonObject {
  const metadata = isObject(object['metadata']) ? object['metadata'] : {};
  return { kind: 'PartialObjectMetadata', apiVersion: `${options.viewGroup}/${options.viewVersion}`, metadata };
}

/** One row of a Table: its cells, and the object as `includeObject` asks. */
export function tableRow(object: JsonObject, options: ViewOptions): JsonObject {
  const row: JsonObject = { cells: options.table.cells(object, options.now) };
  if (options.includeObject === 'Metadata') row['object'] = partialObjectMetadata(object, options);
  else if (options.includeObject === 'Object') row['object'] = object;
  return row;
}

/** A Table's fields before its rows (without the rows, for writers that stream them). */
export function tableHead(options: ViewOptions, metadata: ListMetadata | Record<string, never>, columns = true): JsonObject {
  return {
    kind: 'Table',
    apiVersion: viewApiVersion(options),
    metadata,
    ...(columns ? { columnDefinitions: options.table.columns } : {}),
  };
}

/**
 * One object in a view: itself, its metadata, or a one-row Table. `columns: false` leaves the
 * column definitions out (a watch sends them with its first event only, as Kubernetes does).
 */
export function objectInView(object: JsonObject, options: ViewOptions, columns = true): JsonObject {
  switch (options.view) {
    case 'Object':
      return object;
    case 'PartialObjectMetadata':
    case 'PartialObjectMetadataList':
      return partialObjectMetadata(object, options);
    case 'Table':
      return { ...tableHead(options, {}, columns), rows: [tableRow(object, options)] };
  }
}

/** A whole list in a view, as one value (for the codecs that do not stream). */
export function listInView(type: Pick<ResourceType, 'listKind'> & { apiVersion: string }, metadata: ListMetadata, items: Iterable<Uint8Array>, options: ViewOptions): JsonObject {
  const objects = [...items].map(parseObject);
  switch (options.view) {
    case 'Object':
      return { kind: type.listKind, apiVersion: type.apiVersion, metadata, items: objects };
    case 'PartialObjectMetadata':
    case 'PartialObjectMetadataList':
      return { kind: 'PartialObjectMetadataList', apiVersion: viewApiVersion(options), metadata, items: objects.map((o) => partialObjectMetadata(o, options)) };
    case 'Table':
      return { ...tableHead(options, metadata), rows: objects.map((o) => tableRow(o, options)) };
  }
}

/** Items are gathered into writes of about this size: big enough to be cheap, small enough to stream. */
export const CHUNK_BYTES = 64 * 1024;

/** `head`, the parts separated by `separator`, then `tail`, gathered into chunks of about CHUNK_BYTES. */
export function* chunked(head: Uint8Array, parts: Iterable<Uint8Array>, separator: Uint8Array | undefined, tail: Uint8Array): Generator<Buffer> {
  let pending: Uint8Array[] = [head];
  let size = head.length;
  let first = true;
  for (const part of parts) {
    if (!first && separator) {
      pending.push(separator);
      size += separator.length;
    }
    pending.push(part);
    size += part.length;
    first = false;
    if (size >= CHUNK_BYTES) {
      yield Buffer.concat(pending, size);
      pending = [];
      size = 0;
    }
  }
  pending.push(tail);
  yield Buffer.concat(pending, size + tail.length);
}

const COMMA = Buffer.from(',');
const CLOSE = Buffer.from(']}');

function* mapItems(items: Iterable<Uint8Array>, render: (object: JsonObject) => unknown): Generator<Buffer> {
  for (const item of items) yield Buffer.from(JSON.stringify(render(parseObject(item))));
}

/**
 * A Table or PartialObjectMetadataList in JSON, written item by item: each item's bytes are
 * decoded, viewed and encoded on their own, so the list is never one value in memory.
 */
export function jsonViewListChunks(metadata: ListMetadata, items: Iterable<Uint8Array>, options: ViewOptions): Iterable<Buffer> {
  if (options.view === 'Table') {
    const head = JSON.stringify(tableHead(options, metadata));
    return chunked(Buffer.from(`${head.slice(0, -1)},"rows":[`), mapItems(items, (o) => tableRow(o, options)), COMMA, CLOSE);
  }
  const head = `{"kind":"PartialObjectMetadataList","apiVersion":${JSON.stringify(viewApiVersion(options))},"metadata":${JSON.stringify(metadata)},"items":[`;
  return chunked(Buffer.from(head), mapItems(items, (o) => partialObjectMetadata(o, options)), COMMA, CLOSE);
}
