import protobuf from 'protobufjs';
import { isObject, type JsonObject } from '../json-value.js';
import { formatGoDuration, parseGoDuration, setField } from '../../api/index.js';
import { secondsTime } from './time-strings.js';
import { embeddedJsonBytes, sharedEmbeddedJson } from './shared-json.js';

/**
 * JSON objects ↔ protobuf messages, by walking the message's reflection. The value types whose
 * JSON differs from their message are converted here: Time and MicroTime (RFC 3339 strings),
 * Quantity and IntOrString (a string or a number), RawExtension and FieldsV1 (embedded JSON),
 * StringList (a bare array of strings in JSON, a message on the wire so that it can be a map
 * value), bytes (base64), and `...Inline` fields (Kubernetes' embedded structs, flat in JSON).
 */

const INLINE = 'Inline';
/** Go's zero time.Time (year 1) in Unix seconds. */
const GO_ZERO_TIME_SECONDS = -62135596800;
const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/** A value that JSON cannot carry where the message expects it: a 400 for a request body. */
export class ConversionError extends Error {}

function timeToMessage(value: unknown, path: string): JsonObject {
  if (typeof value !== 'string') throw new ConversionError(`${path}: expected an RFC 3339 time`);
  // `2026-11-28T09:00:00Z`: a whole second in UTC, the form the server writes its times in.
  const wholeSecond = value.length === WHOLE_SECOND_LENGTH;
  const known = wholeSecond ? secondMessages.get(value) : undefined;
  if (known !== undefined) return known;
  const match = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?(Z|[+-]\d\d:\d\d)$/.exec(value);
  const ms = match ? Date.parse(`${match[1]}${match[3]}`) : NaN;
  if (!match || Number.isNaN(ms)) throw new ConversionError(`${path}: ${JSON.stringify(value)} is not an RFC 3339 time`);
  const nanos = match[2] ? Number(match[2].padEnd(9, '0')) : 0;
  const message = { seconds: ms / 1000, ...(nanos ? { nanos } : {}) };
  if (wholeSecond) {
    if (secondMessages.size >= SECOND_MESSAGES) secondMessages.clear();
    secondMessages.set(value, Object.freeze(message));
  }
  return message;
}

/**
 * Whole-second times converted once, the last ones seen by their text (emptied when full): every
 * version of an object encodes its creation time and each managedFields entry's time again, and
 * the writes of one second share their entries' time. A regular expression, a Date.parse and an
 * object per time were spent on each (a Lease renewal's version has two such times). Frozen: the
 * encoder only reads them.
 */
const secondMessages = new Map<string, JsonObject>();
const SECOND_MESSAGES = 1024;
const WHOLE_SECOND_LENGTH = '2026-11-28T09:00:00Z'.length;

function timeFromMessage(message: JsonObject, micro: boolean): string | typeof ZERO_TIME {
  const seconds = toNumber(message['seconds']);
  const nanos = toNumber(message['nanos']);
  if ((seconds === 0 && nanos === 0) || seconds === GO_ZERO_TIME_SECONDS) return ZERO_TIME;
  if (!micro) return secondsTime(seconds);
  const base = new Date(seconds * 1000).toISOString().slice(0, 19);
  return `${base}.${String(Math.floor(nanos / 1000)).padStart(6, '0')}Z`;
}

function toNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  if (value && typeof value === 'object' && 'low' in value) {
    const long = value as unknown as { low: number; high: number; unsigned?: boolean };
    return long.high * 0x1_0000_0000 + (long.low >>> 0);
  }
  if (typeof value === 'string') return Number(value);
  return 0;
}

/**
 * A message type's full name, kept per type: protobufjs computes `fullName` on every read (a walk
 * up its namespaces and a join), and the conversion asks it for every message-typed value it
 * converts (~1.5 % of the API server's CPU in bench:endpointslice, the pods' watch frames).
 */
const fullNames = new WeakMap<protobuf.Type, string>();
function fullNameOf(type: protobuf.Type): string {
  let name = fullNames.get(type);
  if (name === undefined) fullNames.set(type, (name = type.fullName));
  return name;
}

