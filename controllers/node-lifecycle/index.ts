// Public surface of controllers/node-lifecycle: node health, the not-ready/unreachable taints and zone states (docs/controller-manager.md).
export { nodeLifecycleController, NODE_LEASE_NAMESPACE } from './node-lifecycle-controller.js';
export type { NodeLifecycleOptions } from './node-lifecycle-controller.js';
export { POD_NODE_INDEX, podNodeIndex } from './pods-on-node.js';
export { zoneOf, zoneRate, zoneState } from './zone-state.js';
export type { ZoneState } from './zone-state.js';
export { STATUS_UNKNOWN_MESSAGE, STATUS_UNKNOWN_REASON } from './node-health.js';
