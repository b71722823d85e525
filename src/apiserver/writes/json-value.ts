/** JSON values as the write paths handle them: the encoding layer's object test, and equality. */
import { hasField } from '../../api/index.js';
import { isObject as isJsonObject, type JsonObject } from '../../encoding/index.js';

export { isJsonObject, type JsonObject };

/** Structural equality of two JSON values (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => jsonEqual(item, b[i]));
  }
  if (isJsonObject(a) && isJsonObject(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((key) => hasField(b, key) && jsonEqual(a[key], b[key]));
  }
  return false;
}