/** Where a JSON key of a message goes: a field, reached through the `...Inline` fields in `via`. */
interface Slot {
  readonly field: protobuf.Field;
  readonly via: readonly protobuf.Field[];
}

/**
 * Each message's JSON keys → their fields, built once per message. Encoding then costs the keys
 * an object has, not the fields its message could have (a PodSpec has 42, a VolumeSource 30).
 */
const slotsByType = new WeakMap<protobuf.Type, ReadonlyMap<string, readonly Slot[]>>();

function slotsOf(type: protobuf.Type): ReadonlyMap<string, readonly Slot[]> {
  let slots = slotsByType.get(type);
  if (!slots) {
    const map = new Map<string, Slot[]>();
    const add = (t: protobuf.Type, via: readonly protobuf.Field[]) => {
      for (const field of t.fieldsArray) {
        field.resolve();
        if (field.name.endsWith(INLINE) && field.resolvedType instanceof protobuf.Type) add(field.resolvedType, [...via, field]);
        else map.set(field.name, [...(map.get(field.name) ?? []), { field, via }]);
      }
    };
    add(type, []);
    slots = map;
    slotsByType.set(type, slots);
  }
  return slots;
}

/** A JSON object as the plain object `type.encode` takes (every value in its wire form). */
export function toMessage(type: protobuf.Type, json: JsonObject, path = ''): JsonObject {
  const out: JsonObject = {};
  const slots = slotsOf(type);
  for (const key in json) {
    const value = json[key];
    if (value === undefined || value === null) continue;
    const targets = slots.get(key);
    if (!targets) continue;
    const at = path ? `${path}.${key}` : key;
    for (const { field, via } of targets) {
      let target = out;
      for (const inline of via) target = (target[inline.name] ??= {}) as JsonObject;
      target[field.name] = wireValue(field, value, at);
    }
  }
  return out;
}

function wireValue(field: protobuf.Field, value: unknown, at: string): unknown {
  if (field.map) {
    if (!isObject(value)) throw new ConversionError(`${at}: expected an object`);
    const entries: JsonObject = {};
    for (const key of Object.keys(value)) {
      const entry = value[key];
      if (entry !== null && entry !== undefined) setField(entries, key, fieldValue(field, entry, `${at}[${key}]`));
    }
    return entries;
  }
  if (field.repeated) {
    if (!Array.isArray(value)) throw new ConversionError(`${at}: expected an array`);
    return value.map((item, i) => fieldValue(field, item, `${at}[${i}]`));
  }
  return fieldValue(field, value, at);
}

function fieldValue(field: protobuf.Field, value: unknown, path: string): unknown {
  const message = field.resolvedType;
  if (message instanceof protobuf.Type) {
    switch (fullNameOf(message)) {
      case '.svc.meta.v1.Time':
      case '.svc.meta.v1.MicroTime':
        return timeToMessage(value, path);
      case '.svc.meta.v1.Duration': {
        const nanos = typeof value === 'string' ? parseGoDuration(value) : undefined;
        if (nanos === undefined) throw new ConversionError(`${path}: ${JSON.stringify(value)} is not a duration`);
        return { duration: nanos };
      }
      case '.svc.util.Quantity':
        if (typeof value !== 'string' && typeof value !== 'number') throw new ConversionError(`${path}: expected a quantity`);
        return { string: String(value) };
      case '.svc.util.IntOrString':
        if (typeof value === 'number') return { type: 0, intVal: value };
        if (typeof value === 'string') return { type: 1, strVal: value };
        throw new ConversionError(`${path}: expected an integer or a string`);
      case '.svc.runtime.RawExtension':
        return { raw: utf8.encode(JSON.stringify(value)) };
      case '.svc.meta.v1.FieldsV1':
        return { Raw: embeddedJsonBytes(value) };
      case '.svc.util.StringList':
        if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) throw new ConversionError(`${path}: expected an array of strings`);
        return { items: value };
    }
    if (!isObject(value)) throw new ConversionError(`${path}: expected an object`);
    return toMessage(message, value, path);
  }
  switch (field.type) {
    case 'string':
      if (typeof value !== 'string') throw new ConversionError(`${path}: expected a string`);
      return value;
    case 'bool':
      if (typeof value !== 'boolean') throw new ConversionError(`${path}: expected a boolean`);
      return value;
    case 'bytes':
      if (typeof value !== 'string') throw new ConversionError(`${path}: expected base64 data`);
      return Buffer.from(value, 'base64');
    default:
      if (typeof value !== 'number' || !Number.isInteger(value)) throw new ConversionError(`${path}: expected an integer`);
      return value;
  }
}

