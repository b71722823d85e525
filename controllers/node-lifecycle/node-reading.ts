import type { Lease, Node } from '../../src/api/index.js';
import { resourceVersionOf } from '../../src/client/index.js';
import type { NodeReport } from './node-health.js';
import { zoneOf } from './zone-state.js';

/** What a monitor pass reads of one Node version. */
export interface NodeReading extends NodeReport {
  readonly version: string | undefined;
  readonly zone: string;
  /**
   * Judged Ready with none of this loop's taints: a pass has nothing to do for this version but
   * keep it off `waiting`, so it does not judge it again. A new version is read and judged afresh.
   */
  settled: boolean;
}

interface LeaseReading {
  readonly version: string | undefined;
  readonly renewTime: string | undefined;
}

function readNode(name: string, node: Node, version: string | undefined): NodeReading {
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  return { name, version, ready: ready?.status, heartbeat: ready?.lastHeartbeatTime, created: Date.parse(node.metadata.creationTimestamp ?? ''), zone: zoneOf(node), settled: false };
}

/**
 * The monitor pass's readings of each node and its Lease, kept per version. The pass looks at
 * every node every period (5 s); an idle node's version changes every few minutes and its Lease's
 * every 10 s, so reading each version once — its status and labels for the node, `renewTime` for
 * the Lease — rather than once a pass spares decoding every Node's status every pass (most of the
 * manager's CPU at thousands of idle nodes: docs/benchmarks.md). Versions are compared by the
 * cache record's resourceVersion, which costs no decode.
 */
export class NodeReadings {
  readonly #nodes = new Map<string, NodeReading>();
  readonly #leases = new Map<string, LeaseReading>();

  node(name: string, node: Node): NodeReading {
    const version = resourceVersionOf(node);
    const known = this.#nodes.get(name);
    if (known !== undefined && version !== undefined && known.version === version) return known;
    const reading = readNode(name, node, version);
    this.#nodes.set(name, reading);
    return reading;
  }

  /** The node's Lease's `spec.renewTime`; undefined when it has none. */
  lease(name: string, lease: Lease): string | undefined {
    const version = resourceVersionOf(lease);
    const known = this.#leases.get(name);
    if (known !== undefined && version !== undefined && known.version === version) return known.renewTime;
    const renewTime = lease.spec?.renewTime;
    this.#leases.set(name, { version, renewTime });
    return renewTime;
  }

  forget(name: string): void {
    this.#nodes.delete(name);
    this.#leases.delete(name);
  }

  names(): IterableIterator<string> {
    return this.#nodes.keys();
  }
}
