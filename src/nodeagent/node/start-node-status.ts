import { asyncScheduler, defer, ignoreElements, merge, repeat, Subject, switchMap, takeUntil, tap, type Observable, type SchedulerLike } from 'rxjs';
import { isStatusError, type Node } from '../../api/index.js';
import { builtin } from '../../client/index.js';
import type { Client } from '../../client/index.js';
import { internalIps, nodeAddresses, type AddressSources } from './addresses.js';
import { nodeResources } from './capacity.js';
import { nodeAgentEvents } from './node-events.js';
import { hardThresholds } from './eviction-thresholds.js';
import type { NodeCondition } from './conditions.js';
import { withPressureTaints, type NodeTaint } from './pressure-taints.js';
import { thisHost, type HostInfo } from './host.js';
import { NODE_LEASE_RENEW_INTERVAL_MS, nodeLeaseRenewals } from './node-lease.js';
import { newNode, nodeLabels, nodeName, parseTaints } from './node-object.js';
import { StatusSource, type StatusSourceOptions } from './node-status.js';
import type { NodeStatusOptions } from './options.js';
import { registration } from './registration.js';
import type { RuntimeInfo } from './runtime-info.js';
import { nodeGone, statusUpdates, type StatusCheck } from './status-updates.js';

/** The kubelet's default `nodeStatusReportFrequency`: an unchanged status is written again this often. */
export const NODE_STATUS_REPORT_FREQUENCY_MS = 300_000;

export interface StartNodeStatusOptions {
  readonly client: Client;
  readonly options: NodeStatusOptions;
  readonly runtime: RuntimeInfo;
  /** The version reported as nodeInfo.kubeletVersion. */
  readonly version: string;
  /** The machine; default this one. */
  readonly host?: HostInfo;
  /** Where the default route is read from; default this machine's /proc and interfaces. */
  readonly addressSources?: AddressSources;
  /** How often the status is read to find a change; default min(1 s, the update frequency). */
  readonly statusCheckIntervalMs?: number;
  /**
   * How often an unchanged status is written again (the kubelet's `nodeStatusReportFrequency`);
   * default 5 min. The Lease is the heartbeat, so an idle node need not write its status every
   * `--node-status-update-frequency`.
   */
  readonly statusReportFrequencyMs?: number;
  /** Lease renewal interval; default 10 s. */
  readonly leaseRenewIntervalMs?: number;
  readonly scheduler?: SchedulerLike;
  /** Failures that are retried (registration, status, lease): for the daemon's log. */
  readonly onError?: (what: 'registration' | 'status' | 'lease', error: unknown) => void;
  /** status.images (src/nodeagent/images `nodeImagesReader(...).read`); left out when not given. */
  readonly images?: StatusSourceOptions['images'];
  /** The eviction manager's pressures (src/nodeagent/eviction); without it the hard thresholds are checked here. */
  readonly pressures?: StatusSourceOptions['pressures'];
  /** Annotations the agent keeps on its Node (a hollow node's notice that its runtime is simulated). */
  readonly annotations?: Readonly<Record<string, string>>;
}

export interface NodeStatusHandle {
  readonly nodeName: string;
  /** Every status check, written or not (hot: subscribe before the checks you want to see). */
  readonly checks$: Observable<StatusCheck>;
  /** The events the agent has written, dropped and still holds. */
  eventStats(): { written: number; dropped: number; pending: number };
  /** The Node as the agent last registered or wrote it (its annotations: the ttl controller's object cache TTL). */
  node(): Node | undefined;
  stop(): Promise<void>;
}

/**
 * Puts the pressure taints on the Node to match its conditions (the kubelet's node lifecycle
 * companion does this upstream; here the agent that sets the conditions sets the taints). The
 * patch carries the Node's resourceVersion: a taint someone else wrote meanwhile is a Conflict,
 * and the next posted status tries again from the newer Node.
 */
async function syncPressureTaints(client: Client, node: Node, conditions: readonly NodeCondition[]): Promise<void> {
  const taints = withPressureTaints((node.spec?.taints ?? []) as NodeTaint[], conditions);
  if (!taints) return;
  try {
    await client.patch(builtin.nodes, node.metadata.name ?? '', { metadata: { resourceVersion: node.metadata.resourceVersion }, spec: { taints } });
  } catch (error) {
    if (!isStatusError(error, 'Conflict')) throw error;
  }
}

