/** A node's own containerd: host checks, the child process, and what it leaves on the host. */
export { DEFAULT_CNI_BIN_DIR, missingNodeDependencies, type MissingDependency } from './host-dependencies.js';
export { freePodCidr, linkExists, listNetns, mountsUnder, netnsPathOf, overlaySupported, shimsOf } from './host-state.js';
export { startContainerdProcess, type ContainerdLeftovers, type ContainerdProcess, type ContainerdProcessOptions } from './containerd-process.js';
