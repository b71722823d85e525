import { createRequire } from 'node:module';
import type { Decoder, Encoder } from 'cbor-x';
import { badRequest, setField } from '../api/index.js';
import type { ValueCodec } from './response-codecs.js';
import { isObject, type JsonObject } from './json-value.js';
import { MAX_NESTING_DEPTH, nestingTooDeep } from './nesting.js';

/** The self-described CBOR tag 55799 (`d9 d9 f7`) that begins every item svc writes. */
export const CBOR_SELF_DESCRIBED = Uint8Array.of(0xd9, 0xd9, 0xf7);

/**
 * cbor-x, loaded by the first CBOR body (synchronously: codecs are synchronous). Most processes
 * never see one (CBOR is behind a feature gate), and every module loaded stays resident: the node
 * agent, for one, is measured by its RSS.
 */
let coders: { encoder: Encoder; decoder: Decoder } | undefined;
function cborX(): { encoder: Encoder; decoder: Decoder } {
  if (coders) return coders;
  const { Decoder: CborDecoder, Encoder: CborEncoder } = createRequire(import.meta.url)('cbor-x') as typeof import('cbor-x');
  coders = {
    encoder: new CborEncoder({ useRecords: false, mapsAsObjects: true, variableMapSize: true, tagUint8Array: false, pack: false }),
    // Maps come back as Maps: Kubernetes writes keys as byte strings, which a plain object cannot hold.
    decoder: new CborDecoder({ useRecords: false, mapsAsObjects: false }),
  };
  return coders;
}
const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Map keys in the deterministic order of RFC 8949 §4.2.1, by their encoded bytes: a shorter
 * UTF-8 length first, then bytewise (code point order, which is UTF-8 byte order).
 */
function compareKeys(a: string, b: string): number {
  if (ASCII.test(a) && ASCII.test(b)) return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
  const la = ASCII.test(a) ? a.length : utf8.encode(a).length;
  const lb = ASCII.test(b) ? b.length : utf8.encode(b).length;
  if (la !== lb) return la - lb;
  if (a === b) return 0;
  const ca = [...a];
  const cb = [...b];
  for (let i = 0; i < ca.length; i++) if (ca[i] !== cb[i]) return ca[i]!.codePointAt(0)! - cb[i]!.codePointAt(0)!;
  return 0;
}
const ASCII = /^[\x00-\x7f]*$/;

/** A copy of a JSON value with every object's keys in deterministic order. */
function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const key of Object.keys(value).sort(compareKeys)) if (value[key] !== undefined) setField(out, key, sorted(value[key]));
  return out;
}

/** One CBOR item: the self-described tag, then the value with sorted keys and definite lengths. */
export function encodeCbor(value: unknown): Uint8Array {
  const body = cborX().encoder.encode(sorted(value));
  const out = new Uint8Array(CBOR_SELF_DESCRIBED.length + body.length);
  out.set(CBOR_SELF_DESCRIBED);
  out.set(body, CBOR_SELF_DESCRIBED.length);
  return out;
}

/**
 * One CBOR item as JSON (with or without the self-described tag). Byte strings are read as
 * UTF-8 text (Kubernetes writes strings as byte strings); NaN, infinities, tags and anything
 * after the item are a 400.
 */
export function decodeCbor(body: Uint8Array): unknown {
  const start = body.length >= 3 && CBOR_SELF_DESCRIBED.every((b, i) => body[i] === b) ? 3 : 0;
  // cbor-x and toJson recurse once per level: the depth is checked on the bytes first.
  if (cborTooDeep(body, start, MAX_NESTING_DEPTH)) throw nestingTooDeep();
  let values: unknown[];
  try {
    values = cborX().decoder.decodeMultiple(Buffer.from(body.buffer, body.byteOffset + start, body.byteLength - start)) as unknown[];
  } catch (error) {
    throw badRequest(`the request body is not valid CBOR: ${(error as Error).message}`);
  }
  if (!Array.isArray(values) || values.length !== 1) throw badRequest('the request body must be exactly one CBOR item');
  return toJson(values[0], '');
}

const INDEFINITE = -1;

/**
 * Whether CBOR bytes nest arrays, maps and tags deeper than `limit`, in one pass with a stack of
 * the items each open container still expects. Malformed bytes answer false: the decoder then
 * says what is wrong with them.
 */
export function cborTooDeep(bytes: Uint8Array, start: number, limit: number): boolean {
  const open: number[] = [];
  // An item ended: its container expects one fewer; a container that got all of them ends too.
  const ended = () => {
    while (open.length > 0) {
      const top = open.length - 1;
      if (open[top] === INDEFINITE || --open[top]! > 0) return;
      open.pop();
    }
  };
  let pos = start;
  while (pos < bytes.length) {
    const initial = bytes[pos++]!;
    const major = initial >> 5;
    const info = initial & 0x1f;
    let argument = info;
    if (info >= 24 && info <= 27) {
      const size = 1 << (info - 24);
      if (pos + size > bytes.length) return false;
      argument = 0;
      for (let i = 0; i < size; i++) argument = argument * 256 + bytes[pos + i]!;
      pos += size;
    } else if (info >= 28 && info <= 30) {
      return false;
    }
    const indefinite = info === 31;
    if (major === 7 && indefinite) {
      if (open[open.length - 1] !== INDEFINITE) return false;
      open.pop();
      ended();
    } else if (major === 2 || major === 3) {
      if (indefinite) open.push(INDEFINITE);
      else {
        pos += argument;
        ended();
      }
    } else if (major === 4 || major === 5 || major === 6) {
      const items = indefinite ? INDEFINITE : major === 5 ? argument * 2 : major === 6 ? 1 : argument;
      if (items === 0) ended();
      else open.push(items);
    } else {
      ended();
    }
    if (open.length > limit) return true;
  }
  return false;
}

function toJson(value: unknown, path: string): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw badRequest(`the CBOR body holds a non-finite number at ${path || 'its root'}`);
    return value;
  }
  if (value instanceof Uint8Array) {
    try {
      return fromUtf8.decode(value);
    } catch {
      throw badRequest(`the CBOR body holds a byte string that is not UTF-8 at ${path || 'its root'}`);
    }
  }
  if (Array.isArray(value)) return value.map((item, i) => toJson(item, `${path}[${i}]`));
  if (value instanceof Map) {
    const out: JsonObject = {};
    for (const [key, item] of value) {
      const name = key instanceof Uint8Array ? fromUtf8.decode(key) : key;
      if (typeof name !== 'string') throw badRequest(`the CBOR body has a map key that is not a string at ${path || 'its root'}`);
      setField(out, name, toJson(item, path ? `${path}.${name}` : name));
    }
    return out;
  }
  if (isObject(value) && Object.getPrototypeOf(value) === Object.prototype) {
    const out: JsonObject = {};
    for (const [key, item] of Object.entries(value)) setField(out, key, toJson(item, path ? `${path}.${key}` : key));
    return out;
  }
  throw badRequest(`the CBOR body holds a value JSON cannot represent (a tag, undefined or a big number) at ${path || 'its root'}`);
}

/** application/cbor items, and application/cbor-seq watch streams (one tagged item per event). */
export const cborCodec: ValueCodec = {
  encode: (value) => encodeCbor(value),
  frame: (type, object) => encodeCbor({ type, object }),
};
