import protobuf from 'protobufjs';
import { badRequest, isStatusError } from '../../api/index.js';
import { isObject, parseObject, type JsonObject } from '../json-value.js';
import { MAX_NESTING_DEPTH, nestingTooDeep, requireNestingWithin } from '../nesting.js';
import { protobufTooDeep } from './wire-depth.js';
import type { ValueCodec } from '../response-codecs.js';
import type { ListMetadata } from '../views.js';
import { ConversionError, fromMessage, toMessage } from './convert.js';
import { listMetaType, messageOf, typeMetaType, unknownType, watchEventType } from './schema.js';
import { decodeMessage } from './message-reader.js';

/** `k8s\0`: the first bytes of every protobuf body (the fourth is the envelope's version). */
export const PROTOBUF_MAGIC = Uint8Array.of(0x6b, 0x38, 0x73, 0x00);

/** The message bytes of an object (raw of its envelope); undefined when its kind has no message. */
export function encodeRaw(object: JsonObject): Uint8Array | undefined {
  const type = messageOf(String(object['apiVersion'] ?? ''), String(object['kind'] ?? ''));
  if (!type) return undefined;
  // toMessage already gives every field its wire form, so the encoder takes it as it is.
  return type.encode(toMessage(type, object)).finish();
}

/**
 * The envelope around message bytes: magic, then Unknown{typeMeta, raw}. Written by hand in one
 * buffer, as the watch frames are (every length is known up front): protobufjs built it in a
 * writer of its own and the message was copied twice, on every protobuf answer (a Lease renewal's).
 */
export function envelope(apiVersion: string, kind: string, raw: Uint8Array): Uint8Array {
  const typeMeta = typeMetaOf(apiVersion, kind);
  const out = new Uint8Array(PROTOBUF_MAGIC.length + 1 + varintSize(typeMeta.length) + typeMeta.length + 1 + varintSize(raw.length) + raw.length);
  out.set(PROTOBUF_MAGIC);
  let at = putLengthDelimited(out, PROTOBUF_MAGIC.length, 1, typeMeta.length); // Unknown.typeMeta
  out.set(typeMeta, at);
  at = putLengthDelimited(out, at + typeMeta.length, 2, raw.length); // Unknown.raw
  out.set(raw, at);
  return out;
}

/** A length-delimited field's key and length at `at` in `out`; returns where its bytes go. */
function putLengthDelimited(out: Uint8Array, at: number, field: number, length: number): number {
  out[at++] = (field << 3) | 2;
  for (let n = length; ; n = Math.floor(n / 128)) {
    if (n < 128) {
      out[at++] = n;
      return at;
    }
    out[at++] = (n % 128) | 0x80;
  }
}

/** An object (with its kind and apiVersion) as a protobuf body. */
export function encodeProtobuf(object: JsonObject): Uint8Array {
  const raw = encodeRaw(object);
  if (!raw) throw new Error(`no protobuf message for ${String(object['apiVersion'])} ${String(object['kind'])}`);
  return envelope(String(object['apiVersion']), String(object['kind']), raw);
}

/** How `decodeProtobuf` may build its object. */
export interface ProtobufDecodeOptions {
  /**
   * A FieldsV1 whose text is that of a value this process shares (shared-json.ts) is that very
   * value, not a parse of it: for a process that never changes a decoded object in place (the
   * API server's request bodies).
   */
  readonly sharedJson?: boolean;
}

/**
 * A protobuf body back to JSON, with kind and apiVersion from its envelope. A wrong prefix, a
 * malformed message, an encoding other than none or an unknown kind is a 400.
 */
