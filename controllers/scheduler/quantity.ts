import { quantityValue } from '../../src/api/index.js';

/**
 * Resource quantities ("500m", "1Gi", "2e3", 3) as integer milli-units, the one unit the scheduler
 * adds and compares in: `1` cpu is 1000, `1Ki` of memory is 1 024 000. Milli-units keep sums exact
 * (no float drift across thousands of pods) and stay below 2^53 up to about 9 PB.
 */

/**
 * The quantity in milli-units, rounded up (as Kubernetes' `MilliValue` rounds a request up); 0 for
 * anything that is not a quantity — the API server validated the objects, so that only happens
 * for fields a schema keeps loose.
 */
export function milliValue(quantity: unknown): number {
  const units = quantityValue(quantity);
  if (units === undefined) return 0;
  // Round away float noise (0.1 * 1000) before rounding up.
  return Math.ceil(Math.round(units * 1000 * 1e6) / 1e6);
}
