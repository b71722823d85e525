/**
 * A hollow node: the node agent's own parts — registration, status and Lease (`startNodeStatus`),
 * the API pod source, the pod workers with their volumes, images and probes, and the pod status
 * writes — on svc's simulated CRI runtime instead of containerd. Only the containers are
 * simulated; everything the API server, the scheduler and the controllers see is the agent's.
 *
 * What the daemon (`src/cli/nodeagent-run.ts`) runs and a hollow node leaves out, because it
 * serves or guards a real machine: the agent's HTTPS server (logs, exec, `/stats/summary`), log
 * rotation, image and container garbage collection, node-pressure eviction, certificate rotation,
 * static pods and their mirrors, and the root dir's shared mount (docs/hollow-nodes.md).
 *
 * The Node says what it is: label `svc.io/simulated=true`, an annotation in words, and
 * nodeInfo.containerRuntimeVersion `svc-simulated://<version>` (from the runtime's Version).
 */
import { join } from 'node:path';
import { connectable, Subject } from 'rxjs';
import type { Node, Pod } from '../../api/index.js';
import { SIMULATED_NODE_ANNOTATION, SIMULATED_NODE_LABEL, SIMULATED_RUNTIME_NAME } from '../../api/index.js';
import { builtin, NAMESPACE_INDEX, namespaceIndex, type Client, type InformerFactory } from '../../client/index.js';
import { CriClient, type CriCallRecord } from '../cri/index.js';
import { ImageManager } from '../images/index.js';
import { criRuntimeInfo, hardThresholds, nodeAgentEvents, nodeObjectTtlMs, nodeResources, nodeStatusDefaults, startNodeStatus, type NodeStatusHandle, type NodeStatusOptions } from '../node/index.js';
import { podVolumesAccess, startPodWorkers, type PodWorkersHandle } from '../pods/index.js';
import { cachingObjectReader, podObjectReader } from '../volumes/index.js';
import { parseProbeAction, ProbeManager, runProbe } from '../probes/index.js';
import { configuredSources, podSources, SourcesReadiness, type PodUpdate } from '../sources/index.js';
import { InProcessTransport } from './in-process-transport.js';
import { simulatedAddressSources, simulatedHost, type SimulatedHostShape } from './simulated-host.js';
import { SimulatedRuntime } from './simulated-runtime.js';
import type { SimulationSettings } from './simulation-settings.js';

export interface HollowNodeOptions {
  readonly name: string;
  /** Pod status writes, volumes' API reads (the agent's `--svc-api-qps` client); may be shared by many hollow nodes. */
  readonly client: Client;
  /** Registration, status and Lease (the kubelet's heartbeat client); default `client`. */
  readonly statusClient?: Client | undefined;
  /** The pods' Events (the kubelet's event client), so that no Event queues ahead of a Lease renewal; default `statusClient`. */
  readonly eventClient?: Client | undefined;
  /** The informers of the node's pods; may be shared (each node's pods are still their own watch, by field selector). */
  readonly informers: InformerFactory;
  /** The node's runtime; default a new one with `simulation`. */
  readonly runtime?: SimulatedRuntime | undefined;
  readonly simulation?: Partial<SimulationSettings> | undefined;
  /** The node's root dir (`--root-dir`): where its pods' volumes are, by name (written only with `writeVolumes`). */
  readonly rootDir: string;
  /** The node's address (status.addresses InternalIP, pods' hostIP): each hollow node has its own, made up. */
  readonly nodeIp: string;
  /** The machine the node reports. */
  readonly host?: SimulatedHostShape | undefined;
  /** nodeInfo.kubeletVersion. */
  readonly version: string;
  /** More node options (labels, max pods, taints, status frequency): the daemon's flags' names. */
  readonly nodeOptions?: Partial<NodeStatusOptions> | undefined;
  /** How often an unchanged status is written again, ms; default 5 min (the kubelet's `nodeStatusReportFrequency`). */
  readonly statusReportFrequencyMs?: number | undefined;
  /** `--sync-frequency`, ms; default 60 s. */
  readonly syncFrequencyMs?: number | undefined;
  /** Write the pods' volumes under `rootDir` as the daemon does (remembering each one's digest); default false: their payloads are made and dropped. */
  readonly writeVolumes?: boolean | undefined;
  /**
   * Shape every CRI request through its protobuf type before the simulated runtime reads it, as
   * the wire would; default false: handed over as the agent built it (`InProcessTransportOptions`).
   */
  readonly shapeCriRequests?: boolean | undefined;
  /** Runtime relist period, ms; default 1 s, the agent's. */
  readonly relistPeriodMs?: number | undefined;
  readonly clusterDNS?: readonly string[] | undefined;
  readonly clusterDomain?: string | undefined;
  /** Every settled runtime call. */
  readonly onRuntimeCall?: ((call: CriCallRecord) => void) | undefined;
  /** Failures the agent retries (registration, status, Lease, pod syncs), for the log. */
  readonly onError?: ((what: string, error: unknown) => void) | undefined;
}

