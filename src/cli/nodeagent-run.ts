import { join } from 'node:path';
import { quantityValue, type Node, type Pod } from '../api/index.js';
import { Registry } from 'prom-client';
import { connectable, distinctUntilChanged, filter, map, Subject, type Subscription } from 'rxjs';
import { apiThrottle } from '../../operators/index.js';
import { PROTOBUF_MEDIA_TYPE } from '../encoding/index.js';
import { builtin, Client, InformerFactory, jsonCodec, loadProtobufCodec, loadSvcconfig, type Codec } from '../client/index.js';
import {
  applyPodCidrToBridge,
  bridgeConflistPath,
  bootstrapClientCredentials,
  CertificateRotator,
  loadPki,
  readCredentials,
  configuredSources,
  evictionThresholds,
  isStaticPod,
  observeEviction,
  startEvictionManager,
  type EvictionPassResult,
  type EvictionObservation,
  type EvictionThreshold,
  type EvictionManagerHandle,
  ContainerGarbageCollector,
  CriClient,
  criRuntimeInfo,
  nodeAgentEvents,
  hardThresholds,
  ImageGarbageCollector,
  ImageManager,
  writeRegistryHosts,
  importAgentImages,
  internalIps,
  LogRotator,
  mirrorPods,
  nodeImagesReader,
  nodeName as nodeNameOf,
  nodeObjectTtlMs,
  nodeResources,
  parseLogMaxSize,
  podSources,
  ProbeManager,
  shareRootDir,
  SourcesReadiness,
  startAgentServer,
  startGarbageCollection,
  startNodeStatus,
  registerResourceManagerMetrics,
  startCpusetReconciler,
  startPodWorkers,
  streamingRoutes,
  thisHost,
  type AgentRouteModule,
  type CpusetReconcilePass,
  type CriCallRecord,
  type MachineTopology,
  type NodeStatusHandle,
  type PodUpdate,
  type RegistryConfig,
  type RunningAgentServer,
  agentLog,
  procSysctls,
  setupKernelTunables,
  type AgentLog,
  type SysctlAccess,
  CredentialProviders,
  type CredentialProvider,
  QosCgroupManager,
  MemoryThresholdNotifiers,
  memcgNotificationSupport,
} from '../nodeagent/index.js';
import type { CommandIO } from './command.js';
import type { ResolvedOptions } from './nodeagent-config.js';
import { effectiveRates } from './nodeagent-validate.js';
import { parseDuration } from './duration.js';
import { resourceManagersFrom } from './nodeagent-resource-managers.js';

/** What the command checked and resolved before the agent starts. */
export interface NodeAgentStartup {
  readonly options: ResolvedOptions;
  /** The version the agent reports in its Node (svc's, or `--version=<v>`). */
  readonly version: string;
  /** `--registry-config`, read and checked. */
  readonly registries?: RegistryConfig;
  /** `--image-credential-provider-config`, read and checked against the bin dir. */
  readonly credentialProviders?: readonly CredentialProvider[];
}
/** A node agent running in this process (the `nodeagent` daemon, or the node of `svc up`). */
export interface RunningNodeAgent {
  readonly nodeName: string;
  /** The pods the agent runs, with the status it computed for each. */
  pods(): readonly Pod[];
  /** Stops the agent: its loops, its server and its clients. Running containers are left running. */
  close(): Promise<void>;
}

export interface NodeAgentRunOptions {
  /** Replaces the client `--svcconfig` would make. */
  readonly client?: Client;
  /** Every settled runtime call (benchmarks split a pod's start into runtime time and the agent's). */
  readonly onRuntimeCall?: (call: CriCallRecord) => void;
  /** More route modules for the agent's HTTPS port, beside its own and the streaming routes. */
  readonly routes?: readonly AgentRouteModule[];
  /** The eviction manager's housekeeping interval (the kubelet's 10 s, which no flag sets); tests and the bench shorten it. */
  readonly evictionMonitoringIntervalMs?: number;
  /** Every eviction manager pass (tests and the bench watch what it decided). */
  readonly onEvictionPass?: (result: EvictionPassResult) => void;
  /** The machine the resource managers place pods on; default: this host's, read from sysfs (tests describe others). */
  readonly machine?: MachineTopology;
  /** Every pass of the CPU manager's cpuset reconciler (tests watch the shared pool follow the pods). */
  readonly onCpusetReconcile?: (pass: CpusetReconcilePass) => void;
  /** `--kernel-memcg-notification`'s memory cgroup (default: the node's, cgroup v1's root); tests give one of their own. */
  readonly memcgNotificationDir?: string;
  /** The QoS cgroup limits' update period (the kubelet's minute); tests shorten it. */
  readonly qosUpdateIntervalMs?: number;
  /** How long to wait for the container runtime to answer at start (default 30 s). */
  readonly runtimeWaitMs?: number;
  /** The kernel's tunables (default: /proc/sys, or the directory {@link SYSCTL_ROOT_ENV} names). */
  readonly sysctls?: SysctlAccess;
}