export function decodeProtobuf(body: Uint8Array, options: ProtobufDecodeOptions = {}): JsonObject {
  if (body.length < 4 || PROTOBUF_MAGIC.some((byte, i) => body[i] !== byte)) {
    throw badRequest('the protobuf body does not begin with the magic prefix 6b 38 73 00: it is not a protobuf envelope (is the Content-Type right?)');
  }
  // protobufjs recurses once per message level, and a map entry is a level of its own: the
  // bytes may nest twice the JSON limit (and the envelope) before the decoded value is checked.
  if (protobufTooDeep(body.subarray(4), 2 * MAX_NESTING_DEPTH + 2)) throw nestingTooDeep();
  let unknown: JsonObject;
  try {
    unknown = unknownType.toObject(decodeMessage(unknownType, body.subarray(4)), { defaults: false }) as JsonObject;
  } catch (error) {
    throw badRequest(`the protobuf envelope cannot be decoded: ${(error as Error).message}`);
  }
  if (typeof unknown['contentEncoding'] === 'string' && unknown['contentEncoding'] !== '') {
    throw badRequest(`unsupported contentEncoding ${JSON.stringify(unknown['contentEncoding'])} in the protobuf envelope`);
  }
  if (typeof unknown['contentType'] === 'string' && unknown['contentType'] !== '' && !unknown['contentType'].includes('protobuf')) {
    throw badRequest(`unsupported contentType ${JSON.stringify(unknown['contentType'])} in the protobuf envelope`);
  }
  const typeMeta = isObject(unknown['typeMeta']) ? unknown['typeMeta'] : {};
  const apiVersion = typeof typeMeta['apiVersion'] === 'string' ? typeMeta['apiVersion'] : '';
  const kind = typeof typeMeta['kind'] === 'string' ? typeMeta['kind'] : '';
  const type = messageOf(apiVersion, kind);
  if (!type) throw badRequest(`the protobuf envelope names ${JSON.stringify(`${apiVersion} ${kind}`)}, which has no protobuf message`);
  const raw = unknown['raw'] instanceof Uint8Array ? unknown['raw'] : new Uint8Array();
  try {
    const object: JsonObject = { kind, apiVersion, ...fromMessage(type, decodeMessage(type, raw) as unknown as JsonObject, options.sharedJson === true) };
    // An empty repeated field is absent on the wire; a list's items are `[]` in JSON all the same.
    if (object['items'] === undefined && type.fields['items']?.repeated === true) object['items'] = [];
    // Embedded JSON (RawExtension, JSON fields) was parsed without a depth check.
    requireNestingWithin(object);
    return object;
  } catch (error) {
    if (isStatusError(error)) throw error;
    if (error instanceof ConversionError) throw badRequest(`the protobuf body cannot be decoded: ${error.message}`);
    throw badRequest(`the protobuf body is not a valid ${kind}: ${(error as Error).message}`);
  }
}

/**
 * One protobuf watch frame (without its 4-byte length) back to `{type, object}`; the object is
 * decoded from its own envelope. Malformed frames are a 400 like malformed bodies.
 */
export function decodeProtobufWatchEvent(frame: Uint8Array): { type: string; object: JsonObject } {
  let event: JsonObject;
  try {
    event = watchEventType.toObject(decodeMessage(watchEventType, frame), { defaults: false }) as JsonObject;
  } catch (error) {
    throw badRequest(`the protobuf watch event cannot be decoded: ${(error as Error).message}`);
  }
  const object = isObject(event['object']) ? event['object'] : {};
  const raw = object['raw'] instanceof Uint8Array ? object['raw'] : new Uint8Array();
  return { type: typeof event['type'] === 'string' ? event['type'] : '', object: decodeProtobuf(raw) };
}

/** The codec behind application/vnd.svc.protobuf: envelopes, and length-prefixed watch events. */
export const protobufCodec: ValueCodec = {
  encode: (value) => {
    try {
      return encodeProtobuf(value);
    } catch (error) {
      if (error instanceof ConversionError) throw badRequest(`the object cannot be encoded as protobuf: ${error.message}`);
      throw error;
    }
  },
  frame: (type, object) => {
    const event = watchEventType.encode({ type, object: { raw: encodeProtobuf(object) } }).finish();
    const out = new Uint8Array(4 + event.length);
    new DataView(out.buffer).setUint32(0, event.length, false);
    out.set(event, 4);
    return out;
  },
};

