import { decodeProtobuf, KUBE_PROTOBUF_MEDIA_TYPE, messageOf, PROTOBUF_MAGIC, PROTOBUF_MEDIA_TYPE, fromMessage, type JsonObject } from '../../encoding/index.js';
import type { KubeObject } from '../../api/index.js';
import { jsonCodec, type WatchFramer } from '../wire-codec.js';
import { isJsonContentType, lazyJsonLinesFramer, lazyListDecoder, lazyObjectDecoder } from './json-decode.js';
import { protoRecord } from './proto-view.js';
import { BytesReader, malformedProtobuf } from './proto-wire.js';

/**
 * The binary lazy decoders (`decode: 'protobuf'`): protobuf watch frames and list bodies whose
 * objects become ProtoRecord views (proto-view.ts). A frame's 4-byte length says where it
 * ends, the WatchEvent and envelope fields say where the object's message is, and the message's
 * ObjectMeta field where its metadata is: no byte is looked at twice, and the only copy is the
 * object's message bytes, once. ERROR and BOOKMARK frames are decoded whole (rare and small).
 * A reply in JSON (a kind without a protobuf message) goes to the lazy JSON decoders.
 */

/** What the client asks for: protobuf, JSON for kinds that have no message (as client-go asks). */
export const PROTOBUF_ACCEPT = `${PROTOBUF_MEDIA_TYPE}, application/json;q=0.9`;

/** The largest watch frame accepted (a garbled length must not make us wait for gigabytes). */
const MAX_FRAME_BYTES = 64 * 1024 * 1024;

export const isProtobufContentType = (contentType: string | undefined): boolean =>
  contentType !== undefined && (contentType.startsWith(PROTOBUF_MEDIA_TYPE) || contentType.startsWith(KUBE_PROTOBUF_MEDIA_TYPE));

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** An envelope (magic + Unknown) at `bytes[start, end)`: its type and where its message is. */
interface Envelope {
  apiVersion: string;
  kind: string;
  rawStart: number;
  rawEnd: number;
}

/** The last TypeMeta read and its strings: a watch's objects are all of one kind, read once. */
let lastTypeMeta: Buffer = Buffer.alloc(0);
let lastApiVersion = '';
let lastKind = '';

function readTypeMeta(bytes: Buffer, start: number, end: number, out: Envelope): void {
  if (end - start === lastTypeMeta.length && bytes.compare(lastTypeMeta, 0, lastTypeMeta.length, start, end) === 0) {
    out.apiVersion = lastApiVersion;
    out.kind = lastKind;
    return;
  }
  const typeMeta = new BytesReader(bytes, start, end);
  while (typeMeta.next()) {
    const t = typeMeta.current;
    if (t.wire === 2 && t.field === 1) out.apiVersion = bytes.toString('utf8', t.start, t.end);
    else if (t.wire === 2 && t.field === 2) out.kind = bytes.toString('utf8', t.start, t.end);
  }
  lastTypeMeta = Buffer.from(bytes.subarray(start, end));
  lastApiVersion = out.apiVersion;
  lastKind = out.kind;
  lastMessage = undefined;
}
let lastMessage: ReturnType<typeof messageOf>;

const envelopeReader = new BytesReader(new Uint8Array(0));

function readEnvelope(bytes: Buffer, start: number, end: number): Envelope {
  if (end - start < 4 || bytes[start] !== PROTOBUF_MAGIC[0] || bytes[start + 1] !== PROTOBUF_MAGIC[1] || bytes[start + 2] !== PROTOBUF_MAGIC[2] || bytes[start + 3] !== PROTOBUF_MAGIC[3]) {
    throw malformedProtobuf('an object does not begin with the magic prefix 6b 38 73 00');
  }
  const out: Envelope = { apiVersion: '', kind: '', rawStart: end, rawEnd: end };
  const unknown = envelopeReader.reset(bytes, start + 4, end);
  while (unknown.next()) {
    const f = unknown.current;
    if (f.wire !== 2) continue;
    switch (f.field) {
      case 1:
        readTypeMeta(bytes, f.start, f.end, out);
        break;
      case 2:
        out.rawStart = f.start;
        out.rawEnd = f.end;
        break;
      case 3:
        if (f.end > f.start) throw malformedProtobuf(`contentEncoding ${JSON.stringify(bytes.toString('utf8', f.start, f.end))} is not one svc reads`);
        break;
      case 4:
        if (f.end > f.start && !bytes.toString('utf8', f.start, f.end).includes('protobuf')) throw malformedProtobuf('the envelope holds something other than protobuf');
        break;
    }
  }
  envelopeReader.reset(EMPTY, 0, 0);
  return out;
}

