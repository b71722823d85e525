import { badRequest, notFound, serviceUnavailable } from '../../api/index.js';
import { pathNotFound } from '../status.js';
import { agentPath } from './node-agent-paths.js';
import type { HandlerContext } from '../request/index.js';
import type { ApiObject } from '../api-object.js';
import type { NodeAgentEndpoint, NodeAgentTarget } from './node-agent-target.js';

/**
 * The subresources a node agent serves (a pod's log, exec, attach, portforward and proxy; a
 * node's proxy) and a service's proxy. The API server resolves what the request is about to the
 * node whose agent must answer — pod → `spec.nodeName` → Node → the agent's address and port —
 * and hands the request to `forwardToNodeAgent`, which forwards it there (node-agent-proxy.ts).
 */

/** `name`, `name:port` or `scheme:name:port` (the proxy forms): the object's name. */
export function proxiedName(name: string): string {
  const parts = name.split(':');
  if (parts.length === 3) return parts[1]!;
  return parts[0]!;
}

/** The endpoint of `nodeName`'s agent; 503 when the Node does not exist (no agent registered it). */
export async function nodeAgentEndpoint(ctx: HandlerContext, nodeName: string): Promise<NodeAgentEndpoint> {
  const nodes = ctx.registry.lookup('', 'v1', 'nodes');
  const node = nodes ? await ctx.reader.get(nodes, undefined, nodeName) : undefined;
  if (!node) throw serviceUnavailable(`the node agent of node ${JSON.stringify(nodeName)} is not available: the node is not registered`);
  return endpointOf(node);
}

/** Where a Node's agent listens, from its status (address and port may be missing yet). */
export function endpointOf(node: ApiObject): NodeAgentEndpoint {
  const status = (node['status'] ?? {}) as {
    addresses?: { type?: string; address?: string }[];
    daemonEndpoints?: { kubeletEndpoint?: { Port?: number } };
  };
  const addresses = status.addresses ?? [];
  const address = (addresses.find((a) => a.type === 'InternalIP') ?? addresses[0])?.address;
  return { node: node.metadata.name!, address, port: status.daemonEndpoints?.kubeletEndpoint?.Port };
}

/** Resolves the request to its node agent, then forwards it. */
export async function serveThroughNodeAgent(ctx: HandlerContext): Promise<unknown> {
  const { type, info } = ctx;
  const sub = info.subresource!;
  const name = proxiedName(info.name!);
  const gr = { group: type.group, resource: type.resource };
  if (type.resource === 'services') {
    const service = await ctx.reader.get(type, info.namespace, name);
    if (!service) throw notFound(gr, name);
    throw serviceUnavailable(`no endpoints available for service ${JSON.stringify(name)}: svc does not proxy to services yet (it needs a node agent proxy)`);
  }
  if (type.resource === 'nodes') {
    if (!(await ctx.reader.get(type, undefined, name))) throw notFound(gr, name);
    return forwardToNodeAgent(ctx, { subresource: sub, endpoint: await nodeAgentEndpoint(ctx, name) });
  }
  const pod = await ctx.reader.get(type, info.namespace, name);
  if (!pod) throw notFound(gr, name);
  const nodeName = (pod['spec'] as { nodeName?: string } | undefined)?.nodeName;
  if (!nodeName) throw badRequest(`pod ${name} does not have a host assigned`);
  const endpoint = await nodeAgentEndpoint(ctx, nodeName);
  const spec = (pod['spec'] ?? {}) as Record<string, { name?: string }[] | undefined>;
  const names = (key: string) => (spec[key] ?? []).map((c) => c.name ?? '');
  const regular = names('containers');
  const containers = [...regular, ...names('initContainers'), ...names('ephemeralContainers')];
  return forwardToNodeAgent(ctx, { subresource: sub, endpoint, pod: { namespace: info.namespace!, name, uid: pod.metadata.uid, containers, regular: regular.length } });
}

/**
 * Forwards a request to the agent of its node (node-agent-proxy.ts): `pods/log` to
 * `/containerLogs/{namespace}/{pod}/{container}`, `pods/exec` and `pods/attach` (upgrades) to
 * `/exec|attach/{namespace}/{pod}/{container}`, `pods/portforward` to `/portForward/{namespace}/{pod}`,
 * `nodes/proxy/<path>` to `/<path>`. Pod and service proxies (to the pod's own IP) stay 503.
 */
export async function forwardToNodeAgent(ctx: HandlerContext, target: NodeAgentTarget): Promise<unknown> {
  const { endpoint, pod } = target;
  if (!pod && target.subresource !== 'proxy') throw pathNotFound();
  if (pod && target.subresource === 'proxy') {
    throw serviceUnavailable(`the proxy of pod ${pod.namespace}/${pod.name} is not served: svc's API server proxies to node agents, not yet to pods' own addresses`);
  }
  if (endpoint.address === undefined || endpoint.port === undefined || endpoint.port === 0) {
    throw serviceUnavailable(`the node agent of node ${JSON.stringify(endpoint.node)} has not reported its address and port yet`);
  }
  const proxy = ctx.request.server.nodeAgentProxy;
  const path = agentPath(ctx, target);
  if (target.subresource === 'log' || target.subresource === 'proxy') {
    await proxy.forward(ctx, endpoint, path);
    return undefined;
  }
  if (!(await proxy.upgrade(ctx, endpoint, path))) throw badRequest('Upgrade request required');
  return undefined;
}
