/**
 * Resource quantities ("500m", "1Gi", "2e3", or a bare JSON number) as numbers in their base unit
 * (cores, bytes, pods). One reader for every part that computes with them: admission (limits,
 * quota), the scheduler (requests against allocatable), the node agent (capacity, reservations)
 * and the QoS class of a pod. Each rounds to the precision it needs.
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
