// Resource quantities in the page. The project's reader (src/api/quantity.ts) cannot come in:
// the page may import src/api only through its index.ts, which loads zod and node: modules no
// browser bundle can hold. So the page keeps this copy of the grammar;
// test/dashboard/ui-quantity.test.ts checks that it reads every quantity as src/api does.

const SCALE: Readonly<Record<string, number>> = {
  '': 1, n: 1e-9, u: 1e-6, m: 1e-3, k: 1e3, M: 1e6, G: 1e9, T: 1e12, P: 1e15, E: 1e18,
  Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40, Pi: 2 ** 50, Ei: 2 ** 60,
};

const QUANTITY = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:[eE]([-+]?\d+)|([numkMGTPE]|[KMGTPE]i))?$/;

/**
 * Milli-units of a quantity rounded up, as Kubernetes' `MilliValue` (what `kubectl describe node`
 * sums): `1` cpu is 1000, `1Ki` 1 024 000; 0 for anything that is not a quantity.
 */
export function milliValue(quantity: unknown): number {
  let units: number | undefined;
  if (typeof quantity === 'number') units = Number.isFinite(quantity) ? quantity : undefined;
  else if (typeof quantity === 'string') {
    const match = QUANTITY.exec(quantity.trim());
    if (match) {
      const [, digits, exponent, suffix] = match;
      units = Number(digits) * (exponent !== undefined ? 10 ** Number(exponent) : SCALE[suffix ?? '']!);
    }
  }
  if (units === undefined) return 0;
  // Float noise (0.1 * 1000) is rounded away before rounding up.
  return Math.ceil(Math.round(units * 1000 * 1e6) / 1e6);
}

const SUFFIXES: readonly [string, number][] = [
  ['Ei', 2 ** 60], ['Pi', 2 ** 50], ['Ti', 2 ** 40], ['Gi', 2 ** 30], ['Mi', 2 ** 20], ['Ki', 2 ** 10],
  ['T', 1e12], ['G', 1e9], ['M', 1e6], ['k', 1e3],
];

/** Milli-units as a short quantity: `250m`, `2`, `1Gi`, `500M` (the largest unit it is a whole multiple of). */
export function formatMilli(milli: number): string {
  if (milli % 1000 !== 0) return `${milli}m`;
  const units = milli / 1000;
  for (const [suffix, size] of SUFFIXES) if (units !== 0 && units % size === 0) return `${units / size}${suffix}`;
  return String(units);
}
