export { Iptables } from './iptables.js';
export { Conntrack, staleUdpFilters } from './conntrack.js';
export { restoreInput, ruleDelta, type RuleDelta } from './rule-delta.js';
export { removeAll, startServiceProxy, type ProxySync, type ServiceProxy, type ServiceProxyOptions } from './service-proxy.js';
export { clusterIpOf, EMPTY_RULES, familyOf, isProxied, serviceRules, sharedChains, stableOrder, type EndpointOrders, type IpFamily, type OwnedChain, type ProxyNode, type ServiceRules, type SharedLine, type Table, type UdpPort } from './service-rules.js';
