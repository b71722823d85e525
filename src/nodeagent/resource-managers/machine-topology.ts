// The machine's CPU and memory layout as the resource managers see it: each logical CPU with
// its core, socket and NUMA node, each NUMA node with its memory, hugepages and distances.
// Read from sysfs on a real host; tests describe other hosts with `describeMachine`.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { totalmem } from 'node:os';
import { join } from 'node:path';
import { parseCpuSet, type CpuSet } from './cpu-set.js';

export interface CpuInfo {
  readonly id: number;
  /** A machine-wide core number (sysfs core ids repeat across sockets). */
  readonly core: number;
  readonly socket: number;
  readonly numaNode: number;
}

export interface NumaNodeInfo {
  readonly id: number;
  readonly cpus: CpuSet;
  readonly memoryBytes: number;
  /** Hugepages by resource name (`hugepages-2Mi`), in bytes. */
  readonly hugepages: Readonly<Record<string, number>>;
  /** Distance to each node by id (10: itself), from sysfs; empty when unknown. */
  readonly distances: readonly number[];
}

export interface MachineTopology {
  /** By id. */
  readonly cpus: readonly CpuInfo[];
  /** By id. */
  readonly numaNodes: readonly NumaNodeInfo[];
}

const readText = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8').trim();
  } catch {
    return undefined;
  }
};

/** `hugepages-2048kB` → `hugepages-2Mi`, as the node reports the resource. */
function hugepageResource(dirName: string): { name: string; pageBytes: number } | undefined {
  const kb = /^hugepages-(\d+)kB$/.exec(dirName);
  if (!kb) return undefined;
  const bytes = Number(kb[1]) * 1024;
  const name = bytes % 1024 ** 3 === 0 ? `${bytes / 1024 ** 3}Gi` : bytes % 1024 ** 2 === 0 ? `${bytes / 1024 ** 2}Mi` : `${bytes / 1024}Ki`;
  return { name: `hugepages-${name}`, pageBytes: bytes };
}

/**
 * Reads the topology under `sysRoot` (`/sys`): online CPUs with their core and package ids
 * (`devices/system/cpu/cpuN/topology`), NUMA nodes with their CPU lists, `MemTotal`, hugepages
 * and distances (`devices/system/node/nodeN`). A kernel without NUMA nodes in sysfs is one node
 * holding every CPU and the whole memory.
 */
export function readMachineTopology(sysRoot = '/sys'): MachineTopology {
  const cpuDir = join(sysRoot, 'devices/system/cpu');
  const online = parseCpuSet(readText(join(cpuDir, 'online')) ?? '0', 'online CPUs');
  const nodeDir = join(sysRoot, 'devices/system/node');
  const nodeIds = existsSync(nodeDir)
    ? readdirSync(nodeDir)
        .map((name) => /^node(\d+)$/.exec(name))
        .filter((m): m is RegExpExecArray => m !== null)
        .map((m) => Number(m[1]))
        .sort((a, b) => a - b)
    : [];
  const numaOf = new Map<number, number>();
  const numaNodes: NumaNodeInfo[] = [];
  for (const id of nodeIds) {
    const dir = join(nodeDir, `node${id}`);
    const cpus = parseCpuSet(readText(join(dir, 'cpulist')) ?? '', `node${id} cpulist`).filter((cpu) => online.includes(cpu));
    for (const cpu of cpus) numaOf.set(cpu, id);
    const memKb = /MemTotal:\s+(\d+) kB/.exec(readText(join(dir, 'meminfo')) ?? '');
    const hugepages: Record<string, number> = {};
    const hugeDir = join(dir, 'hugepages');
    if (existsSync(hugeDir)) {
      for (const entry of readdirSync(hugeDir)) {
        const resource = hugepageResource(entry);
        const count = Number(readText(join(hugeDir, entry, 'nr_hugepages')) ?? '0');
        if (resource && count > 0) hugepages[resource.name] = count * resource.pageBytes;
      }
    }
    const distances = (readText(join(dir, 'distance')) ?? '').split(/\s+/).filter((s) => s !== '').map(Number);
    numaNodes.push({ id, cpus, memoryBytes: memKb ? Number(memKb[1]) * 1024 : 0, hugepages, distances });
  }
  if (numaNodes.length === 0) numaNodes.push({ id: 0, cpus: online, memoryBytes: totalmem(), hugepages: {}, distances: [10] });
  const coreIds = new Map<string, number>();
  const cpus = online.map((id): CpuInfo => {
    const topology = join(cpuDir, `cpu${id}`, 'topology');
    const socket = Number(readText(join(topology, 'physical_package_id')) ?? '0');
    const key = `${socket}/${readText(join(topology, 'core_id')) ?? String(id)}`;
    if (!coreIds.has(key)) coreIds.set(key, coreIds.size);
    return { id, core: coreIds.get(key)!, socket: Math.max(0, socket), numaNode: numaOf.get(id) ?? numaNodes[0]!.id };
  });
  return { cpus, numaNodes };
}

/** A host described by its shape: CPU ids numbered socket by socket, core by core, thread by thread; NUMA nodes split each socket evenly. */
export interface MachineShape {
  readonly sockets: number;
  readonly coresPerSocket: number;
  readonly threadsPerCore: number;
  /** NUMA nodes per socket. Default 1. */
  readonly numaPerSocket?: number;
  /** Memory of each NUMA node. Default 16 GiB. */
  readonly memoryPerNodeBytes?: number;
  readonly hugepagesPerNode?: Readonly<Record<string, number>>;
  /** Siblings numbered apart, as Intel hosts do (cpu N and N + cores are one core's threads). Default false. */
  readonly siblingsApart?: boolean;
}

export function describeMachine(shape: MachineShape): MachineTopology {
  const numaPerSocket = shape.numaPerSocket ?? 1;
  const cores = shape.sockets * shape.coresPerSocket;
  const coresPerNode = shape.coresPerSocket / numaPerSocket;
  const cpus: CpuInfo[] = [];
  for (let core = 0; core < cores; core++) {
    const socket = Math.floor(core / shape.coresPerSocket);
    const numaNode = socket * numaPerSocket + Math.floor((core % shape.coresPerSocket) / coresPerNode);
    for (let thread = 0; thread < shape.threadsPerCore; thread++) {
      const id = shape.siblingsApart ? thread * cores + core : core * shape.threadsPerCore + thread;
      cpus.push({ id, core, socket, numaNode });
    }
  }
  cpus.sort((a, b) => a.id - b.id);
  const nodes = shape.sockets * numaPerSocket;
  const numaNodes = Array.from({ length: nodes }, (_, id): NumaNodeInfo => ({
    id,
    cpus: cpus.filter((c) => c.numaNode === id).map((c) => c.id),
    memoryBytes: shape.memoryPerNodeBytes ?? 16 * 1024 ** 3,
    hugepages: shape.hugepagesPerNode ?? {},
    distances: Array.from({ length: nodes }, (_, other) => (other === id ? 10 : Math.floor(other / numaPerSocket) === Math.floor(id / numaPerSocket) ? 11 : 21)),
  }));
  return { cpus, numaNodes };
}
