import { rfc3339, type Node } from '../../src/api/index.js';

/** The conditions a node agent reports and the controller turns Unknown when it goes silent. */
export const NODE_CONDITIONS = ['Ready', 'MemoryPressure', 'DiskPressure', 'PIDPressure'] as const;

/** The reason and message of a condition whose agent stopped reporting (the node agent's `markNodeStatusUnknown` uses the same). */
export const STATUS_UNKNOWN_REASON = 'NodeStatusUnknown';
export const STATUS_UNKNOWN_MESSAGE = 'Node agent stopped posting node status.';
/** …and of one its agent never reported. */
export const NEVER_UPDATED_REASON = 'NodeStatusNeverUpdated';
export const NEVER_UPDATED_MESSAGE = 'Node agent never posted node status.';

interface Observed {
  /** When this controller last saw the node's agent speak (its clock, not the agent's). */
  probeAt: number;
  heartbeat: string | undefined;
  leaseRenew: string | undefined;
  reported: boolean;
}

/** What node health reads of one Node version (node-reading.ts reads it once per version). */
export interface NodeReport {
  readonly name: string;
  /** The Ready condition's status; undefined when the node has none (it never reported). */
  readonly ready: string | undefined;
  /** The Ready condition's lastHeartbeatTime. */
  readonly heartbeat: string | undefined;
  /** `metadata.creationTimestamp` parsed (NaN when absent). */
  readonly created: number;
}

/**
 * When each node's agent last showed it is alive, by this controller's clock: a new Ready
 * heartbeat in the node's status or a newer `renewTime` on its Lease (upstream's
 * tryUpdateNodeHealth). A node seen for the first time counts as just heard from (one that never
 * reported: from its creation), so a restarted controller gives every node that was reporting a
 * full grace period before judging it.
 */
export class NodeHealth {
  readonly #observed = new Map<string, Observed>();

  /**
   * Records what the node and its Lease say now; returns when the agent was last heard from.
   * `leaseRenew` is the Lease's `spec.renewTime`, `hasLease` whether the node has a Lease at all.
   */
  observe(node: NodeReport, hasLease: boolean, leaseRenew: string | undefined, now: number): number {
    const { name, heartbeat } = node;
    const reported = node.ready !== undefined;
    const seen = this.#observed.get(name);
    if (seen === undefined) {
      // A node that never reported is judged from its creation (its startup grace), as upstream.
      const probeAt = !reported && !hasLease && Number.isFinite(node.created) ? Math.min(node.created, now) : now;
      this.#observed.set(name, { probeAt, heartbeat, leaseRenew, reported });
      return probeAt;
    }
    if (heartbeat !== seen.heartbeat || (reported && !seen.reported)) {
      seen.heartbeat = heartbeat;
      seen.probeAt = now;
    }
    // A Lease renewal counts only when it moves forward (Date.parse: RFC 3339 and MicroTime alike).
    // (The same text, which most passes see between two renewals, is no move: no parse.)
    if (leaseRenew !== undefined && leaseRenew !== seen.leaseRenew && (seen.leaseRenew === undefined || Date.parse(leaseRenew) > Date.parse(seen.leaseRenew))) {
      seen.leaseRenew = leaseRenew;
      seen.probeAt = now;
    }
    seen.reported ||= reported;
    return seen.probeAt;
  }

  /** Every node counts as heard from now (leaving the all-zones-down mode, as upstream). */
  resetAll(now: number): void {
    for (const seen of this.#observed.values()) seen.probeAt = now;
  }

  forget(name: string): void {
    this.#observed.delete(name);
  }

  names(): IterableIterator<string> {
    return this.#observed.keys();
  }
}

/**
 * The node's conditions with every reported one turned Unknown (heartbeat kept, transition now)
 * and every missing one added as never reported; undefined when all are Unknown already.
 */
export function unknownConditions(node: Node, now: number): NonNullable<NonNullable<Node['status']>['conditions']> | undefined {
  const at = rfc3339(now);
  const current = node.status?.conditions ?? [];
  let changed = false;
  const next = current.map((c) => {
    if (!(NODE_CONDITIONS as readonly string[]).includes(c.type) || c.status === 'Unknown') return c;
    changed = true;
    return { ...c, status: 'Unknown', reason: STATUS_UNKNOWN_REASON, message: STATUS_UNKNOWN_MESSAGE, lastTransitionTime: at };
  });
  for (const type of NODE_CONDITIONS) {
    if (current.some((c) => c.type === type)) continue;
    changed = true;
    next.push({ type, status: 'Unknown', reason: NEVER_UPDATED_REASON, message: NEVER_UPDATED_MESSAGE, lastHeartbeatTime: rfc3339(Date.parse(node.metadata.creationTimestamp ?? at)), lastTransitionTime: at });
  }
  return changed ? next : undefined;
}