export interface HollowNode {
  readonly nodeName: string;
  readonly runtime: SimulatedRuntime;
  readonly status: NodeStatusHandle;
  readonly workers: PodWorkersHandle;
  /** The pods the node runs, with the status the agent computed. */
  pods(): readonly Pod[];
  /** How long its pods' ConfigMaps, Secrets and Services are cached now (the Node's ttl annotation), ms. */
  objectTtlMs(): number;
  /** Stops the agent's parts; the simulated containers go with the process. */
  close(): Promise<void>;
}

/** The notice on every hollow Node (annotation `svc.io/simulated-runtime`). */
export const SIMULATED_NODE_NOTICE = `containers on this node are simulated by ${SIMULATED_RUNTIME_NAME} (svc hollow-nodes): the node agent is real, no process runs`;

/** Starts one hollow node; resolves at once (registration and the first status follow on their own). */
export function startHollowNode(options: HollowNodeOptions): HollowNode {
  const name = options.name;
  const runtime = options.runtime ?? new SimulatedRuntime(options.simulation);
  const cri = new CriClient({ endpoint: `${SIMULATED_RUNTIME_NAME}://in-process/${name}`, transport: new InProcessTransport(runtime, { shapeRequests: options.shapeCriRequests }), timeoutMs: 120_000, ...(options.onRuntimeCall ? { onCall: options.onRuntimeCall } : {}) });
  const statusClient = options.statusClient ?? options.client;
  const host = simulatedHost(name, options.host);
  const onError = options.onError ?? (() => undefined);
  const nodeOptions: NodeStatusOptions = {
    ...nodeStatusDefaults,
    ...options.nodeOptions,
    hostnameOverride: name,
    nodeIp: options.nodeIp,
    rootDir: options.rootDir,
    nodeLabels: { ...options.nodeOptions?.nodeLabels, [SIMULATED_NODE_LABEL]: 'true' },
    // No agent server runs for a hollow node: port 0 tells the API server so (no logs, exec or
    // /stats/summary to reach), rather than a made-up address every scrape waits on until it times out.
    port: 0,
  };
  const stops: (() => Promise<void> | void)[] = [() => cri.close()];

  const events = nodeAgentEvents({ client: options.eventClient ?? statusClient, qps: nodeOptions.eventQps, burst: nodeOptions.eventBurst, host: name });
  stops.push(() => events.stop());
  const sourceOptions = { nodeName: name, informers: options.informers, onProblem: (problem: { origin: string; error: Error }) => onError('pod source', problem.error) };
  const readiness = new SourcesReadiness(configuredSources(sourceOptions));
  const updates$ = connectable(podSources({ ...sourceOptions, readiness }), { connector: () => new Subject<PodUpdate>(), resetOnDisconnect: false });

  const allocatable = nodeResources(nodeOptions, host, hardThresholds(nodeOptions.evictionHard)).allocatable;
  const images = new ImageManager({ cri, serializeImagePulls: true, registryQps: 0, registryBurst: 0, events });
  const probes = new ProbeManager({
    cri,
    events,
    // Exec probes go through the CRI (ExecSync, answered by the runtime); nothing listens at a simulated pod's address, so the runtime answers the network probes too.
    runAction: async (probe, target, run) => (parseProbeAction(probe).exec ? runProbe(probe, target, run) : runtime.probe(target.containerId)),
  });
  stops.push(() => probes.close());
  // The ttl controller's annotation on the Node sets how long the pods' ConfigMaps and Secrets are
  // cached. The kubelet watches its own Node for it; hollow nodes share one metadata-only watch of
  // every simulated Node (the factory hands every node the same informer), and until it has the
  // Node, the Node as registered or last written.
  const simulatedNodes = options.informers.informer(builtin.nodes, { labelSelector: `${SIMULATED_NODE_LABEL}=true`, metadataOnly: true }).start();
  let registeredNode = (): Node | undefined => undefined;
  const objectTtlMs = () => nodeObjectTtlMs(simulatedNodes.store.get(name) ?? registeredNode());
  // The Services of the service-link env come from an informer, as the kubelet reads them (one
  // watch of every Service), and the fleet's nodes share it (the factory hands each node the same
  // one): a container start lists nothing, where a read per namespace per object TTL went to the
  // server from every node.
  const services = options.informers.informer(builtin.services, { indexers: { [NAMESPACE_INDEX]: namespaceIndex } }).start();
  const objects = {
    ...cachingObjectReader(podObjectReader(options.client), objectTtlMs),
    async services(namespace: string) {
      if (!services.hasSynced()) await services.waitForSync();
      return services.store.byIndex(NAMESPACE_INDEX, namespace);
    },
  };
  const workers = startPodWorkers({
    cri,
    client: options.client,
    updates$,
    readiness,
    nodeName: name,
    hostIP: [options.nodeIp],
    rootDir: options.rootDir,
    podLogsDir: join(options.rootDir, 'pod-logs'),
    clusterDNS: options.clusterDNS,
    clusterDomain: options.clusterDomain,
    // The machine's /etc/resolv.conf is not a simulated node's (as its CPUs are not), and the
    // sandbox config, DNS included, is computed at every pod sync: read there, it was a file read
    // per sync of every pod. A hollow node's pods get --cluster-dns only; nothing reads their DNS.
    resolvConf: '',
    syncFrequencyMs: options.syncFrequencyMs,
    relistPeriodMs: options.relistPeriodMs,
    // The simulated runtime says when it changed, as containerd's container events do for the
    // kubelet's evented PLEG: an idle hollow node lists nothing instead of its runtime every second.
    runtimeChanges$: runtime.changes$,
    nodeAllocatable: allocatable,
    nodeMemoryBytes: host.memory().totalBytes,
    runtimeName: SIMULATED_RUNTIME_NAME,
    // The volumes are the agent's own — their ConfigMaps and Secrets read, their tokens requested —
    // but nothing is written unless asked: no container reads them, and the first write and the
    // teardown of each pod's volumes were ~7 ms of CPU a pod (the tokens are remembered in memory).
    // Written, no tmpfs is mounted for secrets and tokens, and an unchanged volume is not read back
    // from its files at every sync (rememberWrites).
    volumes: podVolumesAccess({ rootDir: options.rootDir, nodeName: name, hostIP: options.nodeIp, objects, nodeAllocatable: allocatable, memoryBacked: false, rememberWrites: true, writeFiles: options.writeVolumes === true }),
    images,
    probes,
    events,
    onError: (uid, error) => onError(`sync of pod ${uid}`, error),
  });
  stops.push(() => workers.stop());

  const status = startNodeStatus({
    client: statusClient,
    options: nodeOptions,
    host,
    addressSources: simulatedAddressSources(options.nodeIp),
    runtime: criRuntimeInfo(cri),
    version: options.version,
    annotations: { [SIMULATED_NODE_ANNOTATION]: SIMULATED_NODE_NOTICE },
    // The status is computed every --node-status-update-frequency, as the kubelet computes it, rather
    // than the daemon's every second: a thousand nodes in one process would compute a thousand a second.
    statusCheckIntervalMs: nodeOptions.nodeStatusUpdateFrequency,
    ...(options.statusReportFrequencyMs !== undefined ? { statusReportFrequencyMs: options.statusReportFrequencyMs } : {}),
    onError: (what, error) => onError(what, error),
  });
  stops.push(() => status.stop());
  registeredNode = () => status.node();

  const sources = updates$.connect();
  stops.push(() => sources.unsubscribe());
  return {
    nodeName: name,
    runtime,
    status,
    workers,
    pods: () => workers.view.pods(),
    objectTtlMs,
    async close() {
      for (const stop of stops.reverse()) await stop();
    },
  };
}
