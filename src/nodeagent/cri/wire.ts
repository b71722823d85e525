/**
 * Encoding and decoding of CRI messages with protobufjs, from the embedded proto source. Decoded
 * messages become plain objects with every field present, enum names, and `bigint` for 64-bit
 * integers (protobufjs gives Long objects or strings; neither is safe to compute with).
 */
import protobuf from 'protobufjs';
import { codecsOnFirstUse } from '../../encoding/index.js';
import { CRI_PROTO } from './api-proto.js';

const root = protobuf.parse(CRI_PROTO, { keepCase: false }).root;
root.resolveAll();
// The agent calls four of each message's five generated functions, on half of the messages.
for (const nested of root.lookupService('runtime.v1.RuntimeService').parent!.nestedArray) if (nested instanceof protobuf.Type) codecsOnFirstUse(nested);

const LONG_TYPES = new Set(['int64', 'uint64', 'sint64', 'fixed64', 'sfixed64']);

export function messageType(name: string): protobuf.Type {
  return root.lookupType(`runtime.v1.${name}`);
}

export function serviceMethods(service: 'RuntimeService' | 'ImageService'): readonly protobuf.Method[] {
  return root.lookupService(`runtime.v1.${service}`).methodsArray;
}

/**
 * bigints become decimal strings, which protobufjs accepts for every 64-bit field, and undefined
 * properties are left out (protobufjs would write a map's undefined value as "undefined"). Copied
 * only where something changes: a request with no bigint is handed over as it is, where a copy of
 * every object was the in-process runtime's largest cost per CRI call.
 */
function toWireValues(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object' || value instanceof Uint8Array) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const wire = toWireValues(item);
      if (wire !== item) (copy ??= value.slice())[i] = wire;
    }
    return copy ?? value;
  }
  const record = value as Record<string, unknown>;
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(record)) {
    const v = record[key];
    if (v === undefined) {
      copy ??= { ...record };
      delete copy[key];
      continue;
    }
    const wire = toWireValues(v);
    if (wire !== v) (copy ??= { ...record })[key] = wire;
  }
  return copy ?? record;
}

export function encodeMessage(type: protobuf.Type, value: object): Buffer {
  const message = type.fromObject(toWireValues(value) as Record<string, unknown>);
  const bytes = type.encode(message).finish();
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function longsToBigInt(type: protobuf.Type, object: Record<string, unknown>): void {
  for (const field of type.fieldsArray) {
    const value = object[field.name];
    if (value === null || value === undefined) continue;
    const nested = field.resolvedType instanceof protobuf.Type ? field.resolvedType : undefined;
    const isLong = LONG_TYPES.has(field.type);
    if (!nested && !isLong) continue;
    const convert = (v: unknown): unknown => {
      if (nested) {
        if (v !== null && typeof v === 'object') longsToBigInt(nested, v as Record<string, unknown>);
        return v;
      }
      return BigInt(String(v));
    };
    if (field instanceof protobuf.MapField) {
      const map = value as Record<string, unknown>;
      for (const key of Object.keys(map)) map[key] = convert(map[key]);
    } else if (field.repeated) {
      object[field.name] = (value as unknown[]).map(convert);
    } else {
      object[field.name] = convert(value);
    }
  }
}

export function decodeMessage<T>(type: protobuf.Type, bytes: Uint8Array): T {
  const message = type.decode(bytes);
  const object = type.toObject(message, { longs: String, enums: String, defaults: true, arrays: true, objects: true });
  longsToBigInt(type, object);
  return object as T;
}

/**
 * A message value in the shape `decodeMessage` gives, without the bytes in between: every field
 * present, enum names, bigints. For a runtime in the same process (the simulated one), whose
 * answers must look exactly like ones that came over the wire.
 */
export function shapeMessage<T>(type: protobuf.Type, value: object): T {
  const object = type.toObject(type.fromObject(toWireValues(value) as Record<string, unknown>), { longs: String, enums: String, defaults: true, arrays: true, objects: true });
  longsToBigInt(type, object);
  return object as T;
}