/**
 * Each object version's message bytes, computed once and kept as long as the version's JSON
 * buffer lives (the cache's shared bytes are the key, so the entry goes when they go).
 */
const rawCache = new WeakMap<Uint8Array, Uint8Array>();

/**
 * The decoded objects of the versions written last, by their JSON bytes (`knownObjectOf`): the
 * writer has the object in hand, so the version's first message is encoded from it rather than
 * from a parse of the bytes the writer has just made of it (a pod status patch's watch event
 * parsed its 2 KB again: ~4 % of the API server's CPU in bench:endpointslice). A watch event's
 * frame is made on the store commit's stack, so the last few suffice; the bound keeps objects no
 * protobuf watcher asks for from living as long as the cache's bytes.
 */
const knownObjects = new Map<Uint8Array, JsonObject | (() => JsonObject)>();
const KNOWN_OBJECTS = 64;

/**
 * `object` is what `json` encodes (equal to its parse): its protobuf message need not parse it.
 * A function is called for the object only when the message is first encoded, so a caller whose
 * object must first be made (the watch cache's decoder: the writer's object as stored, its
 * version set) makes it only for the versions a protobuf reader asks for.
 */
export function knownObjectOf(json: Uint8Array, object: JsonObject | (() => JsonObject)): void {
  knownObjects.set(json, object);
  if (knownObjects.size > KNOWN_OBJECTS) knownObjects.delete(knownObjects.keys().next().value!);
}

export function cachedRaw(json: Uint8Array): Uint8Array {
  let raw = rawCache.get(json);
  if (!raw) {
    raw = rawOfVersion(json);
    rawCache.set(json, raw);
  }
  return raw;
}

/** The message bytes of a version, encoded now (from the writer's object when it is known). */
function rawOfVersion(json: Uint8Array): Uint8Array {
  const known = knownObjects.get(json);
  if (known !== undefined) knownObjects.delete(json);
  const raw = encodeRaw(known === undefined ? parseObject(json) : typeof known === 'function' ? known() : known);
  if (!raw) throw new Error('an object of a kind without a protobuf message');
  return raw;
}

/**
 * Each object version's watch frames, one per event type, written once and shared by every
 * watcher. A version is nearly always sent as one type (the event that made it; DELETED may
 * repeat the last version). Kept as long as the version's JSON buffer lives, like the message
 * bytes, which become a view into the version's first frame (one copy of the message for it).
 */
const frameCaches = new Map<string, WeakMap<Uint8Array, Uint8Array>>();

/** TypeMeta{apiVersion, kind} by apiVersion, then kind: a handful of kinds, each written once (a copy: protobufjs hands out slices of a shared pool). */
const typeMetaCache = new Map<string, Map<string, Uint8Array>>();

function typeMetaOf(apiVersion: string, kind: string): Uint8Array {
  let kinds = typeMetaCache.get(apiVersion);
  if (!kinds) typeMetaCache.set(apiVersion, (kinds = new Map()));
  let typeMeta = kinds.get(kind);
  if (!typeMeta) kinds.set(kind, (typeMeta = Uint8Array.from(typeMetaType.encode({ apiVersion, kind }).finish())));
  return typeMeta;
}

/**
 * One watch frame of an object version in the Object view, from its cached message bytes:
 * `uint32 length, WatchEvent{type, object: RawExtension{raw: envelope}}`, where the envelope is
 * `magic, Unknown{typeMeta, raw}`. Written by hand in one buffer, since every length is known
 * up front (protobufjs would build it in three buffers and copy the message three times).
 */
