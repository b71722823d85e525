export { Iptables } from './iptables.js';
export { restoreInput, ruleDelta, type RuleDelta } from './rule-delta.js';
export { removeAll, startServiceProxy, type ProxySync, type ServiceProxy, type ServiceProxyOptions } from './service-proxy.js';
export { EMPTY_RULES, isProxied, serviceRules, sharedChains, stableOrder, type EndpointOrders, type OwnedChain, type ProxyNode, type ServiceRules, type SharedLine, type Table } from './service-rules.js';
