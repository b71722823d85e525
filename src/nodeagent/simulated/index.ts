/** svc's simulated CRI runtime and the hollow node: the real node agent with simulated containers (docs/hollow-nodes.md). */
export { SimulatedRuntime } from './simulated-runtime.js';
export { simulationDefaults, simulationSettings, type SimulationSettings } from './simulation-settings.js';
export { InProcessTransport, type InProcessTransportOptions } from './in-process-transport.js';
export { serveSimulatedRuntime, type SimulatedRuntimeServer } from './runtime-server.js';
export { simulatedAddressSources, simulatedHost, type SimulatedHostShape } from './simulated-host.js';
export { SIMULATED_NODE_NOTICE, startHollowNode, type HollowNode, type HollowNodeOptions } from './hollow-node.js';
export { fleetAddresses, hollowNodeName, startHollowFleet, type HollowFleetOptions } from './hollow-fleet.js';
export { fleetDescriptors, openFilesLimit } from './descriptor-budget.js';
export { HEARTBEAT_LATENCY_BUDGET_MS, heartbeatConnections, MIN_HEARTBEAT_CONNECTIONS } from './heartbeat-pool.js';
