// The node agent's resource managers made from its options (--cpu-manager-*, --memory-manager-policy,
// --topology-manager-*, --reserved-cpus, --reserved-memory): what upstream's container manager
// checks at start. A bad combination or an unusable checkpoint stops the agent from starting.
import { quantityValue } from '../api/index.js';
import {
  hardThresholds,
  parseCpuPolicyOptions,
  parseCpuSet,
  parseReservedMemory,
  parseTopologyPolicyOptions,
  readMachineTopology,
  ResourceManagers,
  type MachineTopology,
} from '../nodeagent/index.js';
import type { NodeAgentFlags } from './nodeagent-flags.js';

/** CPU reserved by --svc-reserved and --system-reserved together, in whole CPUs rounded up (the static policy's reserved count). */
function reservedCpuCount(values: NodeAgentFlags): number {
  const milli = [values.svcReserved['cpu'], values.systemReserved['cpu']].reduce((sum, text) => sum + (text ? Math.ceil((quantityValue(text) ?? 0) * 1000 - 1e-9) : 0), 0);
  return Math.ceil(milli / 1000);
}

/** Memory node allocatable holds back: --svc-reserved + --system-reserved + the hard memory.available threshold, in bytes. */
function allocatableReservedMemory(values: NodeAgentFlags, machine: MachineTopology): number {
  const reserved = [values.svcReserved['memory'], values.systemReserved['memory']].reduce((sum, text) => sum + (text ? (quantityValue(text) ?? 0) : 0), 0);
  const threshold = hardThresholds(values.evictionHard).get('memory.available');
  const capacity = machine.numaNodes.reduce((sum, node) => sum + node.memoryBytes, 0);
  const eviction = threshold === undefined ? 0 : 'quantity' in threshold ? threshold.quantity : Math.ceil((capacity * threshold.percentage) / 100);
  return reserved + eviction;
}

function naming<T>(flag: string, make: () => T): T {
  try {
    return make();
  } catch (error) {
    throw new Error(`${flag}: ${(error as Error).message}`);
  }
}

/** Makes the managers, reading the machine from sysfs unless given one; throws an Error saying which option or file is at fault. */
export function resourceManagersFrom(values: NodeAgentFlags, machine: MachineTopology = readMachineTopology()): ResourceManagers {
  const gates = values.featureGates;
  const reservedText = values.reservedCpus?.trim();
  const cpuOptions = naming('--cpu-manager-policy-options', () => parseCpuPolicyOptions(values.cpuManagerPolicyOptions, gates));
  const topologyOptions = naming('--topology-manager-policy-options', () => parseTopologyPolicyOptions(values.topologyManagerPolicyOptions, gates));
  const reservedMemory = parseReservedMemory(values.reservedMemory);
  return new ResourceManagers({
    machine,
    stateDir: values.rootDir,
    cpu: {
      policy: values.cpuManagerPolicy,
      reserved: reservedText ? { cpus: parseCpuSet(reservedText, '--reserved-cpus') } : { count: reservedCpuCount(values) },
      options: cpuOptions,
    },
    memory: { policy: values.memoryManagerPolicy, reserved: reservedMemory, allocatableReservedMemory: allocatableReservedMemory(values, machine) },
    topology: { policy: values.topologyManagerPolicy, scope: values.topologyManagerScope, options: topologyOptions },
  });
}

