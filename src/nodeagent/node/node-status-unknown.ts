import { isStatusError, rfc3339, type Node } from '../../api/index.js';
import { builtin, type Client } from '../../client/index.js';

/** The reason and message the node lifecycle controller gives a node whose agent went silent. */
export const NODE_STATUS_UNKNOWN_REASON = 'NodeStatusUnknown';
export const NODE_STATUS_UNKNOWN_MESSAGE = 'Node agent stopped posting node status.';

/**
 * Sets every condition of the Node `nodeName` to Unknown (reason NodeStatusUnknown), as the node
 * lifecycle controller does once a node's agent stops posting: what the Node said came from an
 * agent that is gone, and no one may take its old Ready for a live one. `svc up` calls this
 * before it starts its node, so a restarted cluster does not show the node Ready until its new
 * agent says so. Heartbeat times stay (they say when the agent last spoke); transition times move
 * to `now` for each condition that changes. A Node that does not exist or has no conditions is
 * left alone. Returns whether it wrote.
 */
export async function markNodeStatusUnknown(client: Client, nodeName: string, now: number = Date.now()): Promise<boolean> {
  // A conflict means someone (its agent) just wrote: read again and decide anew.
  for (let attempt = 0; ; attempt++) {
    let node: Node;
    try {
      node = await client.get(builtin.nodes, nodeName);
    } catch (error) {
      if (isStatusError(error) && error.code === 404) return false;
      throw error;
    }
    const conditions = node.status?.conditions ?? [];
    if (conditions.every((c) => c.status === 'Unknown')) return false;
    const unknown = conditions.map((c) =>
      c.status === 'Unknown' ? c : { ...c, status: 'Unknown', reason: NODE_STATUS_UNKNOWN_REASON, message: NODE_STATUS_UNKNOWN_MESSAGE, lastTransitionTime: rfc3339(now) },
    );
    try {
      // The resourceVersion makes the write conditional: it must not undo a report that raced it.
      await client.patchStatus(builtin.nodes, nodeName, { metadata: { resourceVersion: node.metadata.resourceVersion }, status: { conditions: unknown } });
      return true;
    } catch (error) {
      if (isStatusError(error) && error.code === 409 && attempt < 5) continue;
      throw error;
    }
  }
}
