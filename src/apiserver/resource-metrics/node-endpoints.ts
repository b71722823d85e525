import type { ResourceType } from '../../api/index.js';
import type { ObjectReader } from '../object-reader.js';
import type { ResourceCaches } from '../resource-caches.js';
import type { ServedObject } from '../served-object.js';
import { nodeAgentEndpointOf, type NodeAgentEndpoint } from '../subresources/index.js';

/** Every registered Node's agent endpoint, for one scrape round of the resource metrics. */
export type NodeEndpoints = () => Promise<readonly NodeAgentEndpoint[]>;

/**
 * The endpoints read from the Nodes' watch cache, each version's parsed once: a round runs every
 * `--metric-resolution` (15 s) over every Node, and reading them from the store parsed every
 * Node's JSON each round (5,000 Nodes: about 20 MB of JSON every 15 s, for nodes whose address
 * and port change about never). The store is read only while the cache is not ready.
 */
export function cachedNodeEndpoints(caches: ResourceCaches, nodes: ResourceType, reader: ObjectReader): NodeEndpoints {
  const parsed = new WeakMap<ServedObject, NodeAgentEndpoint>();
  const endpointOf = (served: ServedObject): NodeAgentEndpoint => {
    let endpoint = parsed.get(served);
    if (!endpoint) {
      endpoint = nodeAgentEndpointOf(JSON.parse(served.json.toString('utf8')) as Parameters<typeof nodeAgentEndpointOf>[0]);
      parsed.set(served, endpoint);
    }
    return endpoint;
  };
  return async () => {
    let items;
    try {
      items = caches.of(nodes).list().items;
    } catch {
      // Not ready yet (or stopped): the store has the answer.
      return (await reader.list(nodes, undefined)).items.map(nodeAgentEndpointOf);
    }
    return items.map((item) => endpointOf(item.object));
  };
}
