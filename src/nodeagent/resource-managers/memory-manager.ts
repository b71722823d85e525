// The memory manager (--memory-manager-policy): with `Static`, each container of a Guaranteed pod
// gets its memory and hugepages from a set of NUMA nodes, charged against what each node has
// (its total less --reserved-memory), and runs with cpuset.mems on those nodes. The machine's
// state and the assignments live in <root-dir>/memory_manager_state.
import { podQosClass, quantityValue, type Container, type Pod } from '../../api/index.js';
import { CheckpointError } from './checkpoint-file.js';
import type { HintProvider } from './hint-provider.js';
import type { MachineTopology } from './machine-topology.js';
import { readMemoryManagerCheckpoint, writeMemoryManagerCheckpoint, type MemoryBlock, type MemoryManagerState, type MemoryTable } from './memory-manager-checkpoint.js';
import { everyMask, maskOf, nodesOf, type NumaMask } from './numa-mask.js';
import { hintsForAmount, type ProviderHints, type TopologyHint } from './topology-hints.js';

export type MemoryManagerPolicy = 'None' | 'Static';

/** --reserved-memory: node id → resource (memory, hugepages-2Mi, ...) → bytes. */
export type ReservedMemory = ReadonlyMap<number, Readonly<Record<string, number>>>;

/** Parses `0:memory=1Gi,hugepages-2Mi=64Mi` entries; throws an Error naming the entry at fault. */
export function parseReservedMemory(entries: readonly string[]): ReservedMemory {
  const reserved = new Map<number, Record<string, number>>();
  for (const entry of entries) {
    const match = /^(\d+):(.+)$/.exec(entry.trim());
    if (!match) throw new Error(`--reserved-memory: ${JSON.stringify(entry)} is not of the form <numa-node>:<type>=<quantity>[,...]`);
    const node = Number(match[1]);
    const types = reserved.get(node) ?? {};
    for (const part of match[2]!.split(',')) {
      const [type, quantity] = part.split('=');
      const bytes = quantityValue(quantity ?? '');
      if (!type || bytes === undefined || bytes < 0) throw new Error(`--reserved-memory: ${JSON.stringify(part)} in ${JSON.stringify(entry)} is not <type>=<quantity>`);
      if (type !== 'memory' && !type.startsWith('hugepages-')) throw new Error(`--reserved-memory: ${JSON.stringify(type)} is not memory or a hugepages size`);
      types[type] = (types[type] ?? 0) + bytes;
    }
    reserved.set(node, types);
  }
  return reserved;
}

/** What a Guaranteed container asks of each NUMA-managed resource, in bytes. */
export function memoryRequests(pod: Pod, container: Container): Record<string, number> {
  if (podQosClass(pod.spec) !== 'Guaranteed') return {};
  const requests: Record<string, number> = {};
  const asked = { ...(container.resources?.limits ?? {}), ...(container.resources?.requests ?? {}) };
  for (const [name, quantity] of Object.entries(asked)) {
    if (name !== 'memory' && !name.startsWith('hugepages-')) continue;
    const bytes = quantityValue(quantity);
    if (bytes !== undefined && bytes > 0) requests[name] = bytes;
  }
  return requests;
}

function podMemoryRequests(pod: Pod): Record<string, number> {
  const sum: Record<string, number> = {};
  for (const c of pod.spec.containers) for (const [name, bytes] of Object.entries(memoryRequests(pod, c))) sum[name] = (sum[name] ?? 0) + bytes;
  for (const c of pod.spec.initContainers ?? []) for (const [name, bytes] of Object.entries(memoryRequests(pod, c))) sum[name] = Math.max(sum[name] ?? 0, bytes);
  return sum;
}

export interface MemoryManagerOptions {
  readonly machine: MachineTopology;
  readonly policy: MemoryManagerPolicy;
  readonly reserved: ReservedMemory;
  /** What node allocatable holds back of memory: --svc-reserved + --system-reserved + the hard eviction threshold, in bytes; --reserved-memory must sum to it. */
  readonly allocatableReservedMemory?: number | undefined;
  readonly stateFile: string;
}

export class MemoryManager implements HintProvider {
  readonly policy: MemoryManagerPolicy;
  private readonly state: MemoryManagerState;
  private readonly stateFile: string;
  private readonly numaNodes: readonly number[];
  /** Allocations asked (containers of Guaranteed pods) and those that failed: /metrics. */
  readonly pinning = { requests: 0, errors: 0 };

