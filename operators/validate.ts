// Option checks shared by the operators. A bad option is a programmer error: a plain RangeError or
// TypeError thrown when the operator is created, never when it is subscribed.

/** Throws a RangeError unless `value` is a number > 0 (Infinity allowed when `finite` is false). */
export function requirePositive(name: string, value: number, finite = false): number {
  if (typeof value !== 'number' || Number.isNaN(value) || value <= 0 || (finite && !Number.isFinite(value))) {
    throw new RangeError(`${name} must be a ${finite ? 'finite ' : ''}number > 0, got ${String(value)}`);
  }
  return value;
}

/** Throws a RangeError unless `value` is a number >= 0 and finite. */
export function requireNonNegative(name: string, value: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new RangeError(`${name} must be a finite number >= 0, got ${String(value)}`);
  }
  return value;
}

/** Throws a RangeError unless `value` is an integer >= 1 (or Infinity when `allowInfinity`). */
export function requireCount(name: string, value: number, allowInfinity = false): number {
  if (allowInfinity && value === Infinity) return value;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new RangeError(`${name} must be an integer >= 1, got ${String(value)}`);
  }
  return value;
}

/** Throws a TypeError unless `value` is a function. */
export function requireFunction<F>(name: string, value: F): F {
  if (typeof value !== 'function') throw new TypeError(`${name} must be a function, got ${typeof value}`);
  return value;
}
