import { Readable } from 'node:stream';
import type { ResourceType } from '../../api/index.js';
import { apiVersionOf, type ApiObject } from '../api-object.js';
import { PLAIN_JSON, chunked, renderList, type ListMetadata, type Representation } from '../../encoding/index.js';
import type { HandlerContext } from './context.js';
import { isPretty } from './query.js';
import { renderOptionsOf, representationOf } from './representation.js';
import { sendReadChunks } from './send.js';

/** The collection metadata of one list response (a page of a paged list, or all of it). */
export interface ListMeta {
  readonly resourceVersion: number;
  /** The token of the next page; absent on the last. */
  readonly continue?: string | undefined;
  /** Items after this page; absent when the list is complete or selectors were used. */
  readonly remainingItemCount?: number | undefined;
}

/**
 * A `<Kind>List` as a stream of byte chunks: the head, then each item's bytes as they are (no
 * parse, no re-encode), so a large collection is never one string in memory.
 */
export function listBody(type: ResourceType, meta: ListMeta, items: Iterable<Uint8Array>): Readable {
  return Readable.from(listChunks(type, meta, items), { objectMode: false });
}

/** The chunks of `listBody`. */
export function listChunks(type: ResourceType, meta: ListMeta, items: Iterable<Uint8Array>): Iterable<Buffer> {
  const metadata =
    `{"resourceVersion":"${meta.resourceVersion}"` +
    (meta.continue ? `,"continue":${JSON.stringify(meta.continue)}` : '') +
    (meta.remainingItemCount !== undefined ? `,"remainingItemCount":${meta.remainingItemCount}` : '') +
    '}';
  const head = Buffer.from(`{"kind":${JSON.stringify(type.listKind)},"apiVersion":${JSON.stringify(apiVersionOf(type))},"metadata":${metadata},"items":[`);
  return chunked(head, items, COMMA, CLOSE);
}
const COMMA = Buffer.from(',');
// The newline ends the body, as Go's encoder writes it (json-newline.ts): in the last chunk, not a write of its own.
const CLOSE = Buffer.from(']}\n');

/** The collection metadata as it goes on the wire. */
const wireMeta = (meta: ListMeta): ListMetadata => ({
  resourceVersion: String(meta.resourceVersion),
  ...(meta.continue ? { continue: meta.continue } : {}),
  ...(meta.remainingItemCount !== undefined ? { remainingItemCount: meta.remainingItemCount } : {}),
});

/**
 * A list in the representation the client negotiated (`rep`, else the one its Accept asks for
 * with no views: deletecollection's answer). Plain JSON is the items' shared bytes, item by item.
 */
export function sendList(ctx: HandlerContext, meta: ListMeta, items: Iterable<Uint8Array>, rep: Representation = representationOf(ctx, 'list', false)) {
  if (rep === PLAIN_JSON && !isPretty(ctx)) return sendReadChunks(ctx, 'application/json', listChunks(ctx.type, meta, items));
  return sendReadChunks(ctx, rep.contentType, renderList(renderOptionsOf(ctx, rep), wireMeta(meta), items));
}

const utf8 = new TextEncoder();

/** A list of decoded objects (what a write path such as deletecollection answers). */
export function sendObjectList(ctx: HandlerContext, items: readonly ApiObject[], resourceVersion: number) {
  return sendList(ctx, { resourceVersion }, items.map((item) => utf8.encode(JSON.stringify(item))));
}