/**
 * A decoded message as JSON (fields that were not on the wire are left out). `sharedJson`: a
 * FieldsV1 whose text is that of a value this process shares (shared-json.ts) is that value.
 */
export function fromMessage(type: protobuf.Type, message: JsonObject, sharedJson = false): JsonObject {
  const out: JsonObject = {};
  // The decoder's own properties are the fields on the wire (and the empty lists and maps it
  // starts with); every other field is a prototype default and is skipped without a lookup.
  for (const name of Object.keys(message)) {
    const field = type.fields[name];
    const value = message[name];
    if (!field || value === undefined || value === null) continue;
    if (name.endsWith(INLINE) && field.resolvedType instanceof protobuf.Type) {
      Object.assign(out, fromMessage(field.resolvedType, value as JsonObject, sharedJson));
    } else if (field.map) {
      // Empty maps and lists are not on the wire (the decoder's defaults): JSON leaves them out too.
      const entries = Object.entries(value as JsonObject);
      if (entries.length > 0) out[name] = Object.fromEntries(entries.map(([key, entry]) => [key, jsonValue(field, entry, sharedJson)]));
    } else if (field.repeated) {
      if ((value as unknown[]).length > 0) out[name] = (value as unknown[]).map((item) => jsonValue(field, item, sharedJson));
    } else {
      const json = jsonValue(field, value, sharedJson);
      // Go writes its zero values (an empty string, the zero time) where JSON leaves the field out.
      if (json !== '' && json !== ZERO_TIME) out[name] = json;
    }
  }
  return out;
}

/** What a Time without seconds and nanos, or Go's zero time, reads as: left out. */
const ZERO_TIME = Symbol('zero time');

function jsonValue(field: protobuf.Field, value: unknown, sharedJson: boolean): unknown {
  const message = field.resolvedType;
  if (message instanceof protobuf.Type) {
    const m = value as JsonObject;
    switch (fullNameOf(message)) {
      case '.svc.meta.v1.Time':
        return timeFromMessage(m, false);
      case '.svc.meta.v1.MicroTime':
        return timeFromMessage(m, true);
      case '.svc.meta.v1.Duration':
        return formatGoDuration(toNumber(m['duration']));
      case '.svc.util.Quantity':
        return typeof m['string'] === 'string' ? m['string'] : '';
      case '.svc.util.IntOrString':
        return toNumber(m['type']) === 1 ? (m['strVal'] ?? '') : toNumber(m['intVal']);
      case '.svc.runtime.RawExtension':
        return embeddedJson(m['raw'], false);
      case '.svc.meta.v1.FieldsV1':
        return embeddedJson(m['Raw'], sharedJson);
      case '.svc.util.StringList':
        return Array.isArray(m['items']) ? m['items'] : [];
    }
    return fromMessage(message, m, sharedJson);
  }
  switch (field.type) {
    case 'bytes':
      return Buffer.from(value as Uint8Array).toString('base64');
    case 'string':
    case 'bool':
      return value;
    default:
      return toNumber(value);
  }
}

function embeddedJson(raw: unknown, sharedJson: boolean): unknown {
  if (!(raw instanceof Uint8Array) || raw.length === 0) return null;
  const text = fromUtf8.decode(raw);
  const known = sharedJson ? sharedEmbeddedJson(text) : undefined;
  if (known !== undefined) return known;
  try {
    return JSON.parse(text);
  } catch {
    throw new ConversionError('an embedded object is not JSON');
  }
}
