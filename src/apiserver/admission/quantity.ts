import { quantityValue } from '../../api/index.js';

/**
 * Resource quantities ("500m", "1Gi", "2e3", 3) as integer milli-units, the precision admission
 * compares and sums in (a quantity finer than 1m rounds to the nearest milli-unit). Numbers stay
 * exact up to 2^53 milli-units: 9 PB of storage, 9 billion cores.
 */

/** Milli-units of a quantity; undefined for anything that is not one. */
export function parseQuantity(value: unknown): number | undefined {
  const units = quantityValue(value);
  return units === undefined ? undefined : Math.round(units * 1000);
}

const BINARY: readonly [string, number][] = [['Ei', 2 ** 60], ['Pi', 2 ** 50], ['Ti', 2 ** 40], ['Gi', 2 ** 30], ['Mi', 2 ** 20], ['Ki', 2 ** 10]];

/** Milli-units back to a canonical quantity: `250m`, `2`, `1Gi` (a whole multiple of a binary unit). */
export function formatQuantity(milli: number): string {
  if (milli % 1000 !== 0) return `${milli}m`;
  const units = milli / 1000;
  for (const [suffix, size] of BINARY) if (units !== 0 && units % size === 0) return `${units / size}${suffix}`;
  return String(units);
}
