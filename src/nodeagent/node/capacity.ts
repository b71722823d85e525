import { badRequest } from '../../api/index.js';
import { parseCpuSet } from '../resource-managers/index.js';
import { thresholdAmount, type PressureSignal, type Threshold } from './eviction-thresholds.js';
import type { HostInfo } from './host.js';
import type { NodeStatusOptions } from './options.js';
import { flagQuantity, formatBytes, formatMilliCpu, milliCpu } from './capacity-units.js';

/** status.capacity and status.allocatable, as quantities. */
export interface NodeResources {
  readonly capacity: Readonly<Record<string, string>>;
  readonly allocatable: Readonly<Record<string, string>>;
}

const RESERVABLE = new Set(['cpu', 'memory', 'pid', 'ephemeral-storage']);

/** Counts the CPUs of a `--reserved-cpus` list: `0-3,8` is five. */
export const countCpuList = (list: string): number => parseCpuSet(list, '--reserved-cpus').length;

/** What the two reservations take together: cpu in milli-units, memory and storage in bytes. */
function reserved(options: NodeStatusOptions): { cpu: number; memory: number; storage: number } {
  const sum = { cpu: 0, memory: 0, storage: 0 };
  for (const [flag, map] of [['--svc-reserved', options.svcReserved], ['--system-reserved', options.systemReserved]] as const) {
    for (const [name, value] of Object.entries(map)) {
      if (!RESERVABLE.has(name)) throw badRequest(`${flag}: ${JSON.stringify(name)} cannot be reserved (only cpu, memory, pid and ephemeral-storage)`);
      if (name === 'cpu') sum.cpu += milliCpu(value, `${flag} cpu`);
      else if (name === 'memory') sum.memory += flagQuantity(value, `${flag} memory`);
      else if (name === 'ephemeral-storage') sum.storage += flagQuantity(value, `${flag} ephemeral-storage`);
      // pid: the node reports no pid capacity, so a pid reservation lowers nothing it reports.
    }
  }
  if (options.reservedCpus !== undefined && options.reservedCpus.trim() !== '') sum.cpu = countCpuList(options.reservedCpus) * 1000;
  return sum;
}

/** `--max-pods`, capped by `--pods-per-core` × cores when that is above 0. */
export const podCapacity = (options: NodeStatusOptions, cores: number): number =>
  options.podsPerCore > 0 ? Math.min(options.maxPods, options.podsPerCore * cores) : options.maxPods;

/**
 * Capacity from the host; allocatable = capacity − `--svc-reserved` − `--system-reserved` − the
 * hard eviction thresholds of memory (memory.available) and the root dir's filesystem
 * (nodefs.available), never below zero. `--experimental-allocatable-ignore-eviction` leaves the
 * thresholds out.
 */
export function nodeResources(options: NodeStatusOptions, host: HostInfo, thresholds: ReadonlyMap<PressureSignal, Threshold>): NodeResources {
  const cores = host.cpus();
  const memory = host.memory().totalBytes;
  const storage = host.filesystem(options.rootDir).capacityBytes;
  const pods = podCapacity(options, cores);
  const r = reserved(options);
  const evict = (signal: PressureSignal, capacity: number) =>
    options.experimentalAllocatableIgnoreEviction ? 0 : thresholdAmount(thresholds.get(signal), capacity);
  return {
    capacity: { cpu: String(cores), memory: formatBytes(memory), pods: String(pods), 'ephemeral-storage': formatBytes(storage) },
    allocatable: {
      cpu: formatMilliCpu(cores * 1000 - r.cpu),
      memory: formatBytes(memory - r.memory - evict('memory.available', memory)),
      pods: String(pods),
      'ephemeral-storage': formatBytes(storage - r.storage - evict('nodefs.available', storage)),
    },
  };
}
