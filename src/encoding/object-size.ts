import { requestEntityTooLarge, type StatusError } from '../api/index.js';

/**
 * The largest object the server stores, as JSON bytes: etcd's default request limit (1.5 MiB),
 * which svc keeps for every backend so that what one backend accepts the others do too.
 */
export const MAX_OBJECT_BYTES = 1.5 * 1024 * 1024;

export function objectTooLarge(bytes: number | string, limit = MAX_OBJECT_BYTES): StatusError {
  const size = typeof bytes === 'number' ? `${bytes} bytes` : bytes;
  return requestEntityTooLarge(`the object would be ${size} stored, more than the limit of ${limit} bytes (etcdserver: request is too large)`);
}

/**
 * A lower bound of a decoded value's JSON length in bytes (strings count one byte per UTF-16 unit,
 * numbers one byte), summed in one walk with an explicit stack that stops once it passes `cap`
 * (the answer is then just over `cap`). Cheap enough to run before the walks that cost per field
 * (validation, field sets), so an object that could never be stored is refused first.
 */
export function jsonSizeUpTo(value: unknown, cap: number): number {
  let size = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0 && size <= cap) {
    const current = stack.pop();
    if (typeof current === 'string') size += current.length + 2;
    else if (current === null || typeof current !== 'object') size += current === undefined ? 0 : 1;
    else if (Array.isArray(current)) {
      size += 1 + current.length;
      for (const item of current) stack.push(item);
    } else {
      const keys = Object.keys(current);
      size += 1 + keys.length;
      for (const key of keys) {
        size += key.length + 3;
        stack.push((current as Record<string, unknown>)[key]);
      }
    }
  }
  return size;
}

/**
 * A lower bound of the compact JSON length of JSON text: its characters without the whitespace
 * between tokens, an escape counted as one character. One pass with no allocation, so an object
 * body that could never be stored is refused before it is even parsed.
 */
export function jsonTextLengthAtLeast(text: string): number {
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (ch === 0x22 /* " */) {
      length += 2;
      for (i++; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c === 0x22) break;
        if (c === 0x5c /* \ */) i += text.charCodeAt(i + 1) === 0x75 /* u */ ? 5 : 1;
        length++;
      }
    } else if (ch !== 0x20 && ch !== 0x0a && ch !== 0x0d && ch !== 0x09) {
      length++;
    }
  }
  return length;
}

/** Whether a decoded value's JSON is surely longer than `limit` bytes. */
export const jsonSizeExceeds = (value: unknown, limit = MAX_OBJECT_BYTES): boolean => jsonSizeUpTo(value, limit) > limit;

/** Throws the 413 when a decoded object can only be larger than the store takes. */
export function requireStorableSize(value: unknown, limit = MAX_OBJECT_BYTES): void {
  if (jsonSizeExceeds(value, limit)) throw objectTooLarge(`more than ${limit} bytes`, limit);
}
