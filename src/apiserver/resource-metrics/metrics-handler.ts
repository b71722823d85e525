import { METRICS_GROUP, notFound, rfc3339, upstreamGroupName, type ResourceRegistry, type ResourceType } from '../../api/index.js';
import type { ApiObject } from '../api-object.js';
import { objectMatcher, representationOf, selectionOf, sendList, sendObject, type Handler, type HandlerContext } from '../request/index.js';
import type { PodUsage, ResourceMetrics } from './resource-metrics.js';
import type { Usage } from './usage-series.js';

/**
 * get and list of NodeMetrics and PodMetrics: the registered nodes and the pods that exist, each
 * with the usage the resource metrics hold for it (objects without usage yet are left out of lists
 * and are 404 to a get, as metrics-server answers). Label selectors select by the node's or pod's
 * labels, which the metrics object carries; field selectors by name and namespace.
 */

const cpuQuantity = (nanoCores: number) => `${Math.max(0, Math.round(nanoCores))}n`;
// metrics-server writes memory in Ki.
const memoryQuantity = (bytes: number) => `${Math.max(0, Math.round(bytes / 1024))}Ki`;
// A Go duration as metav1.Duration writes it.
const window = (ms: number) => `${ms / 1000}s`;

function nodeMetrics(node: ApiObject, usage: Usage, nowMs: number): ApiObject {
  return {
    kind: 'NodeMetrics',
    apiVersion: `${METRICS_GROUP}/v1beta1`,
    metadata: { name: node.metadata.name, ...(node.metadata.labels ? { labels: node.metadata.labels } : {}), creationTimestamp: rfc3339(nowMs) },
    timestamp: rfc3339(usage.timestampMs),
    window: window(usage.windowMs),
    usage: { cpu: cpuQuantity(usage.nanoCores), memory: memoryQuantity(usage.memoryBytes) },
  } as ApiObject;
}

function podMetrics(pod: ApiObject, usage: PodUsage, nowMs: number): ApiObject {
  return {
    kind: 'PodMetrics',
    apiVersion: `${METRICS_GROUP}/v1beta1`,
    metadata: {
      name: pod.metadata.name,
      namespace: pod.metadata.namespace,
      ...(pod.metadata.labels ? { labels: pod.metadata.labels } : {}),
      creationTimestamp: rfc3339(nowMs),
    },
    timestamp: rfc3339(usage.timestampMs),
    window: window(usage.windowMs),
    containers: [...usage.containers].map(([name, u]) => ({ name, usage: { cpu: cpuQuantity(u.nanoCores), memory: memoryQuantity(u.memoryBytes) } })),
  } as ApiObject;
}

/** The gr a 404 names, in the group the client used: metrics-server's `podmetrics` / `nodemetrics`. */
const groupResource = (ctx: HandlerContext) => ({ group: ctx.rename ? upstreamGroupName(ctx.type.group) : ctx.type.group, resource: ctx.type.kind.toLowerCase() });

function metricsHandler(metrics: ResourceMetrics, kind: 'node' | 'pod'): Handler {
  return async (ctx) => {
    const now = Date.now();
    const sourceType = ctx.registry.lookup('', 'v1', kind === 'node' ? 'nodes' : 'pods')!;
    const toMetrics = (object: ApiObject): ApiObject | undefined => {
      if (kind === 'node') {
        const usage = metrics.node(object.metadata.name!);
        return usage && nodeMetrics(object, usage, now);
      }
      const usage = metrics.pod(object.metadata.namespace!, object.metadata.name!, object.metadata.uid);
      return usage && podMetrics(object, usage, now);
    };
    if (ctx.info.verb === 'get') {
      const name = ctx.info.name!;
      const object = await ctx.reader.get(sourceType, ctx.info.namespace, name);
      const answer = object && toMetrics(object);
      // metrics-server names a pod `namespace/name` in its 404.
      if (!answer) throw notFound(groupResource(ctx), ctx.info.namespace !== undefined ? `${ctx.info.namespace}/${name}` : name);
      return sendObject(ctx, 200, answer);
    }
    const selection = selectionOf(ctx);
    const matches = objectMatcher(ctx, selection);
    const { items, revision } = await ctx.reader.list(sourceType, ctx.info.namespace);
    const answers: Uint8Array[] = [];
    for (const object of items) {
      const answer = toMetrics(object);
      if (answer && matches(answer)) answers.push(Buffer.from(JSON.stringify(answer)));
    }
    return sendList(ctx, { resourceVersion: revision }, answers, representationOf(ctx, 'list', true));
  };
}

/** The handlers of the metrics types the registry serves. */
export function resourceMetricsHandlers(registry: ResourceRegistry, metrics: ResourceMetrics): Map<ResourceType, Handler> {
  const handlers = new Map<ResourceType, Handler>();
  const nodes = registry.lookup(METRICS_GROUP, 'v1beta1', 'nodes');
  const pods = registry.lookup(METRICS_GROUP, 'v1beta1', 'pods');
  if (nodes?.virtual) handlers.set(nodes, metricsHandler(metrics, 'node'));
  if (pods?.virtual) handlers.set(pods, metricsHandler(metrics, 'pod'));
  return handlers;
}
