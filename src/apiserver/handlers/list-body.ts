import { Readable } from 'node:stream';
import type { ResourceType } from '../../api/index.js';
import { apiVersionOf, type ApiObject } from '../objects.js';
import type { HandlerContext } from './context.js';

/** The collection metadata of one list response (a page of a paged list, or all of it). */
export interface ListMeta {
  readonly resourceVersion: number;
  /** The token of the next page; absent on the last. */
  readonly continue?: string | undefined;
  /** Items after this page; absent when the list is complete or selectors were used. */
  readonly remainingItemCount?: number | undefined;
}

/** Items are gathered into writes of about this size: big enough to be cheap, small enough to stream. */
const CHUNK_BYTES = 64 * 1024;

/**
 * A `<Kind>List` as a stream of byte chunks: the head, then each item's bytes as they are (no
 * parse, no re-encode), so a large collection is never one string in memory.
 */
export function listBody(type: ResourceType, meta: ListMeta, items: Iterable<Uint8Array>): Readable {
  const metadata =
    `{"resourceVersion":"${meta.resourceVersion}"` +
    (meta.continue ? `,"continue":${JSON.stringify(meta.continue)}` : '') +
    (meta.remainingItemCount !== undefined ? `,"remainingItemCount":${meta.remainingItemCount}` : '') +
    '}';
  const head = Buffer.from(`{"kind":${JSON.stringify(type.listKind)},"apiVersion":${JSON.stringify(apiVersionOf(type))},"metadata":${metadata},"items":[`);
  const comma = Buffer.from(',');
  function* chunks(): Generator<Buffer> {
    let parts: Uint8Array[] = [head];
    let size = head.length;
    let first = true;
    for (const item of items) {
      if (!first) {
        parts.push(comma);
        size += 1;
      }
      parts.push(item);
      size += item.length;
      first = false;
      if (size >= CHUNK_BYTES) {
        yield Buffer.concat(parts, size);
        parts = [];
        size = 0;
      }
    }
    parts.push(Buffer.from(']}'));
    yield Buffer.concat(parts);
  }
  return Readable.from(chunks(), { objectMode: false });
}

export function sendList(ctx: HandlerContext, meta: ListMeta, items: Iterable<Uint8Array>) {
  return ctx.reply.code(200).type('application/json').send(listBody(ctx.type, meta, items));
}

const utf8 = new TextEncoder();

/** A list of decoded objects (what a write path such as deletecollection answers). */
export function sendObjectList(ctx: HandlerContext, items: readonly ApiObject[], resourceVersion: number) {
  return sendList(ctx, { resourceVersion }, items.map((item) => utf8.encode(JSON.stringify(item))));
}
