/**
 * The node agent. Built so far: the container runtime layer (CRI client, images, runtime config),
 * node registration and heartbeats, pod sources and mirror pods, the pod workers, volumes, probes
 * and images, node-pressure eviction, the resource managers (CPU, memory, topology), the agent server (HTTPS, logs).
 */
export * from './cri/index.js';
export * from './containerd/index.js';
export * from './node/index.js';
export * from './sources/index.js';
export * from './mirror/index.js';
export * from './images/index.js';
export * from './probes/index.js';
export * from './server/index.js';
export * from './volumes/index.js';
export * from './pods/index.js';
export * from './eviction/index.js';
export * from './resource-managers/index.js';
export * from './streaming/index.js';
export * from './certificates/index.js';
export * from './log/index.js';
export * from './cgroups/index.js';
