/**
 * JSON ↔ CEL values. CEL has distinct `int` and `double` types; JSON has one number. An integral
 * JSON number becomes a CEL int (a BigInt in the evaluator), as Kubernetes' schemas type replicas,
 * ports and counts, so `object.spec.replicas + 1` and `string(object.spec.replicas)` behave as
 * upstream. Everything else is shared as it is: maps are plain objects, lists arrays.
 */

const converted = new WeakMap<object, unknown>();

/**
 * A decoded JSON value as CEL reads it. A whole object is converted once (admission's are frozen
 * and shared between requests and policies); only the root is remembered, since an entry per
 * nested object costs the collector more than converting again.
 */
export function toCel(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return convert(value);
  const known = converted.get(value);
  if (known !== undefined) return known;
  const out = convert(value);
  converted.set(value, out);
  return out;
}

function convert(value: unknown): unknown {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? BigInt(value) : value;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(convert);
  const map: Record<string, unknown> = {};
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    const item = convert((value as Record<string, unknown>)[key]);
    // Keys are data: `__proto__` stays an own key, never a prototype (the one key plain assignment would not keep).
    if (key === '__proto__') Object.defineProperty(map, key, { value: item, enumerable: true, writable: true, configurable: true });
    else map[key] = item;
  }
  return map;
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
