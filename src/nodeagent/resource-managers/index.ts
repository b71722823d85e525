// Resource managers: the CPU manager, the memory manager and the topology manager that admits
// pods by their hints (docs/node-agent.md, "Resource managers").
export { ResourceManagers } from './resource-managers.js';
export type { ContainerCpuset, ResourceManagersOptions } from './resource-managers.js';
export { startCpusetReconciler } from './cpuset-reconciler.js';
export { registerResourceManagerMetrics } from './resource-manager-metrics.js';
export type { CpusetReconcilePass, CpusetReconciler, CpusetReconcilerOptions } from './cpuset-reconciler.js';
export { CpuManager, exclusiveCpuRequest, parseCpuPolicyOptions, NO_CPU_POLICY_OPTIONS } from './cpu-manager.js';
export type { CpuManagerOptions, CpuManagerPolicy, CpuPolicyOptions } from './cpu-manager.js';
export { MemoryManager, memoryRequests, parseReservedMemory } from './memory-manager.js';
export type { MemoryManagerOptions, MemoryManagerPolicy, ReservedMemory } from './memory-manager.js';
export { TopologyManager, parseTopologyPolicyOptions } from './topology-manager.js';
export type { TopologyManagerOptions, TopologyPolicyOptions, TopologyScope } from './topology-manager.js';
export { decide, mergeHints, hintsForAmount } from './topology-hints.js';
export type { MergeOptions, PolicyDecision, ProviderHints, TopologyHint, TopologyPolicyName } from './topology-hints.js';
export { maskOf, nodesOf, formatMask } from './numa-mask.js';
export type { NumaMask } from './numa-mask.js';
export { takeByTopology, threadsPerCore, NotEnoughCpusError } from './cpu-topology-take.js';
export { parseCpuSet, formatCpuSet } from './cpu-set.js';
export type { CpuSet } from './cpu-set.js';
export { describeMachine, readMachineTopology } from './machine-topology.js';
export type { CpuInfo, MachineShape, MachineTopology, NumaNodeInfo } from './machine-topology.js';
export { AdmissionError, admitResultOf, topologyAffinityError } from './admission-errors.js';
export type { AdmitResult } from './admission-errors.js';
export { CheckpointError } from './checkpoint-file.js';
export { CPU_MANAGER_STATE_FILE, formatCpuManagerCheckpoint, readCpuManagerCheckpoint } from './cpu-manager-checkpoint.js';
export type { CpuManagerState } from './cpu-manager-checkpoint.js';
export { MEMORY_MANAGER_STATE_FILE, formatMemoryManagerCheckpoint, readMemoryManagerCheckpoint } from './memory-manager-checkpoint.js';
export { dumpForHash, fnv32a } from './go-hash-dump.js';