  constructor(options: MemoryManagerOptions) {
    this.policy = options.policy;
    this.stateFile = options.stateFile;
    this.numaNodes = options.machine.numaNodes.map((n) => n.id);
    for (const node of options.reserved.keys()) if (!this.numaNodes.includes(node)) throw new Error(`--reserved-memory: NUMA node ${node} does not exist on this machine (nodes ${this.numaNodes.join(',')})`);
    if (this.policy === 'Static') {
      const reservedTotal = [...options.reserved.values()].reduce((sum, types) => sum + (types['memory'] ?? 0), 0);
      if (reservedTotal === 0) throw new Error('the Static memory manager policy needs --reserved-memory: the memory reserved for the system on each NUMA node');
      if (options.allocatableReservedMemory !== undefined && reservedTotal !== options.allocatableReservedMemory) {
        throw new Error(`--reserved-memory: the total amount of type "memory" (${reservedTotal} bytes) is not equal to the value determined by node allocatable (${options.allocatableReservedMemory} bytes: --svc-reserved + --system-reserved + the hard eviction threshold)`);
      }
    }
    const fresh = this.initialState(options);
    const saved = readMemoryManagerCheckpoint(this.stateFile);
    if (saved && saved.policyName !== this.policy) {
      throw new CheckpointError(`configured policy ${JSON.stringify(this.policy)} differs from state checkpoint policy ${JSON.stringify(saved.policyName)}: drain the node and remove ${this.stateFile}`);
    }
    if (saved && this.policy === 'Static') {
      // The machine's totals and reservations must be those the saved state was made with.
      for (const [node, fresher] of fresh.machineState) {
        const old = saved.machineState.get(node);
        for (const [type, table] of fresher.memoryMap) {
          const was = old?.memoryMap.get(type);
          if (!was || was.total !== table.total || was.systemReserved !== table.systemReserved) {
            throw new CheckpointError(`${this.stateFile}: the machine state of NUMA node ${node} (${type}) differs from the one the checkpoint holds: drain the node and remove the file`);
          }
        }
      }
    }
    this.state = saved ?? fresh;
    this.save();
  }

  private initialState(options: MemoryManagerOptions): MemoryManagerState {
    const machineState = new Map<number, { numberOfAssignments: number; memoryMap: Map<string, MemoryTable>; cells: number[] }>();
    if (this.policy === 'Static') {
      for (const node of options.machine.numaNodes) {
        const memoryMap = new Map<string, MemoryTable>();
        const sizes: Record<string, number> = { memory: node.memoryBytes, ...node.hugepages };
        for (const [type, total] of Object.entries(sizes)) {
          const systemReserved = options.reserved.get(node.id)?.[type] ?? 0;
          const allocatable = Math.max(0, total - systemReserved);
          memoryMap.set(type, { total, systemReserved, allocatable, reserved: 0, free: allocatable });
        }
        machineState.set(node.id, { numberOfAssignments: 0, memoryMap, cells: [node.id] });
      }
    }
    return { policyName: this.policy, machineState, assignments: new Map() };
  }

  private save(): void {
    writeMemoryManagerCheckpoint(this.stateFile, this.state);
  }

  private sum(mask: NumaMask, type: string, field: 'allocatable' | 'free'): number {
    return nodesOf(mask).reduce((sum, node) => sum + (this.state.machineState.get(node)?.memoryMap.get(type)?.[field] ?? 0), 0);
  }

  /** A mask may not cut through a group of nodes an earlier assignment spans. */
  private respectsGroups(mask: NumaMask): boolean {
    for (const node of nodesOf(mask)) {
      const state = this.state.machineState.get(node);
      if (state && state.numberOfAssignments > 0 && maskOf(state.cells) !== mask) return false;
    }
    return true;
  }

  /**
   * Upstream's hints: the node sets that hold every requested type at once (free amounts, not
   * cutting through a group), the same sets for each type; preferred are those of the fewest nodes
   * whose allocatable amounts could hold all of them.
   */
  private hintsFor(requests: Record<string, number>): ProviderHints {
    const types = Object.entries(requests);
    const all = (mask: NumaMask, field: 'allocatable' | 'free') => types.every(([type, bytes]) => this.sum(mask, type, field) >= bytes);
    const masks = hintsForAmount(
      this.numaNodes,
      1,
      (mask) => (all(mask, 'allocatable') ? 1 : 0),
      (mask) => (this.respectsGroups(mask) && all(mask, 'free') ? 1 : 0),
    );
    return Object.fromEntries(types.map(([type]) => [type, masks]));
  }

  private hintsOfAssigned(blocks: readonly MemoryBlock[]): ProviderHints {
    const hints: Record<string, TopologyHint[]> = {};
    for (const block of blocks) hints[block.type] = [{ affinity: maskOf(block.numaAffinity), preferred: true }];
    return hints;
  }

