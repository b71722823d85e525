/**
 * Fields of decoded JSON objects, read and written as data. A body may carry any key, `__proto__`
 * and `constructor` included (they are ordinary keys in Kubernetes' JSON): reading one must never
 * answer an inherited member (`{}.constructor` is Object), and writing one must never set an
 * object's prototype (`o['__proto__'] = v` does).
 */

type Fields = Record<string, unknown>;

/** The object's own field `key`; undefined when it has none (inherited members are not fields). */
export const ownField = (object: Readonly<Fields>, key: string): unknown => (Object.hasOwn(object, key) ? object[key] : undefined);

/** Whether the object has its own field `key`. */
export const hasField = (object: Readonly<Fields>, key: string): boolean => Object.hasOwn(object, key);

/** Sets the field `key` to `value` as data; `__proto__` becomes an own field, never the prototype. */
export function setField(object: Fields, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
  else object[key] = value;
}