/**
 * Registers the node and keeps its status and Lease fresh until stopped: registration (or, with
 * `--register-node=false`, waiting for the Node), then the status updates and the Lease renewals
 * side by side. A Node deleted under a registering agent is registered again. Options are checked
 * first: a bad taint, threshold, reservation or node IP throws a 400 StatusError here, before
 * anything is written.
 */
export function startNodeStatus(start: StartNodeStatusOptions): NodeStatusHandle {
  const { client, options, runtime } = start;
  const host = start.host ?? thisHost;
  const scheduler = start.scheduler ?? asyncScheduler;
  const name = nodeName(options, host);
  const thresholds = hardThresholds(options.evictionHard);
  const taints = parseTaints(options.registerWithTaints);
  nodeResources(options, host, thresholds); // checks the reservations
  const addresses = nodeAddresses(internalIps(options.nodeIp, start.addressSources), host.hostname());
  const wanted = newNode(name, nodeLabels(name, options, host), taints, options.providerId, start.annotations);
  const events = nodeAgentEvents({ client, qps: options.eventQps, burst: options.eventBurst, host: name, scheduler });
  const involved = (node: Node) => ({ apiVersion: 'v1', kind: 'Node', name, uid: node.metadata.uid });
  const checks = new Subject<StatusCheck>();
  let latest: Node | undefined;
  const reregister = new Subject<void>();

  const run = (): Observable<never> =>
    registration({
      client,
      wanted,
      register: options.registerNode,
      scheduler,
      onError: (e) => start.onError?.('registration', e),
      onCreated: (node) => events.record(involved(node), 'Normal', 'RegisteredNode', `Node ${name} event: Registered Node ${name} in Controller`),
    }).pipe(
      switchMap((node) => {
        latest = node;
        const source = new StatusSource({ options, host, runtime, thresholds, addresses, version: start.version, node, images: start.images, pressures: start.pressures });
        const status$ = statusUpdates({
          client,
          nodeName: name,
          source,
          frequencyMs: start.statusReportFrequencyMs ?? NODE_STATUS_REPORT_FREQUENCY_MS,
          checkIntervalMs: start.statusCheckIntervalMs ?? Math.min(1_000, options.nodeStatusUpdateFrequency),
          scheduler,
          initialReady: node.status?.conditions?.find((c) => c.type === 'Ready')?.status,
          onPosted: (check, previousReady) => {
            const ready = check.status.conditions.find((c) => c.type === 'Ready')!;
            if (ready.status === previousReady) return;
            if (ready.status === 'True') events.record(involved(check.node), 'Normal', 'NodeReady', `Node ${name} status is now: NodeReady`);
            else events.record(involved(check.node), 'Normal', 'NodeNotReady', `Node ${name} status is now: NodeNotReady`);
          },
        }).pipe(
          tap((check) => {
            if (check.posted) latest = check.node;
            if (check.posted) void syncPressureTaints(client, check.node, check.status.conditions).catch((e: unknown) => start.onError?.('status', e));
            checks.next(check);
            if ('error' in check) start.onError?.('status', check.error);
            if (options.registerNode && nodeGone(check)) reregister.next();
          }),
        );
        const lease$ = nodeLeaseRenewals({
          client,
          node,
          renewIntervalMs: start.leaseRenewIntervalMs ?? NODE_LEASE_RENEW_INTERVAL_MS,
          scheduler,
          onError: (e) => start.onError?.('lease', e),
          onNodeGone: () => {
            if (options.registerNode) reregister.next();
          },
        });
        return merge(status$, lease$).pipe(ignoreElements(), takeUntil(reregister));
      }),
    );

  // A pass ends when the Node is found deleted, by a status write or by its Lease gone with it (takeUntil above); repeat registers it again.
  const subscription = defer(run).pipe(repeat()).subscribe();

  return {
    nodeName: name,
    checks$: checks.asObservable(),
    eventStats: () => events.stats(),
    node: () => latest,
    async stop() {
      subscription.unsubscribe();
      events.stop();
      checks.complete();
    },
  };
}