const EMPTY = new Uint8Array(0);

/** The event types, the most frequent first. */
const EVENT_TYPES = ['MODIFIED', 'ADDED', 'DELETED', 'BOOKMARK', 'ERROR'] as const;

/** An event type without a new string per event: the known ones by their bytes (length and first byte first). */
function eventType(bytes: Buffer, start: number, end: number): string {
  const length = end - start;
  for (const type of EVENT_TYPES) {
    if (type.length !== length || type.charCodeAt(0) !== bytes[start]) continue;
    let i = 1;
    while (i < length && type.charCodeAt(i) === bytes[start + i]) i += 1;
    if (i === length) return type;
  }
  return bytes.toString('utf8', start, end);
}

const eventReader = new BytesReader(new Uint8Array(0));
const extReader = new BytesReader(new Uint8Array(0));

/** One watch frame (without its length) at `bytes[start, end)` as `{type, object}`. */
function lazyProtobufEvent(bytes: Buffer, start: number, end: number): { type: string; object: unknown } {
  let type = '';
  let objectStart = -1;
  let objectEnd = -1;
  const event = eventReader.reset(bytes, start, end);
  while (event.next()) {
    const f = event.current;
    if (f.wire !== 2) continue;
    if (f.field === 1) {
      type = eventType(bytes, f.start, f.end);
    } else if (f.field === 2) {
      // RawExtension {1: raw}: raw is the object's own envelope.
      const ext = extReader.reset(bytes, f.start, f.end);
      while (ext.next()) {
        if (ext.current.field === 1 && ext.current.wire === 2) {
          objectStart = ext.current.start;
          objectEnd = ext.current.end;
        }
      }
    }
  }
  eventReader.reset(EMPTY, 0, 0);
  extReader.reset(EMPTY, 0, 0);
  if (objectStart < 0) throw malformedProtobuf(`a ${type || 'watch'} event without an object`);
  if (type === 'ERROR' || type === 'BOOKMARK') return { type, object: decodeProtobuf(bytes.subarray(objectStart, objectEnd)) };
  const envelope = readEnvelope(bytes, objectStart, objectEnd);
  const message = envelope.apiVersion === lastApiVersion && envelope.kind === lastKind ? (lastMessage ??= messageOf(lastApiVersion, lastKind)) : messageOf(envelope.apiVersion, envelope.kind);
  if (!message) throw malformedProtobuf(`the envelope names ${JSON.stringify(`${envelope.apiVersion} ${envelope.kind}`)}, which has no protobuf message`);
  return { type, object: protoRecord(bytes, envelope.rawStart, envelope.rawEnd, message, envelope.apiVersion, envelope.kind).view() };
}

/**
 * Length-prefixed protobuf watch framing whose objects are lazy views. Frames are read where they
 * lie in the chunk; only a frame split across chunks is joined, from its own bytes (a chunk is not
 * copied whole to finish the frame its predecessor began).
 */
