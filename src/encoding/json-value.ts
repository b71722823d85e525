/** A decoded JSON object, and safe readers for the nested fields the views look at. */
export type JsonObject = { [field: string]: unknown };

export const isObject = (value: unknown): value is JsonObject =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The value at a dotted path; undefined when any step is missing or not an object. */
export function at(object: unknown, path: string): unknown {
  let current = object;
  for (const key of path.split('.')) {
    if (!isObject(current)) return undefined;
    current = current[key];
  }
  return current;
}

export const str = (object: unknown, path: string): string | undefined => {
  const value = at(object, path);
  return typeof value === 'string' ? value : undefined;
};

export const num = (object: unknown, path: string): number => {
  const value = at(object, path);
  return typeof value === 'number' ? value : 0;
};

export const arr = (object: unknown, path: string): unknown[] => {
  const value = at(object, path);
  return Array.isArray(value) ? value : [];
};

export const obj = (object: unknown, path: string): JsonObject => {
  const value = at(object, path);
  return isObject(value) ? value : {};
};

const utf8 = new TextDecoder();

/** Parses an object's JSON bytes (the server's cached bytes are always an object). */
export function parseObject(bytes: Uint8Array): JsonObject {
  const value: unknown = JSON.parse(utf8.decode(bytes));
  if (!isObject(value)) throw new Error('expected a JSON object');
  return value;
}
