/**
 * Many hollow nodes in one process (`svc hollow-nodes`). What they share, to keep a node's cost
 * low, and where that differs from N node agents on N machines:
 * - one API client for pods, one for status and Leases, one for Events (each a bounded
 *   connection pool, as the kubelet has a client, a heartbeat client and an event client), and one
 *   for the watches: every node's pod watch is still its own request (a
 *   field selector on its name), so the API server serves N watches as for N agents; the agents'
 *   `--svc-api-qps` buckets are not applied per node (the API server's flow control limits them);
 * - one informer factory (on the watch client): each node's informer is its own (its own field
 *   selector), only the factory object is shared;
 * - one Node.js event loop and heap: timers of every node (status checks, Lease renewals, relists)
 *   run on it, so a busy process delays all nodes at once where machines would not.
 * Each node keeps its own simulated runtime, pod workers, probes, images, event recorder and
 * status loop: nothing a real agent keeps per node is pooled.
 */
import { join } from 'node:path';
import type { Client, InformerFactory } from '../../client/index.js';
import { parseIpv4Cidr } from '../cri/index.js';
import type { NodeStatusOptions } from '../node/index.js';
import { startHollowNode, type HollowNode } from './hollow-node.js';
import type { SimulatedHostShape } from './simulated-host.js';
import type { SimulationSettings } from './simulation-settings.js';

export interface HollowFleetOptions {
  readonly count: number;
  /**
   * The index of the fleet's first node (default 0): its nodes are `firstIndex` ..
   * `firstIndex + count - 1`, names and addresses alike, so fleets in several processes with the
   * same prefix and ranges hold distinct nodes (`svc hollow-nodes --first-index`).
   */
  readonly firstIndex?: number | undefined;
  /** Node names are this with the index, zero-padded to 5 digits: `hollow-00042`. */
  readonly namePrefix: string;
  readonly client: Client;
  readonly statusClient?: Client | undefined;
  readonly eventClient?: Client | undefined;
  readonly informers: InformerFactory;
  /** Each node's root dir is `<rootDir>/<name>`. */
  readonly rootDir: string;
  /** Node i's address is the (i+1)th of this range. */
  readonly nodeCidr: string;
  /** Node i's pods get addresses from the ith /24 of this range. */
  readonly podCidr: string;
  readonly simulation: Partial<Omit<SimulationSettings, 'podNetwork'>>;
  readonly host?: SimulatedHostShape | undefined;
  readonly version: string;
  readonly nodeOptions?: Partial<NodeStatusOptions> | undefined;
  readonly statusReportFrequencyMs?: number | undefined;
  readonly syncFrequencyMs?: number | undefined;
  /** `HollowNodeOptions.writeVolumes`. */
  readonly writeVolumes?: boolean | undefined;
  /** `HollowNodeOptions.shapeCriRequests`. */
  readonly shapeCriRequests?: boolean | undefined;
  readonly clusterDNS?: readonly string[] | undefined;
  readonly clusterDomain?: string | undefined;
  /** Nodes started per second (registrations spread out); 0 starts them all at once. */
  readonly startRate?: number | undefined;
  readonly signal?: AbortSignal | undefined;
  readonly onError?: ((node: string, what: string, error: unknown) => void) | undefined;
}

const toNumber = (address: string): number => address.split('.').reduce((n, octet) => n * 256 + Number(octet), 0) >>> 0;
const toAddress = (n: number): string => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');

/** The address of node `index` in `cidr`, and its pods' /24; a range too small for indexes below `count` is a RangeError. */
export function fleetAddresses(nodeCidr: string, podCidr: string, count: number): (index: number) => { nodeIp: string; podNetwork: string } {
  const nodes = parseIpv4Cidr(nodeCidr);
  const pods = parseIpv4Cidr(podCidr);
  if (count + 2 > 2 ** (32 - nodes.prefix)) throw new RangeError(`--node-cidr ${nodeCidr} holds fewer than ${count} node addresses`);
  if (pods.prefix > 24 || count > 2 ** (24 - pods.prefix)) throw new RangeError(`--pod-cidr ${podCidr} holds fewer than ${count} /24 pod networks`);
  const nodeBase = toNumber(nodes.address);
  const podBase = toNumber(pods.address);
  return (index) => ({ nodeIp: toAddress((nodeBase + index + 1) >>> 0), podNetwork: `${toAddress((podBase + index * 256) >>> 0)}/24` });
}

export function hollowNodeName(prefix: string, index: number): string {
  return `${prefix}${String(index).padStart(5, '0')}`;
}

/** Starts the fleet, `startRate` nodes a second; resolves with every node started (not yet Ready). */
export async function startHollowFleet(options: HollowFleetOptions): Promise<HollowNode[]> {
  const first = options.firstIndex ?? 0;
  const addressOf = fleetAddresses(options.nodeCidr, options.podCidr, first + options.count);
  const nodes: HollowNode[] = [];
  const rate = options.startRate ?? 0;
  const began = Date.now();
  for (let index = first; index < first + options.count; index++) {
    if (options.signal?.aborted) break;
    if (rate > 0) {
      const due = began + ((index - first) / rate) * 1000;
      if (due > Date.now()) await new Promise((resolve) => setTimeout(resolve, due - Date.now()));
    }
    const name = hollowNodeName(options.namePrefix, index);
    const { nodeIp, podNetwork } = addressOf(index);
    nodes.push(
      startHollowNode({
        name,
        client: options.client,
        statusClient: options.statusClient,
        eventClient: options.eventClient,
        informers: options.informers,
        simulation: { ...options.simulation, podNetwork },
        rootDir: join(options.rootDir, name),
        nodeIp,
        host: options.host,
        version: options.version,
        nodeOptions: options.nodeOptions,
        statusReportFrequencyMs: options.statusReportFrequencyMs,
        syncFrequencyMs: options.syncFrequencyMs,
        writeVolumes: options.writeVolumes,
        shapeCriRequests: options.shapeCriRequests,
        clusterDNS: options.clusterDNS,
        clusterDomain: options.clusterDomain,
        onError: (what, error) => options.onError?.(name, what, error),
      }),
    );
  }
  return nodes;
}
