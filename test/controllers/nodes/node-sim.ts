// Simulated node agents for the node loops' tests: a Node with Ready conditions and a Lease in
// svc-node-lease, renewed when the test says (on the test's virtual clock), as an agent would.
import { microTime, rfc3339, type Lease, type Node, type Pod, type Taint } from '../../../src/api/index.js';
import { builtin, type Client } from '../../../src/client/index.js';
import type { ControllerContext, NodeLifecycleOptions } from '../../../controllers/index.js';
import { cacheHolds } from '../../support/cache-holds.js';

export const LEASE_NS = 'svc-node-lease';

/** The monitor pass every 5 s of virtual time, and the 40 s grace period, of the node loops' tests. */
export const PERIOD = 5_000;
export const GRACE = 40_000;

/** The node lifecycle's options in these tests, on the test's virtual clock; `overrides` changes some. */
export function lifecycleOptions(scheduler: NodeLifecycleOptions['scheduler'], overrides: Partial<NodeLifecycleOptions> = {}): NodeLifecycleOptions {
  return { monitorPeriodMs: PERIOD, gracePeriodMs: GRACE, startupGracePeriodMs: 60_000, evictionRate: 1, secondaryEvictionRate: 0.01, largeClusterThreshold: 50, unhealthyZoneThreshold: 0.55, scheduler, ...overrides };
}

export interface SimNodeOptions {
  readonly zone?: string;
  readonly taints?: Taint[];
}

/** What a simulated agent (or the test) wrote, as the server answered: what a loop's caches are to hold before a pass. */
export interface SimWrites {
  readonly nodes?: readonly Node[];
  readonly leases?: readonly Lease[];
}

/** Creates a Ready node (conditions heartbeat `now`) and its Lease renewed `now`; answers both as written. */
export async function createSimNode(client: Client, name: string, now: number, options: SimNodeOptions = {}): Promise<{ nodes: Node[]; leases: Lease[] }> {
  const labels: Record<string, string> = options.zone ? { 'topology.svc.io/zone': options.zone } : {};
  const created = await client.create(builtin.nodes, { apiVersion: 'v1', kind: 'Node', metadata: { name, labels }, spec: options.taints ? { taints: options.taints } : {} });
  const node = await client.updateStatus(builtin.nodes, { ...created, status: { conditions: readyConditions(now, 'True') } });
  const lease = await client.create(builtin.leases, {
    apiVersion: 'coordination.svc.io/v1',
    kind: 'Lease',
    metadata: { name, namespace: LEASE_NS },
    spec: { holderIdentity: name, leaseDurationSeconds: 40, renewTime: microTime(now) },
  } as Lease);
  return { nodes: [node], leases: [lease] };
}

/**
 * Resolves once the loop's caches hold `writes`. A monitor pass reads the caches, and a write's
 * watch event reaches them after its answer (up to --watch-write-interval later for a busy watch):
 * a pass run before would judge the node by its earlier version — a renewal or a heartbeat unseen,
 * a Ready=False not yet there (docs/testing.md#virtual-time).
 */
export async function cachesHold(ctx: ControllerContext, ...writes: readonly SimWrites[]): Promise<void> {
  const nodes = writes.flatMap((w) => w.nodes ?? []);
  const leases = writes.flatMap((w) => w.leases ?? []);
  // The loop's own informers (the factory answers the same instance); none is made for nothing to wait for.
  if (nodes.length > 0) await cacheHolds(ctx.informers.informer(builtin.nodes), ...nodes);
  if (leases.length > 0) await cacheHolds(ctx.informers.informer(builtin.leases), ...leases);
}

export function readyConditions(now: number, ready: 'True' | 'False') {
  const at = rfc3339(now);
  return [
    { type: 'Ready', status: ready, reason: ready === 'True' ? 'NodeAgentReady' : 'NodeAgentNotReady', message: 'sim', lastHeartbeatTime: at, lastTransitionTime: at },
    { type: 'MemoryPressure', status: 'False', reason: 'NodeAgentHasSufficientMemory', message: 'sim', lastHeartbeatTime: at, lastTransitionTime: at },
  ];
}

/** Renews the node's Lease at `now`, as its agent does every 10 s; answers the Lease as written. */
export async function renewLease(client: Client, name: string, now: number): Promise<Lease> {
  const lease = await client.get(builtin.leases, name, { namespace: LEASE_NS });
  return client.update(builtin.leases, { ...lease, spec: { ...lease.spec, renewTime: microTime(now) } });
}

/** Renews each named node's Lease at `now`; answers the Leases as written. */
export async function renewLeases(client: Client, names: readonly string[], now: number): Promise<SimWrites> {
  const leases: Lease[] = [];
  for (const name of names) leases.push(await renewLease(client, name, now));
  return { leases };
}

/** The agent is back: Ready True with a new heartbeat, and its Lease renewed; answers both as written. */
export async function agentBack(client: Client, name: string, now: number): Promise<{ nodes: Node[]; leases: Lease[] }> {
  const current = await client.get(builtin.nodes, name);
  const node = await client.updateStatus(builtin.nodes, { ...current, status: { ...current.status, conditions: readyConditions(now, 'True') } });
  return { nodes: [node], leases: [await renewLease(client, name, now)] };
}

/** A running, Ready pod bound to `node`. */
export async function createBoundPod(client: Client, name: string, node: string, tolerations: NonNullable<Pod['spec']['tolerations']> = []): Promise<Pod> {
  const pod = await client.create(builtin.pods, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default' },
    spec: { nodeName: node, containers: [{ name: 'c', image: 'busybox' }], tolerations },
  } as Pod);
  const at = rfc3339(Date.now());
  return client.updateStatus(builtin.pods, { ...pod, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: at }] } });
}

export const taintsOf = async (client: Client, name: string) => ((await client.get(builtin.nodes, name)).spec?.taints ?? []).map((t) => `${t.key}:${t.effect}`).sort();
export const readyOf = async (client: Client, name: string) => (await client.get(builtin.nodes, name)).status?.conditions?.find((c) => c.type === 'Ready')?.status;
