/**
 * Resource quantities ("500m", "1Gi", "2e3", 3) as integer milli-units, the one unit the scheduler
 * adds and compares in: `1` cpu is 1000, `1Ki` of memory is 1 024 000. Milli-units keep sums exact
 * (no float drift across thousands of pods) and stay below 2^53 up to about 9 PB.
 */

const SUFFIX: Readonly<Record<string, number>> = {
  '': 1,
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

const QUANTITY = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][-+]?\d+)|([numkMGTPE]i?|[KMGTPE]i)?)$/;

/**
 * The quantity in milli-units, rounded up (as Kubernetes' `MilliValue` rounds a request up); 0 for
 * anything that is not a quantity — the API server validated the objects, so that only happens
 * for fields a schema keeps loose.
 */
export function milliValue(quantity: unknown): number {
  if (typeof quantity === 'number') return Number.isFinite(quantity) ? Math.ceil(quantity * 1000) : 0;
  if (typeof quantity !== 'string') return 0;
  const match = QUANTITY.exec(quantity.trim());
  if (!match) return 0;
  const number = Number(match[1]);
  const scale = match[2] !== undefined ? 10 ** Number(match[2].slice(1)) : (SUFFIX[match[3] ?? ''] ?? 1);
  // Round away float noise (0.1 * 1000) before rounding up.
  const milli = Math.round(number * scale * 1000 * 1e6) / 1e6;
  return Math.ceil(milli);
}
