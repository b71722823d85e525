/**
 * Resource quantities ("500m", "1Gi", "2e3", or a bare JSON number): the one reader of the
 * grammar, and the units every part computes in. `quantityValue` gives the base unit (cores,
 * bytes, pods); the milli-unit readers give integers that sum without float drift (exact up to
 * 2^53 milli-units: 9 PB of storage, 9 billion cores). Who uses which: admission (limits, quota)
 * `milliQuantity` and `formatMilliQuantity`; the scheduler `milliValue`; the node agent and the
 * QoS class `quantityValue`; flags that take a size `quantityBytes`; the dashboard page
 * `milliValue` and `formatMilliShort`. It imports nothing, so the page's browser bundle holds it.
 */

const SCALE: Readonly<Record<string, number>> = {
  '': 1, n: 1e-9, u: 1e-6, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};

// The grammar of quantitySchema (kinds/common.ts): digits, then an exponent or one suffix.
const QUANTITY = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:[eE]([-+]?\d+)|([numkMGTPE]|[KMGTPE]i))?$/;

/** The value of a quantity in its base unit; undefined for anything that is not a quantity. */
export function quantityValue(quantity: unknown): number | undefined {
  if (typeof quantity === 'number') return Number.isFinite(quantity) ? quantity : undefined;
  if (typeof quantity !== 'string') return undefined;
  const match = QUANTITY.exec(quantity.trim());
  if (!match) return undefined;
  const [, digits, exponent, suffix] = match;
  return Number(digits) * (exponent !== undefined ? 10 ** Number(exponent) : SCALE[suffix ?? '']!);
}

/** A size in bytes ("64Ki", "1Mi", "65536"): a whole, non-negative number; undefined otherwise. */
export function quantityBytes(quantity: unknown): number | undefined {
  const bytes = quantityValue(quantity);
  return bytes !== undefined && bytes >= 0 && Number.isInteger(bytes) ? bytes : undefined;
}

/**
 * Milli-units of a quantity, rounded to the nearest (what admission compares and sums); undefined
 * for anything that is not one.
 */
export function milliQuantity(quantity: unknown): number | undefined {
  const units = quantityValue(quantity);
  return units === undefined ? undefined : Math.round(units * 1000);
}

/**
 * Milli-units rounded up, as Kubernetes' `MilliValue` rounds a request (the scheduler's unit: `1`
 * cpu is 1000, `1Ki` of memory 1 024 000); 0 for anything that is not a quantity — the API server
 * validated the objects, so that only happens for fields a schema keeps loose.
 */
export function milliValue(quantity: unknown): number {
  const units = quantityValue(quantity);
  if (units === undefined) return 0;
  // Round away float noise (0.1 * 1000) before rounding up.
  return Math.ceil(Math.round(units * 1000 * 1e6) / 1e6);
}

const BINARY: readonly [string, number][] = [['Ei', 2 ** 60], ['Pi', 2 ** 50], ['Ti', 2 ** 40], ['Gi', 2 ** 30], ['Mi', 2 ** 20], ['Ki', 2 ** 10]];
const BINARY_AND_DECIMAL: readonly [string, number][] = [...BINARY, ['T', 1e12], ['G', 1e9], ['M', 1e6], ['k', 1e3]];

function formatMilli(milli: number, units: readonly [string, number][]): string {
  if (milli % 1000 !== 0) return `${milli}m`;
  const whole = milli / 1000;
  for (const [suffix, size] of units) if (whole !== 0 && whole % size === 0) return `${whole / size}${suffix}`;
  return String(whole);
}

/** Milli-units back to a canonical quantity: `250m`, `2`, `1Gi` (a whole multiple of a binary unit). */
export function formatMilliQuantity(milli: number): string {
  return formatMilli(milli, BINARY);
}

/**
 * Milli-units as people read them (the dashboard's figures): `250m`, `2`, `1Gi`, `500M` — the
 * largest unit, binary first, then decimal, that the value is a whole multiple of.
 */
export function formatMilliShort(milli: number): string {
  return formatMilli(milli, BINARY_AND_DECIMAL);
}