export function protobufEventFrame(type: string, apiVersion: string, kind: string, json: Uint8Array): Uint8Array {
  let frames = frameCaches.get(type);
  if (!frames) frameCaches.set(type, (frames = new WeakMap()));
  const cached = frames.get(json);
  if (cached) return cached;
  // A version's first frame encodes its message, kept below as a view into the frame (one entry
  // made, not one for the message and then another for the view).
  const kept = rawCache.get(json);
  const raw = kept ?? rawOfVersion(json);
  const typeMeta = typeMetaOf(apiVersion, kind);
  const typeBytes = Buffer.from(type, 'latin1');
  const unknownSize = 1 + varintSize(typeMeta.length) + typeMeta.length + 1 + varintSize(raw.length) + raw.length;
  const envelopeSize = PROTOBUF_MAGIC.length + unknownSize;
  const extensionSize = 1 + varintSize(envelopeSize) + envelopeSize;
  const eventSize = 1 + varintSize(typeBytes.length) + typeBytes.length + 1 + varintSize(extensionSize) + extensionSize;
  const out = new Uint8Array(4 + eventSize);
  new DataView(out.buffer).setUint32(0, eventSize, false);
  let at = 4;
  const lengthDelimited = (field: number, length: number): void => {
    out[at++] = (field << 3) | 2;
    for (let n = length; ; n = Math.floor(n / 128)) {
      if (n < 128) {
        out[at++] = n;
        break;
      }
      out[at++] = (n % 128) | 0x80;
    }
  };
  lengthDelimited(1, typeBytes.length); // WatchEvent.type
  out.set(typeBytes, at);
  at += typeBytes.length;
  lengthDelimited(2, extensionSize); // WatchEvent.object
  lengthDelimited(1, envelopeSize); // RawExtension.raw
  out.set(PROTOBUF_MAGIC, at);
  at += PROTOBUF_MAGIC.length;
  lengthDelimited(1, typeMeta.length); // Unknown.typeMeta
  out.set(typeMeta, at);
  at += typeMeta.length;
  lengthDelimited(2, raw.length); // Unknown.raw
  out.set(raw, at);
  frames.set(json, out);
  // The message was encoded just now for this frame: keep it as a view into it, not twice.
  if (kept === undefined) rawCache.set(json, out.subarray(at, at + raw.length));
  return out;
}

const tag = (field: number) => (field << 3) | 2;

/**
 * A `<Kind>List` envelope written item by item: the items' message bytes (cached per version)
 * are sized first, then the envelope's heads and each item follow without concatenating the list.
 */
export function* protobufListChunks(apiVersion: string, listKind: string, metadata: ListMetadata, items: Iterable<Uint8Array>): Generator<Uint8Array> {
  const raws = [...items].map(cachedRaw);
  const meta = listMetaType.encode(listMetaType.fromObject(metadata)).finish();
  let listSize = 1 + varintSize(meta.length) + meta.length;
  for (const raw of raws) listSize += 1 + varintSize(raw.length) + raw.length;
  const typeMeta = typeMetaType.encode({ apiVersion, kind: listKind }).finish();
  const head = new protobuf.Writer();
  head.uint32(tag(1)).bytes(typeMeta).uint32(tag(2)).uint32(listSize).uint32(tag(1)).bytes(meta);
  const headBytes = head.finish();
  let pending: Uint8Array[] = [PROTOBUF_MAGIC, headBytes];
  let size = PROTOBUF_MAGIC.length + headBytes.length;
  for (const raw of raws) {
    const w = new protobuf.Writer();
    const prefix = w.uint32(tag(2)).uint32(raw.length).finish();
    pending.push(prefix, raw);
    size += prefix.length + raw.length;
    if (size >= 64 * 1024) {
      yield Buffer.concat(pending, size);
      pending = [];
      size = 0;
    }
  }
  if (pending.length) yield Buffer.concat(pending, size);
}

function varintSize(n: number): number {
  let size = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 128);
    size++;
  }
  return size;
}

/** True when svc has a protobuf message for the kind of a type. */
export const hasProtobufMessage = (apiVersion: string, kind: string) => messageOf(apiVersion, kind) !== undefined;
