/** The node agent. Built so far: the container runtime layer (CRI client, images, runtime config). */
export * from './cri/index.js';
