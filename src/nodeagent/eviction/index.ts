// Node-pressure eviction: thresholds from the flags, signals observed from the host and the
// runtime, pods ranked and evicted one per housekeeping pass (docs/node-agent.md#node-pressure-eviction).
export { evictionThresholds, amountOf, signalAmount, EVICTION_SIGNALS } from './eviction-thresholds.js';
export type { EvictionFlags, EvictionSignal, EvictionThreshold, SignalAmount } from './eviction-thresholds.js';
export { EvictionState, thresholdMet, PRESSURE_OF } from './eviction-state.js';
export type { EvictionDecision, NodePressure, Observations, SignalObservation } from './eviction-state.js';
export { rankForEviction, podRequest, isCriticalPod, RESOURCE_OF, SYSTEM_CRITICAL_PRIORITY } from './pod-ranking.js';
export type { PodCandidate, PodUsage, StarvedResource } from './pod-ranking.js';
export { evictionMessage } from './eviction-message.js';
export { observeEviction } from './observe.js';
export type { EvictionObservation } from './observe.js';
export { startEvictionManager, EVICTION_MONITORING_INTERVAL_MS, IMMEDIATE_EVICTION_GRACE_SECONDS } from './eviction-manager.js';
export type { EvictionManagerHandle, EvictionManagerOptions, EvictionPassResult } from './eviction-manager.js';
export { cgroupV1Notifier, memcgNotificationSupport, MemoryThresholdNotifiers } from './memcg-notifier.js';
export type { MemoryThresholdNotifiersOptions, NotifierFactory, ThresholdNotifier } from './memcg-notifier.js';
