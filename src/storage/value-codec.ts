import { corrupt, invalid } from './storage-error.js';

/**
 * How a store turns values into bytes and back. `decode` throws on bytes it cannot read; the
 * store turns that into `StorageError('Corrupt')` naming the key. `check` rejects a value of the
 * wrong type before anything is written.
 */
export interface ValueCodec<V> {
  check(value: unknown): V;
  encode(value: V): Uint8Array;
  decode(bytes: Uint8Array): V;
}

/** Values are raw bytes: what the API server stores (it keeps each object's encoded bytes). */
export const bytesCodec: ValueCodec<Uint8Array> = {
  check(value) {
    if (!(value instanceof Uint8Array)) throw invalid('value must be a Uint8Array');
    return value;
  },
  encode: (value) => value,
  decode: (bytes) => bytes,
};

const utf8 = new TextDecoder('utf-8', { fatal: true });
const utf8Encoder = new TextEncoder();

/** Values are JSON documents; bytes that are not JSON are corrupt. */
export function jsonCodec<T>(): ValueCodec<T> {
  return {
    check(value) {
      if (value === undefined || typeof value === 'function' || typeof value === 'symbol') {
        throw invalid('value must be JSON-serializable');
      }
      return value as T;
    },
    encode: (value) => utf8Encoder.encode(JSON.stringify(value)),
    decode: (bytes) => JSON.parse(utf8.decode(bytes)) as T,
  };
}

/** A stored value, decoded; bytes the codec cannot read are `StorageError('Corrupt')` naming the key. */
export function decodeStored<V>(codec: ValueCodec<V>, key: string, bytes: Uint8Array): V {
  try {
    return codec.decode(bytes);
  } catch (error) {
    throw corrupt(key, error);
  }
}

/**
 * A stored value, or `{ ok: false }` when it does not decode: for the previous value of a delete
 * event, which must go out even when that value is corrupt (forceDelete exists for such values).
 */
export function tryDecodeStored<V>(codec: ValueCodec<V>, bytes: Uint8Array): { ok: true; value: V } | { ok: false } {
  try {
    return { ok: true, value: codec.decode(bytes) };
  } catch {
    return { ok: false };
  }
}
