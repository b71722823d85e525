/** The QoS cgroup hierarchy and --qos-reserved's memory limits (cgroup v1 and v2, cgroupfs naming). */
export { hostCgroups, sharesToWeight, type CgroupFiles } from './cgroup-files.js';
export { burstableCpuMillis, milliCpuToShares, MIN_CPU_SHARES, podMemoryRequest, QOS_UPDATE_INTERVAL_MS, QosCgroupManager, qosCgroupNames, qosMemoryLimits, type QosCgroupManagerOptions, type QosMemoryLimits } from './qos-cgroups.js';
