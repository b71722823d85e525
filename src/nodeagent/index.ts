/** The node agent. Built so far: the container runtime layer (CRI client, images, runtime config) and node registration and heartbeats. */
export * from './cri/index.js';
export * from './node/index.js';
