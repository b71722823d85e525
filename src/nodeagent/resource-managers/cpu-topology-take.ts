// Choosing CPUs by topology, as the static CPU manager's "packed" accumulator does: whole NUMA
// nodes or sockets while the request covers one, then whole physical cores, then single threads
// from the cores and sockets already most used, so that what stays free stays in whole units.
import type { CpuSet } from './cpu-set.js';
import type { CpuInfo, MachineTopology } from './machine-topology.js';

export interface TakeOptions {
  /** full-pcpus-only: only whole physical cores. */
  readonly fullCoresOnly?: boolean | undefined;
  /** distribute-cpus-across-cores: single threads from the cores with the most free threads first. */
  readonly spreadAcrossCores?: boolean | undefined;
}

export class NotEnoughCpusError extends Error {
  override readonly name = 'NotEnoughCpusError';
  constructor(
    readonly requested: number,
    readonly available: number,
  ) {
    super(`not enough cpus available to satisfy request: requested=${requested}, available=${available}`);
  }
}

const groupBy = <K>(cpus: readonly CpuInfo[], key: (cpu: CpuInfo) => K): Map<K, CpuInfo[]> => {
  const groups = new Map<K, CpuInfo[]>();
  for (const cpu of cpus) {
    const list = groups.get(key(cpu)) ?? [];
    list.push(cpu);
    groups.set(key(cpu), list);
  }
  return groups;
};

/** Threads per core of the machine (the most any core has). */
export function threadsPerCore(machine: MachineTopology): number {
  return Math.max(1, ...[...groupBy(machine.cpus, (c) => c.core).values()].map((list) => list.length));
}

/**
 * Takes `count` CPUs of `available` (a subset of the machine's). Throws {@link NotEnoughCpusError}
 * when it cannot.
 */
export function takeByTopology(machine: MachineTopology, available: CpuSet, count: number, options: TakeOptions = {}): CpuSet {
  if (count === 0) return [];
  const info = new Map(machine.cpus.map((cpu) => [cpu.id, cpu]));
  let free = available.map((id) => info.get(id)).filter((cpu): cpu is CpuInfo => cpu !== undefined);
  if (free.length < count) throw new NotEnoughCpusError(count, free.length);
  const taken: number[] = [];
  const take = (cpus: readonly CpuInfo[]): void => {
    const ids = new Set(cpus.map((c) => c.id));
    taken.push(...ids);
    free = free.filter((cpu) => !ids.has(cpu.id));
  };
  const needed = () => count - taken.length;
  const allOf = (key: (cpu: CpuInfo) => number) => groupBy(machine.cpus, key);

  // 1. whole NUMA nodes and sockets that are entirely free, the larger unit first.
  for (const key of [(c: CpuInfo) => c.socket, (c: CpuInfo) => c.numaNode].sort((a, b) => allOf(a).size - allOf(b).size)) {
    const whole = allOf(key);
    const freeUnits = groupBy(free, key);
    for (const [unit, cpus] of [...freeUnits].sort((a, b) => a[0] - b[0])) {
      if (cpus.length === whole.get(unit)!.length && cpus.length <= needed()) take(cpus);
    }
  }
  // 2. whole free cores, from the sockets with the fewest free CPUs first.
  const perCore = allOf((c) => c.core);
  const freeInSocket = (socket: number) => free.filter((c) => c.socket === socket).length;
  const wholeCores = () =>
    [...groupBy(free, (c) => c.core)]
      .filter(([core, cpus]) => cpus.length === perCore.get(core)!.length)
      .sort((a, b) => freeInSocket(a[1][0]!.socket) - freeInSocket(b[1][0]!.socket) || a[0] - b[0]);
  for (const [, cpus] of wholeCores()) if (cpus.length <= needed()) take(cpus);
  if (options.fullCoresOnly) {
    if (needed() > 0) throw new NotEnoughCpusError(count, available.length);
    return [...taken].sort((a, b) => a - b);
  }
  // 3. single threads: packed (cores and sockets with the fewest free threads first) or spread.
  while (needed() > 0) {
    const freeInCore = (core: number) => free.filter((c) => c.core === core).length;
    const ranked = [...free].sort(
      (a, b) =>
        (options.spreadAcrossCores ? freeInCore(b.core) - freeInCore(a.core) : freeInCore(a.core) - freeInCore(b.core)) ||
        freeInSocket(a.socket) - freeInSocket(b.socket) ||
        a.id - b.id,
    );
    take([ranked[0]!]);
  }
  return [...taken].sort((a, b) => a - b);
}
