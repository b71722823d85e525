/** JSON values as the write paths handle them: the encoding layer's object test, and equality. */
import { hasField } from '../../api/index.js';
import { isObject as isJsonObject, type JsonObject } from '../../encoding/index.js';

export { isJsonObject, type JsonObject };

/**
 * Structural equality of two JSON values (key order ignored). Plain loops, not `every` with a
 * closure: every write compares its spec with the stored one, and a closure per level was most of
 * what the comparison allocated.
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEqual(a[i], b[i])) return false;
    return true;
  }
  if (isJsonObject(a) && isJsonObject(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      if (!hasField(b, key) || !jsonEqual(a[key], b[key])) return false;
    }
    return true;
  }
  return false;
}