  hints(pod: Pod, container: Container): ProviderHints {
    if (this.policy !== 'Static') return undefined;
    const requests = memoryRequests(pod, container);
    if (Object.keys(requests).length === 0) return undefined;
    const held = this.state.assignments.get(pod.metadata.uid ?? '')?.get(container.name);
    return held ? this.hintsOfAssigned(held) : this.hintsFor(requests);
  }

  podHints(pod: Pod): ProviderHints {
    if (this.policy !== 'Static') return undefined;
    const requests = podMemoryRequests(pod);
    if (Object.keys(requests).length === 0) return undefined;
    const held = [...(this.state.assignments.get(pod.metadata.uid ?? '')?.values() ?? [])].flat();
    return held.length > 0 ? this.hintsOfAssigned(held) : this.hintsFor(requests);
  }

  allocate(pod: Pod, container: Container, hint: TopologyHint): void {
    if (this.policy !== 'Static') return;
    const uid = pod.metadata.uid ?? '';
    const requests = memoryRequests(pod, container);
    if (Object.keys(requests).length === 0 || this.state.assignments.get(uid)?.has(container.name)) return;
    this.pinning.requests++;
    try {
      this.charge(uid, container, requests, hint);
    } catch (error) {
      this.pinning.errors++;
      throw error;
    }
  }

  private charge(uid: string, container: Container, requests: Record<string, number>, hint: TopologyHint): void {
    let mask = hint.affinity;
    if (mask === undefined) {
      // No hint (topology policy none): the narrowest set of nodes that holds every request.
      mask = everyMask(this.numaNodes).find((m) => this.respectsGroups(m) && Object.entries(requests).every(([type, bytes]) => this.sum(m, type, 'free') >= bytes));
      if (mask === undefined) throw new Error('[memorymanager] failed to get the default NUMA affinity, no NUMA nodes with enough memory is available');
    }
    for (const [type, bytes] of Object.entries(requests)) {
      if (this.sum(mask, type, 'free') < bytes) throw new Error(`[memorymanager] failed to find NUMA nodes to extend the current NUMA nodes affinity: ${type} request ${bytes} exceeds the free amount on NUMA nodes ${nodesOf(mask).join(',')}`);
    }
    const nodes = nodesOf(mask);
    const blocks: MemoryBlock[] = [];
    for (const [type, bytes] of Object.entries(requests)) {
      let left = bytes;
      for (const node of nodes) {
        const table = this.state.machineState.get(node)!.memoryMap.get(type);
        if (!table || left === 0) continue;
        const take = Math.min(left, table.free);
        table.free -= take;
        table.reserved += take;
        left -= take;
      }
      blocks.push({ numaAffinity: nodes, type, size: bytes });
    }
    for (const node of nodes) {
      const state = this.state.machineState.get(node)!;
      state.numberOfAssignments++;
      state.cells = nodes;
    }
    const containers = this.state.assignments.get(uid) ?? new Map<string, MemoryBlock[]>();
    containers.set(container.name, blocks);
    this.state.assignments.set(uid, containers);
    this.save();
  }

  /** The NUMA nodes a container's memory is pinned to (cpuset.mems); undefined: any. */
  memsOf(podUid: string, containerName: string): number[] | undefined {
    const blocks = this.state.assignments.get(podUid)?.get(containerName);
    if (!blocks || blocks.length === 0) return undefined;
    return [...new Set(blocks.flatMap((b) => b.numaAffinity))].sort((a, b) => a - b);
  }

  /** Free and reserved bytes of a resource on a node (tests and /configz). */
  table(node: number, type: string): Readonly<MemoryTable> | undefined {
    return this.state.machineState.get(node)?.memoryMap.get(type);
  }

  assignedPods(): string[] {
    return [...this.state.assignments.keys()];
  }

  removePod(uid: string): void {
    const containers = this.state.assignments.get(uid);
    if (!containers) return;
    this.state.assignments.delete(uid);
    for (const blocks of containers.values()) {
      for (const block of blocks) {
        let left = block.size;
        for (const node of block.numaAffinity) {
          const table = this.state.machineState.get(node)?.memoryMap.get(block.type);
          if (!table || left === 0) continue;
          const back = Math.min(left, table.reserved);
          table.reserved -= back;
          table.free += back;
          left -= back;
        }
      }
      for (const node of new Set(blocks.flatMap((b) => b.numaAffinity))) {
        const state = this.state.machineState.get(node);
        if (!state) continue;
        state.numberOfAssignments = Math.max(0, state.numberOfAssignments - 1);
        if (state.numberOfAssignments === 0) state.cells = [node];
      }
    }
    this.save();
  }
}