export function lazyProtobufFramer(): WatchFramer {
  /** The bytes of a frame begun in earlier chunks, and their total. */
  let parts: Buffer[] = [];
  let partsLength = 0;
  const frameLength = (header: Buffer, at: number): number => {
    const length = header.readUInt32BE(at);
    if (length > MAX_FRAME_BYTES) throw malformedProtobuf(`a watch frame of ${length} bytes is larger than ${MAX_FRAME_BYTES}`);
    return 4 + length;
  };
  return {
    push(chunk: Uint8Array): unknown[] {
      const buffer = asBuffer(chunk);
      const out: unknown[] = [];
      let at = 0;
      if (partsLength > 0) {
        const have = partsLength + buffer.length;
        if (have < 4) {
          parts.push(Buffer.from(buffer));
          partsLength = have;
          return out;
        }
        const head = partsLength >= 4 ? parts[0]!.length >= 4 ? parts[0]! : Buffer.concat(parts) : Buffer.concat([...parts, buffer.subarray(0, 4 - partsLength)]);
        const total = frameLength(head, 0);
        const need = total - partsLength;
        if (buffer.length < need) {
          // The whole chunk belongs to the frame: kept as it is, nothing else holds on to it.
          parts.push(buffer);
          partsLength = have;
          return out;
        }
        const frame = Buffer.concat([...parts, buffer.subarray(0, need)], total);
        parts = [];
        partsLength = 0;
        out.push(lazyProtobufEvent(frame, 4, total));
        at = need;
      }
      while (buffer.length - at >= 4) {
        const total = frameLength(buffer, at);
        if (buffer.length - at < total) break;
        out.push(lazyProtobufEvent(buffer, at + 4, at + total));
        at += total;
      }
      // Only an incomplete tail is kept, copied, so that the chunk it came from can be collected.
      if (at < buffer.length) {
        parts = [Buffer.from(buffer.subarray(at))];
        partsLength = buffer.length - at;
      }
      return out;
    },
  };
}

/** The watch framer for a response's Content-Type: lazy protobuf, lazy JSON, or the codec's. */
export function lazyFramerFor(contentType: string | undefined): WatchFramer {
  if (isProtobufContentType(contentType)) return lazyProtobufFramer();
  if (isJsonContentType(contentType)) return lazyJsonLinesFramer();
  return jsonCodec.watchFramer(contentType);
}

const lazyJsonList = lazyListDecoder(jsonCodec);
const lazyJsonObject = lazyObjectDecoder(jsonCodec);

/**
 * A single object's response body (a create's answer) as a protobuf view: the ReplicaSet loop
 * reads a created pod's name, and decoding the rest of each answer was a tenth of the manager's
 * CPU while it created pods. A Status, or a body that is not protobuf, is decoded as usual.
 */
export function lazyProtobufObjectDecoder(bytes: Uint8Array, contentType: string | undefined): unknown {
  if (!isProtobufContentType(contentType)) return lazyJsonObject(bytes, contentType);
  const body = asBuffer(bytes);
  const envelope = readEnvelope(body, 0, body.length);
  const message = envelope.kind === 'Status' ? undefined : messageOf(envelope.apiVersion, envelope.kind);
  if (!message) return decodeProtobuf(body);
  return protoRecord(body, envelope.rawStart, envelope.rawEnd, message, envelope.apiVersion, envelope.kind).view();
}

/**
 * A list response body whose items are protobuf views: `{kind, apiVersion, metadata, items}`
 * with the ListMeta decoded and each item's message bytes copied out of the body. Anything that
 * is not a protobuf list (a Status, JSON) is decoded as usual.
 */
export function lazyProtobufListDecoder(bytes: Uint8Array, contentType: string | undefined): unknown {
  if (!isProtobufContentType(contentType)) return lazyJsonList(bytes, contentType);
  const body = asBuffer(bytes);
  const envelope = readEnvelope(body, 0, body.length);
  const listType = messageOf(envelope.apiVersion, envelope.kind);
  const itemsField = listType?.fields['items'];
  const metaField = listType?.fields['metadata'];
  const itemType = itemsField?.resolvedType;
  if (!listType || !envelope.kind.endsWith('List') || !itemsField?.repeated || !itemType || !('fieldsArray' in itemType)) return decodeProtobuf(body);
  const kind = envelope.kind.slice(0, -'List'.length);
  const items: KubeObject[] = [];
  let metadata: JsonObject = {};
  const list = new BytesReader(body, envelope.rawStart, envelope.rawEnd);
  while (list.next()) {
    const f = list.current;
    if (f.wire !== 2) continue;
    if (f.field === itemsField.id) items.push(protoRecord(body, f.start, f.end, itemType, envelope.apiVersion, kind).view());
    else if (metaField && f.field === metaField.id && metaField.resolvedType && 'fieldsArray' in metaField.resolvedType) {
      const metaType = metaField.resolvedType;
      metadata = fromMessage(metaType, metaType.decode(body.subarray(f.start, f.end)) as unknown as JsonObject);
    }
  }
  return { kind: envelope.kind, apiVersion: envelope.apiVersion, metadata, items };
}

