// The node agent's resource managers together (upstream's container manager part that admits
// pods and pins them): the topology manager over the CPU and memory managers. What the pod
// workers call: admit a pod, the cpuset of a container being created, a pod's release.
import { join } from 'node:path';
import type { Container, Pod } from '../../api/index.js';
import type { AdmitResult } from './admission-errors.js';
import { CPU_MANAGER_STATE_FILE } from './cpu-manager-checkpoint.js';
import { CpuManager, type CpuManagerPolicy, type CpuPolicyOptions } from './cpu-manager.js';
import { formatCpuSet, type CpuSet } from './cpu-set.js';
import type { MachineTopology } from './machine-topology.js';
import { MEMORY_MANAGER_STATE_FILE } from './memory-manager-checkpoint.js';
import { MemoryManager, type MemoryManagerPolicy, type ReservedMemory } from './memory-manager.js';
import type { TopologyPolicyName } from './topology-hints.js';
import { TopologyManager, type TopologyPolicyOptions, type TopologyScope } from './topology-manager.js';

export interface ResourceManagersOptions {
  readonly machine: MachineTopology;
  /** Where cpu_manager_state and memory_manager_state live (`--root-dir`). */
  readonly stateDir: string;
  readonly cpu: { readonly policy: CpuManagerPolicy; readonly reserved: { readonly cpus: CpuSet } | { readonly count: number }; readonly options?: CpuPolicyOptions | undefined };
  readonly memory: { readonly policy: MemoryManagerPolicy; readonly reserved: ReservedMemory; readonly allocatableReservedMemory?: number | undefined };
  readonly topology: { readonly policy: TopologyPolicyName; readonly scope: TopologyScope; readonly options?: TopologyPolicyOptions | undefined };
}

/** The cpuset fields of a container's CRI resources (empty strings are left out). */
export interface ContainerCpuset {
  readonly cpusetCpus?: string;
  readonly cpusetMems?: string;
}

export class ResourceManagers {
  readonly cpu: CpuManager;
  readonly memory: MemoryManager;
  readonly topology: TopologyManager;
  /** Nothing to admit or pin: every policy is its default. */
  readonly inactive: boolean;

  /** Throws when an option or a checkpoint cannot be used: the agent does not start then, as the kubelet does not. */
  constructor(options: ResourceManagersOptions) {
    this.cpu = new CpuManager({ machine: options.machine, policy: options.cpu.policy, reserved: options.cpu.reserved, options: options.cpu.options, stateFile: join(options.stateDir, CPU_MANAGER_STATE_FILE) });
    this.memory = new MemoryManager({
      machine: options.machine,
      policy: options.memory.policy,
      reserved: options.memory.reserved,
      allocatableReservedMemory: options.memory.allocatableReservedMemory,
      stateFile: join(options.stateDir, MEMORY_MANAGER_STATE_FILE),
    });
    this.topology = new TopologyManager({ machine: options.machine, policy: options.topology.policy, scope: options.topology.scope, options: options.topology.options, providers: [this.cpu, this.memory] });
    this.inactive = options.cpu.policy === 'none' && options.memory.policy === 'None' && options.topology.policy === 'none';
  }

  /** Admission of a pod that is to run: refused pods hold nothing. `sharedPoolChanged`: running containers need new cpusets. */
  admit(pod: Pod): AdmitResult & { readonly sharedPoolChanged: boolean } {
    if (this.inactive) return { admit: true, sharedPoolChanged: false };
    const before = formatCpuSet(this.cpu.sharedPool());
    const result = this.topology.admit(pod);
    return { ...result, sharedPoolChanged: formatCpuSet(this.cpu.sharedPool()) !== before };
  }

  /** What a container is created with: its CPUs (own or the shared pool) and its memory's NUMA nodes. */
  containerCpuset(pod: Pod, container: Container): ContainerCpuset {
    const uid = pod.metadata.uid ?? '';
    const cpus = this.cpu.cpusetOf(uid, container.name);
    const mems = this.memory.memsOf(uid, container.name);
    return {
      ...(cpus !== undefined && cpus.length > 0 ? { cpusetCpus: formatCpuSet(cpus) } : {}),
      ...(mems !== undefined ? { cpusetMems: formatCpuSet(mems) } : {}),
    };
  }

  /** A pod stopped for good: its CPUs and memory go back. */
  removePod(uid: string): void {
    this.topology.removePod(uid);
  }

  /** Pods that hold something and are not in `active`: their state is stale (upstream's removeStaleState). */
  removeStale(active: ReadonlySet<string>): string[] {
    const stale = [...new Set([...this.cpu.assignedPods(), ...this.memory.assignedPods()])].filter((uid) => !active.has(uid));
    for (const uid of stale) this.removePod(uid);
    return stale;
  }
}
