import { amountOf, type EvictionSignal, type EvictionThreshold } from './eviction-thresholds.js';

/** What the agent saw of one signal: the amount available and the capacity a percentage refers to. */
export interface SignalObservation {
  readonly available: number;
  readonly capacity: number;
}

export type Observations = ReadonlyMap<EvictionSignal, SignalObservation>;

export type NodePressure = 'MemoryPressure' | 'DiskPressure' | 'PIDPressure';

/** The node condition each signal drives. */
export const PRESSURE_OF: Readonly<Record<EvictionSignal, NodePressure>> = {
  'memory.available': 'MemoryPressure',
  'nodefs.available': 'DiskPressure',
  'nodefs.inodesFree': 'DiskPressure',
  'imagefs.available': 'DiskPressure',
  'imagefs.inodesFree': 'DiskPressure',
  'pid.available': 'PIDPressure',
};

/**
 * Is the threshold met by the observation? With `minReclaim`, a threshold already met stays met
 * until the signal is back above the threshold plus its minimum reclaim (the kubelet's
 * "thresholds not yet resolved"). A signal not observed meets nothing.
 */
export function thresholdMet(threshold: EvictionThreshold, observations: Observations, minReclaim: boolean): boolean {
  const seen = observations.get(threshold.signal);
  if (seen === undefined) return false;
  const reclaim = minReclaim && threshold.minReclaim ? amountOf(threshold.minReclaim, seen.capacity) : 0;
  return seen.available < amountOf(threshold.value, seen.capacity) + reclaim;
}

/** The outcome of one observation: what to reclaim now and which conditions the node shows. */
export interface EvictionDecision {
  /** Thresholds met and past their grace period: the agent reclaims for these, worst first. */
  readonly toReclaim: readonly EvictionThreshold[];
  /** The pressures of the thresholds met, grace or not (the node status holds each for the transition period). */
  readonly pressures: ReadonlySet<NodePressure>;
  /** Thresholds met now, grace or not (the kubelet's thresholdsMet). */
  readonly met: readonly EvictionThreshold[];
}

/** The order the kubelet reclaims in when several signals are met: memory, then pids, then disk. */
const SIGNAL_ORDER: readonly EvictionSignal[] = ['memory.available', 'pid.available', 'nodefs.available', 'nodefs.inodesFree', 'imagefs.available', 'imagefs.inodesFree'];

/**
 * The eviction manager's memory between passes, as the kubelet keeps it: the thresholds met last
 * time (so a minimum reclaim holds them) and when each was first seen met (soft grace periods).
 * `--eviction-pressure-transition-period` is the node conditions' business (src/nodeagent/node).
 */
export class EvictionState {
  readonly #thresholds: readonly EvictionThreshold[];
  #met: readonly EvictionThreshold[] = [];
  readonly #firstObserved = new Map<EvictionThreshold, number>();

  constructor(thresholds: readonly EvictionThreshold[]) {
    this.#thresholds = thresholds;
  }

  /** One pass over fresh observations at `now`. */
  observe(observations: Observations, now: number): EvictionDecision {
    const metNow = new Set(this.#thresholds.filter((t) => thresholdMet(t, observations, false)));
    for (const t of this.#met) if (thresholdMet(t, observations, true)) metNow.add(t);
    const met = this.#thresholds.filter((t) => metNow.has(t));
    this.#met = met;
    for (const t of [...this.#firstObserved.keys()]) if (!metNow.has(t)) this.#firstObserved.delete(t);
    for (const t of met) if (!this.#firstObserved.has(t)) this.#firstObserved.set(t, now);
    const pressures = new Set<NodePressure>(met.map((t) => PRESSURE_OF[t.signal]));
    const toReclaim = met
      .filter((t) => now - (this.#firstObserved.get(t) ?? now) >= t.gracePeriodMs)
      .sort((a, b) => SIGNAL_ORDER.indexOf(a.signal) - SIGNAL_ORDER.indexOf(b.signal) || Number(b.hard) - Number(a.hard));
    return { toReclaim, pressures, met };
  }
}
