/** What the QoS cgroup suite reads of the agent's modules. */
import { quantityValue } from '../../../src/api/index.js';
export { hardThresholds, hostCgroups, milliCpuToShares, sharesToWeight, nodeResources, POD_NAME_LABEL, qosCgroupNames, qosMemoryLimits, thisHost } from '../../../src/nodeagent/index.js';

export const quantityValueOf = (quantity: string | undefined): number => quantityValue(quantity) ?? 0;
