import { badRequest } from '../../api/index.js';
import { DEFAULT_EVICTION_HARD, flagQuantity } from '../node/index.js';

/** The signals the eviction manager observes (the kubelet's names). */
export type EvictionSignal = 'memory.available' | 'nodefs.available' | 'nodefs.inodesFree' | 'imagefs.available' | 'imagefs.inodesFree' | 'pid.available';

export const EVICTION_SIGNALS: readonly EvictionSignal[] = ['memory.available', 'nodefs.available', 'nodefs.inodesFree', 'imagefs.available', 'imagefs.inodesFree', 'pid.available'];

/** An amount of a signal: absolute (bytes, inodes, pids) or a share of the signal's capacity. */
export type SignalAmount = { readonly quantity: number } | { readonly percentage: number };

/** One threshold: the signal is met when its available amount falls below `value`. */
export interface EvictionThreshold {
  readonly signal: EvictionSignal;
  readonly value: SignalAmount;
  /** 0 for a hard threshold: it acts as soon as it is observed. */
  readonly gracePeriodMs: number;
  readonly hard: boolean;
  /** `--eviction-minimum-reclaim`: how far below the threshold reclaim must go before it stops. */
  readonly minReclaim: SignalAmount | undefined;
}

/** The eviction options, as the daemon resolved them (grace periods already in ms). */
export interface EvictionFlags {
  /** `--eviction-hard`; empty: the kubelet's Linux defaults. */
  readonly evictionHard: Readonly<Record<string, string>>;
  readonly evictionSoft: Readonly<Record<string, string>>;
  /** `--eviction-soft-grace-period`, signal → ms. */
  readonly evictionSoftGracePeriodMs: Readonly<Record<string, number>>;
  readonly evictionMinimumReclaim: Readonly<Record<string, string>>;
}

const isSignal = (name: string): name is EvictionSignal => (EVICTION_SIGNALS as readonly string[]).includes(name);

/** `10%` or a quantity (`100Mi`, `1000` inodes or pids); a 400 Status for anything else. */
export function signalAmount(text: string, what: string): SignalAmount {
  const value = text.trim();
  if (value.endsWith('%')) {
    const percentage = Number(value.slice(0, -1));
    if (value === '%' || !Number.isFinite(percentage) || percentage < 0 || percentage > 100) throw badRequest(`${what}=${value}: a percentage must be between 0% and 100%`);
    return { percentage };
  }
  return { quantity: flagQuantity(value, what) };
}

/** The amount in the signal's units, given the capacity a percentage refers to. */
export const amountOf = (amount: SignalAmount, capacity: number): number =>
  'quantity' in amount ? amount.quantity : Math.ceil((capacity * amount.percentage) / 100);

/**
 * The thresholds of the eviction options, hard then soft. As the kubelet: an empty
 * `--eviction-hard` means its defaults; a soft threshold needs a grace period; signals the agent
 * does not observe (containerfs.*) are left out; a minimum reclaim applies to both kinds.
 */
export function evictionThresholds(flags: EvictionFlags): EvictionThreshold[] {
  const hard = Object.keys(flags.evictionHard).length === 0 ? DEFAULT_EVICTION_HARD : flags.evictionHard;
  const reclaim = (signal: EvictionSignal): SignalAmount | undefined => {
    const text = flags.evictionMinimumReclaim[signal];
    return text === undefined ? undefined : signalAmount(text, `--eviction-minimum-reclaim ${signal}`);
  };
  const out: EvictionThreshold[] = [];
  for (const [signal, text] of Object.entries(hard)) {
    if (!isSignal(signal)) continue;
    out.push({ signal, value: signalAmount(text, `--eviction-hard ${signal}`), gracePeriodMs: 0, hard: true, minReclaim: reclaim(signal) });
  }
  for (const [signal, text] of Object.entries(flags.evictionSoft)) {
    if (!isSignal(signal)) continue;
    const grace = flags.evictionSoftGracePeriodMs[signal];
    if (grace === undefined || grace < 0) throw badRequest(`--eviction-soft ${signal}: no grace period in --eviction-soft-grace-period`);
    out.push({ signal, value: signalAmount(text, `--eviction-soft ${signal}`), gracePeriodMs: grace, hard: false, minReclaim: reclaim(signal) });
  }
  return out;
}
