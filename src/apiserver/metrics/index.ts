export { ApiServerMetrics } from './api-metrics.js';
export type { MetricsSources, WatchCacheSample } from './api-metrics.js';
export { installMetrics, longRunningTracker, watchCacheSamples } from './install-metrics.js';
export type { LongRunningTracker } from './install-metrics.js';
export { MeteredStore } from './metered-store.js';
export type { StorageObserver } from './metered-store.js';
