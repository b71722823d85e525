/** Freezes a decoded JSON value and everything in it: admission shares these between requests. */
export function deepFreezeObject<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  Object.freeze(value);
  for (const key of Object.keys(value)) deepFreezeObject((value as Record<string, unknown>)[key]);
  return value;
}