/**
 * An environment variable naming a directory the agent reads and writes its kernel tunables in
 * instead of /proc/sys: the test suites set it (test/setup/global.ts) so that agents they start
 * never change the host's kernel.
 */
export const SYSCTL_ROOT_ENV = 'SVC_NODEAGENT_SYSCTL_ROOT';

/** The file names the agent's own lines carry (--vmodule patterns match them). */
const RUN_LOG_FILE = 'cli/nodeagent-run';
const TUNABLES_LOG_FILE = 'nodeagent/node/kernel-tunables';

/**
 * `--protect-kernel-defaults`: refuse to start when a tunable differs; without it, set each one
 * as the kubelet does (each change logged at -v 2, as upstream).
 */
function kernelTunables(values: NodeAgentStartup['options']['values'], sysctls: SysctlAccess, log: AgentLog): void {
  const result = setupKernelTunables(sysctls, values.protectKernelDefaults);
  const file = log.forFile(TUNABLES_LOG_FILE);
  for (const change of result.updated) file.info(2, `updating kernel flag ${change.name} from ${change.from} to ${change.to}`);
  if (result.problems.length > 0) {
    const hint = values.protectKernelDefaults ? ' (--protect-kernel-defaults: set them with sysctl, or run without the option to let the agent set them)' : '';
    throw new Error(`the kernel's tunables are not as the node agent needs them${hint}: ${result.problems.join('; ')}`);
  }
}

/** Where container logs go under the root dir (the kubelet's `/var/log/pods`). */
export const POD_LOGS_DIR_NAME = 'pod-logs';

/** How long to wait for the container runtime to answer before giving up. */
const RUNTIME_WAIT_MS = 30_000;

