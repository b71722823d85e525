import type { NodeCondition } from './conditions.js';

export interface NodeTaint {
  readonly key: string;
  readonly value?: string | undefined;
  readonly effect: string;
  readonly timeAdded?: string | undefined;
}

/** The NoSchedule taint each pressure condition puts on its node, upstream's keys. */
export const PRESSURE_TAINTS: Readonly<Record<'MemoryPressure' | 'DiskPressure' | 'PIDPressure', string>> = {
  MemoryPressure: 'node.kubernetes.io/memory-pressure',
  DiskPressure: 'node.kubernetes.io/disk-pressure',
  PIDPressure: 'node.kubernetes.io/pid-pressure',
};

/**
 * The node's taints with the pressure taints matching its conditions: one NoSchedule taint per
 * pressure condition that is True, none for one that is not; every other taint kept as it is.
 * Returns undefined when nothing changes (no write needed).
 */
export function withPressureTaints(taints: readonly NodeTaint[], conditions: readonly NodeCondition[]): NodeTaint[] | undefined {
  let changed = false;
  const out = [...taints];
  for (const [type, key] of Object.entries(PRESSURE_TAINTS)) {
    const wanted = conditions.some((c) => c.type === type && c.status === 'True');
    const at = out.findIndex((t) => t.key === key && t.effect === 'NoSchedule');
    if (wanted && at < 0) {
      out.push({ key, effect: 'NoSchedule' });
      changed = true;
    } else if (!wanted && at >= 0) {
      out.splice(at, 1);
      changed = true;
    }
  }
  return changed ? out : undefined;
}
