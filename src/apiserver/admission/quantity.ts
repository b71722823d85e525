/**
 * Resource quantities ("500m", "1Gi", "2e3", 3) as integer milli-units, the precision admission
 * compares and sums in (a quantity finer than 1m rounds to the nearest milli-unit). Numbers stay
 * exact up to 2^53 milli-units: 9 PB of storage, 9 billion cores.
 */

const SUFFIX: Readonly<Record<string, number>> = {
  '': 1, n: 1e-9, u: 1e-6, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};
const QUANTITY = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][-+]?\d+)|([numkMGTPE]|[KMGTPE]i))?$/;

/** Milli-units of a quantity; undefined for anything that is not one. */
export function parseQuantity(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? Math.round(value * 1000) : undefined;
  if (typeof value !== 'string') return undefined;
  const match = QUANTITY.exec(value.trim());
  if (!match) return undefined;
  const [, digits, exponent, suffix] = match;
  const scale = exponent !== undefined ? 10 ** Number(exponent.slice(1)) : SUFFIX[suffix ?? '']!;
  return Math.round(Number(digits) * scale * 1000);
}

const BINARY: readonly [string, number][] = [['Ei', 2 ** 60], ['Pi', 2 ** 50], ['Ti', 2 ** 40], ['Gi', 2 ** 30], ['Mi', 2 ** 20], ['Ki', 2 ** 10]];

/** Milli-units back to a canonical quantity: `250m`, `2`, `1Gi` (a whole multiple of a binary unit). */
export function formatQuantity(milli: number): string {
  if (milli % 1000 !== 0) return `${milli}m`;
  const units = milli / 1000;
  for (const [suffix, size] of BINARY) if (units !== 0 && units % size === 0) return `${units / size}${suffix}`;
  return String(units);
}
