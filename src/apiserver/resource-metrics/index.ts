// Public surface of src/apiserver/resource-metrics: the resource metrics API (docs/autoscaling.md).
export { ResourceMetrics, type ResourceMetricsOptions, type PodUsage } from './resource-metrics.js';
export { cachedNodeEndpoints, type NodeEndpoints } from './node-endpoints.js';
export { resourceMetricsHandlers } from './metrics-handler.js';
export { advance, usageOf, type CounterSample, type Series, type Usage } from './usage-series.js';
export { summarySamples, type NodeSummarySamples, type PodRef } from './summary-samples.js';
