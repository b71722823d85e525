/**
 * The node agent. Built so far: the container runtime layer (CRI client, images, runtime config),
 * node registration and heartbeats, pod sources and mirror pods.
 */
export * from './cri/index.js';
export * from './node/index.js';
export * from './sources/index.js';
export * from './mirror/index.js';
export * from './streaming/index.js';
