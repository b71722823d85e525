// Public surface of controllers/node-ipam: pod CIDRs for nodes from the cluster CIDRs (docs/controller-manager.md).
export { nodeIpamController } from './node-ipam-controller.js';
export type { NodeIpamOptions } from './node-ipam-controller.js';
export { clusterCidrSets } from './cluster-cidrs.js';
export type { NodeIpamSettings } from './cluster-cidrs.js';
export { CidrSet } from './cidr-set.js';
export { formatCidr, overlaps, parseCidr } from './cidr.js';
export type { Cidr } from './cidr.js';
