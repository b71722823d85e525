/**
 * How many sockets a hollow fleet's heartbeat client (every node's Lease renewal and Node status)
 * may hold. A real agent has a connection of its own, so one node's slow answer never delays
 * another's renewal; a fleet shares one bounded pool, which carries at most (sockets ÷ a PUT's
 * latency) renewals a second. N nodes renew N ÷ 10 s a second, so by Little's law the pool keeps
 * every renewal on its schedule while the API server answers within `latencyBudgetMs` when it
 * holds renewals-per-second × budget sockets. The budget is 1 s, the API server's write SLO (p99):
 * up to it the fleet's bound is the server's, not the pool's; beyond it renewals stretch in
 * proportion (every 10 × latency seconds) and nodes go NotReady only past 4 s (the Lease's 40 s).
 * The pool opens a socket only for a request that finds every open one busy, so a fast server
 * uses a handful whatever the bound (docs/hollow-nodes.md).
 */
import { NODE_LEASE_RENEW_INTERVAL_MS } from '../node/index.js';

/** The API server's write SLO: a mutating request answered within 1 s (p99). */
export const HEARTBEAT_LATENCY_BUDGET_MS = 1_000;
/** Registrations at --start-rate and the first status writes come in small bursts even for a few nodes. */
export const MIN_HEARTBEAT_CONNECTIONS = 4;

/** Sockets for the heartbeats of `count` nodes: renewals a second × the latency budget, at least 4. */
export function heartbeatConnections(count: number, renewIntervalMs = NODE_LEASE_RENEW_INTERVAL_MS, latencyBudgetMs = HEARTBEAT_LATENCY_BUDGET_MS): number {
  return Math.max(MIN_HEARTBEAT_CONNECTIONS, Math.ceil((count * latencyBudgetMs) / renewIntervalMs));
}
