import { isAscii } from 'node:buffer';
import type { KubeObject } from '../../api/index.js';
import type { Codec, WatchFramer } from '../wire-codec.js';
import { findMember, malformed, scanElements, scanMembers, skipWs, stringMember } from './json-scan.js';
import { lazyObject } from './json-view.js';

/**
 * The lazy decoders: watch lines and list bodies whose objects become lazy views (json-view.ts)
 * instead of JSON.parse results. Each object's text is copied out of the chunk or body it came in
 * (one string per object version, so a cached version never keeps a whole page or chunk alive),
 * as a one-byte string when the bytes are ASCII (1 byte per character: the string *is* the bytes).
 */


/** Whether a response's Content-Type is JSON (absent counts: JSON is what a JSON client gets). */
export function isJsonContentType(contentType: string | undefined): boolean {
  return contentType === undefined || contentType === '' || /^application\/json\b/i.test(contentType);
}

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The bytes as a fresh string: latin1 (one byte per character, a plain copy) when they are ASCII. */
function text(bytes: Buffer, ascii: boolean): string {
  return bytes.toString(ascii ? 'latin1' : 'utf8');
}

/** JSON-lines watch framing whose objects are lazy views; ERROR frames are decoded whole. */
export function lazyJsonLinesFramer(): WatchFramer {
  let pending: Buffer[] = [];
  return {
    push(chunk: Uint8Array): unknown[] {
      const buf = asBuffer(chunk);
      const out: unknown[] = [];
      let from = 0;
      for (;;) {
        const nl = buf.indexOf(10, from);
        if (nl < 0) {
          // The chunk's tail is the start of a line: kept (not copied) until the line is complete.
          if (from < buf.length) pending.push(buf.subarray(from));
          return out;
        }
        const part = buf.subarray(from, nl);
        const line = pending.length > 0 ? Buffer.concat([...pending, part]) : part;
        pending = [];
        from = nl + 1;
        const frame = lazyFrame(text(line, isAscii(line)));
        if (frame !== undefined) out.push(frame);
      }
    },
  };
}

/** One watch line: `{type, object}` with the object as a view (ERROR: the Status, decoded). */
function lazyFrame(line: string): unknown {
  const start = skipWs(line, 0);
  if (start >= line.length) return undefined;
  const { ranges } = scanMembers(line, start);
  const type = stringMember(line, ranges, 'type');
  const m = findMember(line, ranges, 'object');
  if (type === undefined || m < 0) throw malformed(line, start, 'a watch event needs "type" and "object"');
  const objectStart = ranges[m + 2]!;
  if (line.charCodeAt(objectStart) !== 123) return { type, object: JSON.parse(line.slice(objectStart, ranges[m + 3])) as unknown };
  if (type === 'ERROR') return { type, object: JSON.parse(line.slice(objectStart, ranges[m + 3])) as unknown };
  return { type, object: lazyObject(line, objectStart) };
}

/**
 * A single object's response body (a create's answer) as a view: a caller that reads a field or
 * two of what it wrote decodes no more. A Status (an error's body) and a body in another encoding
 * are decoded as usual.
 */
export function lazyObjectDecoder(codec: Codec): (bytes: Uint8Array, contentType: string | undefined) => unknown {
  return (bytes, contentType) => {
    if (!isJsonContentType(contentType)) return codec.decode(bytes, contentType);
    const buf = asBuffer(bytes);
    const body = text(buf, isAscii(buf));
    const start = skipWs(body, 0);
    if (body.charCodeAt(start) !== 123) return JSON.parse(body) as unknown;
    const object = lazyObject<KubeObject>(body, start);
    return object.kind === 'Status' ? (JSON.parse(body) as unknown) : object;
  };
}

/**
 * A list response body whose items are views: `{…, metadata, items}` with `metadata` decoded and
 * each item's text copied out of the body. A body in another encoding goes to `codec`.
 */
export function lazyListDecoder(codec: Codec): (bytes: Uint8Array, contentType: string | undefined) => unknown {
  return (bytes, contentType) => {
    if (!isJsonContentType(contentType)) return codec.decode(bytes, contentType);
    const buf = asBuffer(bytes);
    const ascii = isAscii(buf);
    const body = text(buf, ascii);
    const start = skipWs(body, 0);
    const { ranges } = scanMembers(body, start);
    const out: Record<string, unknown> = {};
    for (let m = 0; m < ranges.length; m += 4) {
      const key = JSON.parse(body.slice(ranges[m], ranges[m + 1])) as string;
      const valueStart = ranges[m + 2]!;
      const valueEnd = ranges[m + 3]!;
      if (key !== 'items' || body.charCodeAt(valueStart) !== 91) {
        out[key] = JSON.parse(body.slice(valueStart, valueEnd)) as unknown;
        continue;
      }
      const items: KubeObject[] = [];
      const elements = scanElements(body, valueStart).ranges;
      for (let e = 0; e < elements.length; e += 2) {
        const itemStart = elements[e]!;
        if (body.charCodeAt(itemStart) !== 123) throw malformed(body, itemStart, 'a list item must be an object');
        // ASCII: character offsets are byte offsets, so the item is copied straight from the bytes.
        // Otherwise the item shares the decoded body (kept alive while any of its items is).
        items.push(ascii ? lazyObject(buf.toString('latin1', itemStart, elements[e + 1]), 0) : lazyObject(body, itemStart));
      }
      out[key] = items;
    }
    return out;
  };
}

