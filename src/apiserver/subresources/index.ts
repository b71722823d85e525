// Subresources: the status/spec split, scale, binding, eviction, and the node agent's
// subresources; see docs/subresources.md.

export { subresourceEntries, subresourceHandler, virtualEndpoint, virtualResources, SUBRESOURCES, type SubresourceEndpoint } from './endpoints.js';
export { isStatusWrite, splitWrite, statusOnCreate, writableThrough } from './write-scope.js';
export { endpointOf as nodeAgentEndpointOf, forwardToNodeAgent, nodeAgentEndpoint } from './node-agent.js';
export type { NodeAgentProxy } from './node-agent-proxy.js';
export type { NodeAgentEndpoint, NodeAgentTarget } from './node-agent-target.js';
export { computeStatus as computeDisruptionBudgetStatus, type BudgetStatus } from './disruption-budget.js';
export { scaleOf, type ResolvedScale } from './scale-paths.js';
