import { thresholdAmount, type PressureSignal, type Threshold } from './eviction-thresholds.js';
import type { HostInfo } from './host.js';
import type { RuntimeReadiness } from './runtime-info.js';
import { rfc3339 } from '../../api/index.js';

/** One node condition as the agent writes it. */
export interface NodeCondition {
  readonly type: NodeConditionType;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly message: string;
  readonly lastHeartbeatTime: string;
  readonly lastTransitionTime: string;
}

export type NodeConditionType = 'Ready' | 'MemoryPressure' | 'DiskPressure' | 'PIDPressure';

/** Kubernetes timestamps: RFC 3339, whole seconds, UTC. */

type Pressure = 'MemoryPressure' | 'DiskPressure' | 'PIDPressure';

/** Which pressures the host shows now: a signal's available amount below its hard threshold. */
export function observedPressures(host: HostInfo, rootDir: string, thresholds: ReadonlyMap<PressureSignal, Threshold>): Set<Pressure> {
  const out = new Set<Pressure>();
  const memory = host.memory();
  if (thresholds.has('memory.available') && memory.availableBytes < thresholdAmount(thresholds.get('memory.available'), memory.totalBytes)) out.add('MemoryPressure');
  const fs = host.filesystem(rootDir);
  // The root dir is also where images would live here: imagefs and nodefs are one filesystem.
  for (const signal of ['nodefs.available', 'imagefs.available'] as const) {
    if (thresholds.has(signal) && fs.availableBytes < thresholdAmount(thresholds.get(signal), fs.capacityBytes)) out.add('DiskPressure');
  }
  const pids = host.pids();
  if (thresholds.has('pid.available') && pids.max - pids.running < thresholdAmount(thresholds.get('pid.available'), pids.max)) out.add('PIDPressure');
  return out;
}

const PRESSURE_TEXT: Readonly<Record<Pressure, { yes: [string, string]; no: [string, string] }>> = {
  MemoryPressure: { yes: ['NodeAgentHasInsufficientMemory', 'node agent has insufficient memory available'], no: ['NodeAgentHasSufficientMemory', 'node agent has sufficient memory available'] },
  DiskPressure: { yes: ['NodeAgentHasDiskPressure', 'node agent has disk pressure'], no: ['NodeAgentHasNoDiskPressure', 'node agent has no disk pressure'] },
  PIDPressure: { yes: ['NodeAgentHasInsufficientPID', 'node agent has insufficient PID available'], no: ['NodeAgentHasSufficientPID', 'node agent has sufficient PID available'] },
};

/**
 * The node's conditions over time. A pressure condition is entered as soon as it is observed and
 * left only after `transitionPeriodMs` without it (`--eviction-pressure-transition-period`), so a
 * node hovering at a threshold does not flap. lastTransitionTime moves only when a status does.
 */
export class NodeConditions {
  readonly #transitionPeriodMs: number;
  readonly #lastPressure = new Map<Pressure, number>();
  #current: readonly NodeCondition[] = [];

  constructor(transitionPeriodMs: number, previous: readonly NodeCondition[] = []) {
    this.#transitionPeriodMs = transitionPeriodMs;
    this.#current = previous;
  }

  /** Conditions as of `now`, given what was observed; remembered for the next call. */
  next(now: number, runtime: RuntimeReadiness, pressures: ReadonlySet<Pressure>): readonly NodeCondition[] {
    const at = rfc3339(now);
    const make = (type: NodeConditionType, status: 'True' | 'False', reason: string, message: string): NodeCondition => {
      const before = this.#current.find((c) => c.type === type);
      const lastTransitionTime = before !== undefined && before.status === status ? before.lastTransitionTime : at;
      return { type, status, reason, message, lastHeartbeatTime: at, lastTransitionTime };
    };
    const conditions: NodeCondition[] = [
      runtime.ready
        ? make('Ready', 'True', 'NodeAgentReady', 'node agent is posting ready status')
        : make('Ready', 'False', 'NodeAgentNotReady', runtime.message || 'container runtime is not ready'),
    ];
    for (const type of ['MemoryPressure', 'DiskPressure', 'PIDPressure'] as const) {
      if (pressures.has(type)) this.#lastPressure.set(type, now);
      const last = this.#lastPressure.get(type);
      const under = last !== undefined && now - last < this.#transitionPeriodMs;
      const [reason, message] = (pressures.has(type) || under) ? PRESSURE_TEXT[type].yes : PRESSURE_TEXT[type].no;
      conditions.push(make(type, pressures.has(type) || under ? 'True' : 'False', reason, message));
    }
    this.#current = conditions;
    return conditions;
  }
}
