import { badRequest } from '../../api/index.js';
import { flagQuantity } from './capacity-units.js';

/** The signals a hard threshold can name that the node status uses. */
export type PressureSignal = 'memory.available' | 'nodefs.available' | 'imagefs.available' | 'pid.available';

/** A threshold: an absolute amount, or a share of the signal's capacity. */
export type Threshold = { readonly quantity: number } | { readonly percentage: number };

/** The kubelet's defaults on Linux, used when `--eviction-hard` is empty. */
export const DEFAULT_EVICTION_HARD: Readonly<Record<string, string>> = Object.freeze({
  'memory.available': '100Mi',
  'nodefs.available': '10%',
  'nodefs.inodesFree': '5%',
  'imagefs.available': '15%',
});

const USED: ReadonlySet<string> = new Set<PressureSignal>(['memory.available', 'nodefs.available', 'imagefs.available', 'pid.available']);

/**
 * Parses `--eviction-hard` into the thresholds the node status acts on. An empty map means the
 * defaults; a given map is taken as it is (unnamed signals have no threshold). Inode signals are
 * accepted but not used: the node reports no inode figures.
 */
export function hardThresholds(evictionHard: Readonly<Record<string, string>>): ReadonlyMap<PressureSignal, Threshold> {
  const given = Object.keys(evictionHard).length === 0 ? DEFAULT_EVICTION_HARD : evictionHard;
  const out = new Map<PressureSignal, Threshold>();
  for (const [signal, text] of Object.entries(given)) {
    if (!USED.has(signal)) continue;
    const value = text.trim();
    if (value.endsWith('%')) {
      const percentage = Number(value.slice(0, -1));
      if (!Number.isFinite(percentage) || percentage < 0 || percentage > 100 || value === '%') {
        throw badRequest(`--eviction-hard: ${signal}=${value}: a percentage must be between 0% and 100%`);
      }
      out.set(signal as PressureSignal, { percentage });
    } else {
      out.set(signal as PressureSignal, { quantity: flagQuantity(value, `--eviction-hard ${signal}`) });
    }
  }
  return out;
}

/** The threshold in the signal's units, given the capacity a percentage refers to; 0 without one. */
export function thresholdAmount(threshold: Threshold | undefined, capacity: number): number {
  if (threshold === undefined) return 0;
  return 'quantity' in threshold ? threshold.quantity : Math.ceil((capacity * threshold.percentage) / 100);
}