async function connectRuntime(values: NodeAgentStartup['options']['values'], onCall: ((call: CriCallRecord) => void) | undefined, waitMs = RUNTIME_WAIT_MS): Promise<CriClient> {
  const cri = new CriClient({
    endpoint: values.containerRuntimeEndpoint,
    ...(values.imageServiceEndpoint ? { imageEndpoint: values.imageServiceEndpoint } : {}),
    timeoutMs: values.runtimeRequestTimeout,
    ...(onCall ? { onCall } : {}),
  });
  const deadline = Date.now() + waitMs;
  for (;;) {
    try {
      await cri.version({ version: 'v1' }, { timeoutMs: 2_000 });
      return cri;
    } catch (error) {
      if (Date.now() > deadline) {
        cri.close();
        throw new Error(`the container runtime at ${values.containerRuntimeEndpoint} does not answer: ${(error as Error).message}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

type CertificateSource = () => { readonly cert: string; readonly key: string };

async function apiClient(
  values: NodeAgentStartup['options']['values'],
  userAgent: string,
  rates: { qps: number; burst: number } | undefined,
  clientCertificateSource?: CertificateSource,
): Promise<Client> {
  const codec: Codec = values.svcApiContentType === PROTOBUF_MEDIA_TYPE ? await loadProtobufCodec() : jsonCodec;
  return Client.fromSvcconfig(values.svcconfig!, { userAgent, codec, ...(rates ? { throttle: apiThrottle(rates) } : {}), ...(clientCertificateSource ? { clientCertificateSource } : {}) });
}

/**
 * `--rotate-certificates`: the client certificate in use (the cert dir's current pair, else the
 * one `--svcconfig` names) renewed near its expiry; undefined when the svcconfig has no client
 * certificate to rotate (a token), which the caller reports.
 */
async function clientRotator(values: NodeAgentStartup['options']['values'], nodeName: string, client: () => Client, warn: (message: string) => void): Promise<CertificateRotator | undefined> {
  const target = await loadSvcconfig(values.svcconfig!);
  const fromConfig = target.clientCertificate && target.clientKey ? { cert: target.clientCertificate, key: target.clientKey } : undefined;
  const current = (await readCredentials(values.certDir, 'client')) ?? fromConfig;
  if (!current) return undefined;
  const { NODE_CLIENT_SIGNER, NODE_USER_PREFIX, NODES_GROUP } = await loadPki();
  return new CertificateRotator({
    client,
    kind: 'client',
    certDir: values.certDir,
    ask: { signerName: NODE_CLIENT_SIGNER, usages: ['digital signature', 'client auth'], commonName: `${NODE_USER_PREFIX}${nodeName}`, organizations: [NODES_GROUP] },
    current,
    onRotated: () => warn(`client certificate rotated; stored in ${values.certDir}`),
    onError: (error) => warn(`client certificate rotation: ${error.message}`),
  });
}

/**
 * Starts the node agent from checked options: the runtime connection and the images found in
 * `<root-dir>/images`; then the pod sources, the pod workers (volumes, probes, images), the
 * agent's server, log rotation and garbage collection; with `--svcconfig` also the node's
 * registration and heartbeats and the mirror pods. Resolves once all of them run.
 */
export async function startNodeAgent(startup: NodeAgentStartup, io: CommandIO, options: NodeAgentRunOptions = {}): Promise<RunningNodeAgent> {
  const values = startup.options.values;
  const rates = effectiveRates(values);
  const log = agentLog({ verbosity: values.v, vmodule: values.vmodule, write: (line) => io.err(line) });
  kernelTunables(values, options.sysctls ?? procSysctls(process.env[SYSCTL_ROOT_ENV] || '/proc/sys'), log);
  const cri = await connectRuntime(values, options.onRuntimeCall, options.runtimeWaitMs);
  const stops: (() => Promise<void> | void)[] = [() => cri.close()];
  const stopAll = async (): Promise<void> => {
    for (const stop of stops.reverse()) await stop();
  };
  try {
    return await startWithRuntime(startup, io, options, cri, rates, stops, stopAll, log);
  } catch (error) {
    await stopAll();
    throw error;
  }
}

async function startWithRuntime(
  startup: NodeAgentStartup,
  io: CommandIO,
  options: NodeAgentRunOptions,
  cri: CriClient,
  rates: ReturnType<typeof effectiveRates>,
  stops: (() => Promise<void> | void)[],
  stopAll: () => Promise<void>,
  log: AgentLog,
): Promise<RunningNodeAgent> {
  const values = startup.options.values;
  const warn = (message: string): void => io.err(`nodeagent: ${message}`);
  const name = nodeNameOf(values, thisHost);
  const rootDir = values.rootDir;
  const podLogsDir = join(rootDir, POD_LOGS_DIR_NAME);
  // Mount propagation into containers needs the root dir to be a shared mount.
  await shareRootDir(rootDir);
  for (const result of await importAgentImages({ cri, endpoint: values.containerRuntimeEndpoint, rootDir })) {
    if (!result.imported) warn(`image archive ${result.file} not imported: ${result.error.message}`);
  }

  const apiMode = values.svcconfig !== undefined || options.client !== undefined;
  // TLS bootstrap: without its svcconfig yet, the agent gets a client certificate with the bootstrap one.
  if (values.svcconfig !== undefined && values.bootstrapSvcconfig !== undefined && !options.client) {
    const abort = new AbortController();
    stops.push(() => abort.abort(new Error('the node agent is stopping')));
    await bootstrapClientCredentials({ svcconfigPath: values.svcconfig, bootstrapSvcconfigPath: values.bootstrapSvcconfig, certDir: values.certDir, nodeName: name, signal: abort.signal, log: warn });
  }
  let client: Client | undefined;
  const clientCertificates = apiMode && !options.client && values.rotateCertificates ? await clientRotator(values, name, () => client!, warn) : undefined;
  if (apiMode && !options.client && values.rotateCertificates && !clientCertificates) warn('--rotate-certificates: --svcconfig names no client certificate to rotate');
  const source: CertificateSource | undefined = clientCertificates ? () => clientCertificates.current! : undefined;
  // Pods and mirrors share the --svc-api-qps bucket; heartbeats and events are outside it (the spec's rule).
  client = apiMode ? (options.client ?? (await apiClient(values, 'nodeagent', { qps: rates.apiQps, burst: rates.apiBurst }, source))) : undefined;
  const statusClient = apiMode ? (options.client ?? (await apiClient(values, 'nodeagent/status', undefined, source))) : undefined;
  if (clientCertificates) {
    clientCertificates.start();
    stops.push(() => clientCertificates.stop());
  }
  if (!options.client) {
    stops.push(async () => {
      await client?.close();
      await statusClient?.close();
    });
  }
  const informers = client ? new InformerFactory(client) : undefined;
  if (informers) stops.push(() => informers.stop());
  const events = statusClient ? nodeAgentEvents({ client: statusClient, qps: rates.eventQps, burst: rates.eventBurst, host: name }) : undefined;
  if (events) stops.push(() => events.stop());

  const sourceOptions = {
    nodeName: name,
    informers,
    podManifestPath: values.podManifestPath,
    fileCheckFrequencyMs: values.fileCheckFrequency,
    manifestUrl: values.manifestUrl,
    manifestUrlHeaders: values.manifestUrlHeader,
    httpCheckFrequencyMs: values.httpCheckFrequency,
    onProblem: (problem: { origin: string; error: Error }) => warn(`pod source skipped ${problem.origin}: ${problem.error.message}`),
  };
  const readiness = new SourcesReadiness(configuredSources(sourceOptions));
  // One run of the sources for the pod workers and the mirror pods, started only once both listen
  // (connected at the end): a consumer that subscribed late would miss the first static pods.
  const updates$ = connectable(podSources({ ...sourceOptions, readiness }), { connector: () => new Subject<PodUpdate>(), resetOnDisconnect: false });

  const hostIPs = internalIps(values.nodeIp);
  const allocatable = nodeResources({ ...values, eventQps: rates.eventQps, eventBurst: rates.eventBurst }, thisHost, hardThresholds(values.evictionHard)).allocatable;
  if (startup.registries && values.registryHostsDir) writeRegistryHosts(values.registryHostsDir, startup.registries, { replace: false });
  const images = new ImageManager({
    cri,
    serializeImagePulls: values.serializeImagePulls,
    registryQps: values.registryQps,
    registryBurst: values.registryBurst,
    events,
    registries: startup.registries,
    credentialProviders:
      startup.credentialProviders && values.imageCredentialProviderBinDir
        ? new CredentialProviders({
            providers: startup.credentialProviders,
            binDir: values.imageCredentialProviderBinDir,
            log: log.forFile('nodeagent/images/credential-providers'),
            onError: (provider, image, error) => warn(`credential provider ${provider} for ${image}: ${error.message}`),
          })
        : undefined,
  });
  // The pods that hold resources: running ones, not terminating or ended.
  let activePods: () => Pod[] = () => [];
  const qos = qosCgroups(values, allocatable, () => activePods(), log, warn, options.qosUpdateIntervalMs);
  if (qos) {
    try {
      qos.start();
    } catch (error) {
      throw new Error(`--qos-reserved: cannot make the QoS cgroups: ${(error as Error).message}`);
    }
    stops.push(() => qos.stop());
  }
  const probes = new ProbeManager({ cri, events });
  stops.push(() => probes.close());
  const resources = resourceManagersFrom(values, options.machine);
  const managerMetrics = new Registry();
  registerResourceManagerMetrics(resources, managerMetrics);
  let reconcileCpusets = (): void => {};
  // The pods' ConfigMaps, Secrets and Services are cached for the ttl controller's annotation on
  // the Node, read from a metadata-only watch of this Node (the kubelet watches its Node too) and,
  // until that has it, from the Node as the status loop below registered or last wrote it.
  const ownNode = informers?.informer(builtin.nodes, { fieldSelector: `metadata.name=${name}`, metadataOnly: true }).start();
  let registeredNode = (): Node | undefined => undefined;
  const workers = startPodWorkers({
    cri,
    client,
    objectCacheTtlMs: () => nodeObjectTtlMs(ownNode?.store.get(name) ?? registeredNode()),
    updates$,
    readiness,
    nodeName: name,
    hostIP: hostIPs.length > 0 ? hostIPs : ['127.0.0.1'],
    rootDir,
    podLogsDir,
    clusterDNS: values.clusterDns,
    clusterDomain: values.clusterDomain,
    resolvConf: values.resolvConf,
    syncFrequencyMs: values.syncFrequency,
    cpuCfsQuota: values.cpuCfsQuota,
    cpuCfsQuotaPeriodUs: values.cpuCfsQuotaPeriod * 1000,
    nodeAllocatable: allocatable,
    ...(qos ? { cgroupParent: (pod: Pod) => qos.parentOf(pod) } : {}),
    images,
    probes,
    events,
    resources: resources.inactive ? undefined : resources,
    onResourcesChanged: () => reconcileCpusets(),
    onError: (uid, error) => warn(`sync of pod ${uid} failed: ${(error as Error).message}`),
  });
  stops.push(() => workers.stop());
  if (!resources.inactive) {
    const reconciler = startCpusetReconciler({
      managers: resources,
      cri,
      // Pods not terminated: an ended pod (Succeeded, Failed, rejected) gives its CPUs and memory back.
      activePods: () => workers.view.pods().filter((pod) => workers.state(pod.metadata.uid ?? '') !== 'terminated' && pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed'),
      sourcesReady: () => readiness.allReady(),
      periodMs: values.cpuManagerReconcilePeriod ?? values.nodeStatusUpdateFrequency,
      onError: (error) => warn(`cpuset reconcile: ${(error as Error).message}`),
    });
    stops.push(() => reconciler.stop());
    const onPass = options.onCpusetReconcile;
    if (onPass) reconciler.passes$.subscribe(onPass);
    reconcileCpusets = () => reconciler.trigger();
  }
  activePods = () =>
    workers.view
      .pods()
      .filter((pod) => workers.state(pod.metadata.uid ?? '') === 'syncing' && pod.metadata.deletionTimestamp === undefined && pod.status?.phase !== 'Succeeded' && pod.status?.phase !== 'Failed');

  let server: RunningAgentServer | undefined;
  if (values.enableServer && !values.runonce) {
    server = await startAgentServer({
      flags: values,
      nodeName: name,
      nodeIPs: hostIPs,
      cri,
      pods: workers.view,
      client,
      config: startup.options.values,
      routes: [streamingRoutes(), ...(options.routes ?? [])],
      metrics: managerMetrics,
      warn,
    });
    const running = server;
    stops.push(() => running.close());
    if (values.rotateServerCertificates && client) {
      const current = await readCredentials(values.certDir, 'server');
      if (current) running.setServingCertificate(current);
      const { NODE_SERVING_SIGNER, NODE_USER_PREFIX, NODES_GROUP } = await loadPki();
      const serving = new CertificateRotator({
        client: () => client!,
        kind: 'server',
        certDir: values.certDir,
        ask: {
          signerName: NODE_SERVING_SIGNER,
          usages: ['digital signature', 'server auth'],
          commonName: `${NODE_USER_PREFIX}${name}`,
          organizations: [NODES_GROUP],
          dnsNames: [name],
          ipAddresses: hostIPs,
          onCreated: (csr) => warn(`serving certificate: waiting for certificate signing request ${csr} to be approved (kubectl certificate approve ${csr})`),
        },
        current,
        onRotated: (pair) => {
          running.setServingCertificate(pair);
          warn(`serving certificate issued; stored in ${values.certDir}`);
        },
        onError: (error) => warn(`serving certificate rotation: ${error.message}`),
      });
      serving.start();
      stops.push(() => serving.stop());
    }
  }

  const rotator = new LogRotator({ cri, maxSizeBytes: parseLogMaxSize(values.containerLogMaxSize), maxFiles: values.containerLogMaxFiles, onError: (error) => warn(`log rotation: ${(error as Error).message}`) });
  rotator.start();
  stops.push(() => rotator.stop());
  const containerGc = new ContainerGarbageCollector({
      cri,
      podExists: (uid) => workers.state(uid) !== undefined,
      podLogsDir,
      policy: { minimumAgeMs: values.minimumContainerTtlDuration ?? 0, maxPerPodContainer: values.maximumDeadContainersPerContainer, maxContainers: values.maximumDeadContainers },
  });
  const imageGc = new ImageGarbageCollector({
    cri,
    policy: { highThresholdPercent: values.imageGcHighThreshold, lowThresholdPercent: values.imageGcLowThreshold, minimumAgeMs: values.minimumImageTtlDuration },
    events,
    node: { apiVersion: 'v1', kind: 'Node', name },
  });
  const gc = startGarbageCollection({
    containers: containerGc,
    images: imageGc,
    allSourcesReady: () => readiness.allReady(),
    onError: (what, error) => warn(`${what} garbage collection: ${(error as Error).message}`),
  });
  stops.push(() => gc.stop());

  const thresholds = evictionThresholds({
    evictionHard: values.evictionHard,
    evictionSoft: values.evictionSoft,
    evictionSoftGracePeriodMs: Object.fromEntries(Object.entries(values.evictionSoftGracePeriod).map(([signal, text]) => [signal, parseDuration(text) ?? -1])),
    evictionMinimumReclaim: values.evictionMinimumReclaim,
  });
  const memcg = values.kernelMemcgNotification ? memcgNotifiers(thresholds, options.memcgNotificationDir, () => eviction, log, warn) : undefined;
  if (memcg) stops.push(() => memcg.stop());
  const eviction = startEvictionManager({
    thresholds,
    maxPodGracePeriodSeconds: values.evictionMaxPodGracePeriod,
    intervalMs: options.evictionMonitoringIntervalMs,
    observe: () => observeEviction({ cri, host: thisHost, rootDir }),
    // Running ones only: not terminating, not ended (a Failed pod has nothing left to reclaim).
    activePods: () => activePods(),
    isStaticPod,
    evict: (pod, grace, message) => workers.evict(pod.metadata.uid ?? '', grace, message),
    reclaimDisk: async () => {
      await containerGc.collect(readiness.allReady());
      await imageGc.deleteUnusedImages();
    },
    events,
    nodeRef: { apiVersion: 'v1', kind: 'Node', name },
    onPass: (result) => {
      if (result.type === 'evicted') warn(`evicted pod ${result.pod.metadata.namespace}/${result.pod.metadata.name}: ${result.message}`);
      options.onEvictionPass?.(result);
    },
    log: log.forFile('nodeagent/eviction/eviction-manager'),
    ...(memcg ? { onObserved: (observation: EvictionObservation) => memcg.update(observation) } : {}),
    onError: (error) => warn(`eviction manager: ${(error as Error).message}`),
  });
  stops.push(() => eviction.stop());

  const subscriptions: Subscription[] = [];
  stops.push(() => subscriptions.forEach((subscription) => subscription.unsubscribe()));
  if (client && informers && statusClient) {
    const nodeStatus: NodeStatusHandle = startNodeStatus({
      client: statusClient,
      // The port the server really listens on (a 0 asks for any): the Node advertises it for the API server's proxy.
      options: { ...values, port: server?.port ?? values.port, eventQps: rates.eventQps, eventBurst: rates.eventBurst },
      runtime: criRuntimeInfo(cri),
      version: startup.version,
      images: nodeImagesReader({ cri, maxImages: values.nodeStatusMaxImages }).read,
      pressures: () => eviction.pressures(),
      onError: (what, error) => warn(`${what}: ${(error as Error).message}`),
    });
    stops.push(() => nodeStatus.stop());
    registeredNode = () => nodeStatus.node();
    subscriptions.push(podCidrFollower(nodeStatus, cri, values.containerRuntimeEndpoint, warn));
    subscriptions.push(
      mirrorPods({ client, informers, nodeName: name, updates: updates$, readiness }).subscribe((result) => {
        // A mirror that cannot be written is retried; say why, or a static pod is silently missing from the API.
        if (result.type === 'retry' || result.type === 'terminal') warn(`mirror pod ${result.key}: ${(result.error as Error).message}`);
      }),
    );
  }

  const sources = updates$.connect();
  stops.push(() => sources.unsubscribe());
  log.forFile(RUN_LOG_FILE).info(1, `node agent ${name} started: runtime ${values.containerRuntimeEndpoint}, root dir ${rootDir}${apiMode ? '' : ', standalone'}`);
  return { nodeName: name, pods: () => workers.view.pods(), close: stopAll };
}

/**
 * `--kernel-memcg-notification`: kernel notifications of memory thresholds that bring an eviction
 * pass forward, where the cgroup version has them (v1); otherwise a warning, and polling.
 */
function memcgNotifiers(
  thresholds: readonly EvictionThreshold[],
  dir: string | undefined,
  eviction: () => EvictionManagerHandle,
  log: AgentLog,
  warn: (message: string) => void,
): MemoryThresholdNotifiers | undefined {
  const support = dir === undefined ? memcgNotificationSupport() : ({ available: true, dir } as const);
  if (!support.available) {
    warn(`--kernel-memcg-notification: ${support.reason}; memory thresholds are polled`);
    return undefined;
  }
  return new MemoryThresholdNotifiers({
    thresholds,
    dir: support.dir,
    onCrossed: () => void eviction().pass('memcg notification').catch((error: unknown) => warn(`eviction manager: ${(error as Error).message}`)),
    onError: (error) => warn(`--kernel-memcg-notification: ${error.message}; memory thresholds are polled until the next pass registers again`),
    log: log.forFile('nodeagent/eviction/memcg-notifier'),
  });
}

/**
 * `--qos-reserved` (with `--cgroups-per-qos`): the QoS cgroups and their memory limits; the pods
 * then run under them. Without it the runtime places pods as it chooses.
 */
function qosCgroups(
  values: NodeAgentStartup['options']['values'],
  allocatable: Readonly<Record<string, string>>,
  activePods: () => readonly Pod[],
  log: AgentLog,
  warn: (message: string) => void,
  intervalMs: number | undefined,
): QosCgroupManager | undefined {
  const reserve = values.qosReserved['memory'];
  if (reserve === undefined || !values.cgroupsPerQos) return undefined;
  return new QosCgroupManager({
    cgroupRoot: values.cgroupRoot ?? '/',
    memoryReservePercent: Number(reserve.replace('%', '')),
    allocatableMemoryBytes: quantityValue(allocatable['memory']) ?? 0,
    activePods,
    intervalMs,
    log: log.forFile('nodeagent/cgroups/qos-cgroups'),
    onError: (error) => warn(`QoS cgroups: ${error.message}`),
  });
}

/**
 * The node's pod CIDRs (from the node-ipam controller), as the status posts bring the Node back:
 * told to the runtime (CRI UpdateRuntimeConfig, as the kubelet does) and, when the runtime is a
 * containerd svc started with its bridge conflist, written into that conflist so the next pods get
 * addresses from it. A Node without pod CIDRs changes nothing: the bridge keeps the range it was
 * started with.
 */
function podCidrFollower(nodeStatus: NodeStatusHandle, cri: CriClient, endpoint: string, warn: (text: string) => void): Subscription {
  const bridge = bridgeConflistPath(endpoint);
  return nodeStatus.checks$
    .pipe(
      map((check) => ('node' in check ? (check.node.spec?.podCIDRs ?? (check.node.spec?.podCIDR ? [check.node.spec.podCIDR] : [])) : [])),
      filter((cidrs) => cidrs.length > 0),
      distinctUntilChanged((a, b) => a.join() === b.join()),
    )
    .subscribe((cidrs) => {
      void (async () => {
        try {
          if (bridge !== undefined && applyPodCidrToBridge(bridge, cidrs) === 'updated') warn(`pod network: the bridge now gives addresses from ${cidrs.join(',')} (the Node's podCIDRs)`);
          await cri.updateRuntimeConfig({ runtimeConfig: { networkConfig: { podCidr: cidrs.join(',') } } });
        } catch (error) {
          warn(`pod network: cannot use the Node's podCIDRs ${cidrs.join(',')}: ${(error as Error).message}`);
        }
      })();
    });
}
