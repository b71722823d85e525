import { METRICS_GROUP } from '../groups.js';
import { nodeMetricsSchema, podMetricsSchema } from '../kinds/index.js';
import { defineResourceType, type ResourceType } from '../resource-type.js';

/**
 * The resource metrics API: virtual types answered by the API server's resource metrics
 * (src/apiserver/resource-metrics), read with get and list only, as metrics-server serves them.
 * Their resources are named `nodes` and `pods`, as upstream's, so `kubectl top` finds them.
 */
const metrics = { group: METRICS_GROUP, version: 'v1beta1', verbs: ['get', 'list'], virtual: true } as const;

export const metricsTypes: readonly ResourceType[] = [
  defineResourceType({ ...metrics, kind: 'NodeMetrics', resource: 'nodes', namespaced: false, schema: nodeMetricsSchema }),
  defineResourceType({ ...metrics, kind: 'PodMetrics', resource: 'pods', namespaced: true, schema: podMetricsSchema }),
];
