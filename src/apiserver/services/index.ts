// Service cluster IPs and NodePorts: ranges, the allocator and its repair (docs/apiserver.md#service-cluster-ips-and-nodeports).
export { ServiceAllocator } from './service-allocator.js';
export type { PreparedService, ServiceAllocatorOptions } from './service-allocator.js';
export { DEFAULT_SERVICE_CLUSTER_IP_RANGE, DEFAULT_SERVICE_NODE_PORT_RANGE, canonicalIp, inClusterIpRange, parseClusterIpRanges, parseNodePortRange } from './service-ranges.js';
export type { ClusterIpRange, NodePortRange } from './service-ranges.js';
