import { ownField, setField } from '../../api/index.js';
import { isJsonObject } from './json-value.js';

/**
 * RFC 7386 JSON merge patch: an object patch merges into the target key by key, `null` removes a
 * key, anything else (arrays included) replaces the target's value. Neither input is changed.
 * Keys are data (`__proto__` too): no prototype is read or set.
 */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isJsonObject(patch)) return patch;
  const result: Record<string, unknown> = isJsonObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else setField(result, key, applyMergePatch(ownField(result, key), value));
  }
  return result;
}
