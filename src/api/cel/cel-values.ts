/**
 * JSON ↔ CEL values. CEL has distinct `int` and `double` types; JSON has one number. An integral
 * JSON number becomes a CEL int (a BigInt in the evaluator), as Kubernetes' schemas type replicas,
 * ports and counts, so `object.spec.replicas + 1` and `string(object.spec.replicas)` behave as
 * upstream. Everything else is shared as it is: maps are plain objects, lists arrays.
 */

const converted = new WeakMap<object, unknown>();

/** A decoded JSON value as CEL reads it; objects converted once each (admission's are frozen and shared). */
export function toCel(value: unknown): unknown {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : value;
  if (value === null || typeof value !== 'object') return value;
  const known = converted.get(value);
  if (known !== undefined) return known;
  let out: unknown;
  if (Array.isArray(value)) {
    out = value.map(toCel);
  } else {
    const map: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      // Keys are data: defineProperty keeps `__proto__` an own key, never a prototype.
      Object.defineProperty(map, key, { value: toCel((value as Record<string, unknown>)[key]), enumerable: true, writable: true, configurable: true });
    }
    out = map;
  }
  converted.set(value, out);
  return out;
}

/** A CEL result as JSON (audit annotations, messages): ints back to numbers where they fit. */
export function fromCel(value: unknown): unknown {
  if (typeof value === 'bigint') return Number.isSafeInteger(Number(value)) ? Number(value) : value.toString();
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(fromCel);
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (value instanceof Date) return value.toISOString();
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = fromCel((value as Record<string, unknown>)[key]);
  return out;
}
