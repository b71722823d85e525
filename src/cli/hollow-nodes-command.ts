import { mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isIP } from 'node:net';
import { quantityBytes, SIMULATED_RUNTIME_NAME, SVC_VERSION } from '../api/index.js';
import { Client, InformerFactory, loadProtobufCodec } from '../client/index.js';
import { fleetDescriptors, heartbeatConnections, openFilesLimit, startHollowFleet, type HollowNode } from '../nodeagent/index.js';
import { EXIT_FAILED, isExit, readCommandLine, Shutdown, type CommandIO } from './command.js';
import type { CommandDoc } from './flag-docs.js';
import { flag } from './flag-spec.js';
import { defineFlags, parseFlags } from './flags.js';
import type { FlagValues } from './flag-spec.js';

const rate = (value: number): string | undefined => (value >= 0 && value <= 1 ? undefined : 'must be between 0 and 1');
const cidr = (value: string): string | undefined => {
  const [address, prefix] = value.split('/');
  return isIP(address ?? '') === 4 && Number(prefix) >= 8 && Number(prefix) <= 30 ? undefined : 'not an IPv4 CIDR with a prefix between /8 and /30';
};

/**
 * `svc hollow-nodes`: many hollow nodes in one process — the node agent's own registration,
 * status, Lease, pod workers and probes, on svc's simulated CRI runtime (docs/hollow-nodes.md).
 */
export const hollowNodesFlags = defineFlags({
  svcconfig: flag.string({ valueName: 'path', meaning: 'The cluster (default: $SVCCONFIG, $KUBECONFIG, ~/.kube/config). Its user needs to write Nodes, Leases, pod status and Events: an admin, or the system:nodes group.' }),
  count: flag.int({ default: 1, valueName: 'n', meaning: 'How many hollow nodes to run in this process.', validate: (n) => (n >= 1 && n <= 100_000 ? undefined : 'must be between 1 and 100000') }),
  'name-prefix': flag.string({
    default: 'hollow-',
    valueName: 'prefix',
    meaning: 'Node names are this with the node\'s index, zero-padded to five digits (hollow-00000). Two processes need two prefixes or distinct --first-index ranges.',
    validate: (p) => (/^[a-z0-9]([-a-z0-9.]*[-a-z0-9])?$/.test(p) && p.length <= 200 ? undefined : 'must start a DNS subdomain: lower-case letters, digits, - and .'),
  }),
  'first-index': flag.int({
    default: 0,
    valueName: 'i',
    meaning: "The index of this process's first node: it runs nodes i .. i+count-1 (names, InternalIPs and pod ranges alike), so K processes with the same prefix split one fleet (the first --first-index 0, the next --first-index <the first's count>, ...).",
    validate: (n) => (n >= 0 && n < 100_000 ? undefined : 'must be between 0 and 99999'),
  }),
  'root-dir': flag.string({ valueName: 'path', meaning: "The nodes' root dirs, one per node under it: the paths their pods' volumes are named by. Nothing is written there unless --write-volumes (a hollow node makes its volumes' payloads and writes no file; docs/hollow-nodes.md). Default: a dir under the system temp dir, removed at exit." }),
  'node-cidr': flag.string({ default: '10.250.0.0/16', valueName: 'cidr', meaning: "Node i's InternalIP is address i+1 of this range (made up: nothing listens there).", validate: cidr }),
  'pod-cidr': flag.string({ default: '10.128.0.0/9', valueName: 'cidr', meaning: "Node i's pods get addresses from the i-th /24 of this range.", validate: cidr }),
  cpus: flag.int({ default: 4, valueName: 'n', meaning: "Each node's CPUs (capacity).", validate: (n) => (n >= 1 ? undefined : 'must be 1 or more') }),
  memory: flag.string({ default: '16Gi', valueName: 'quantity', meaning: "Each node's memory (capacity).", validate: (q) => (quantityBytes(q) !== undefined ? undefined : 'not a quantity of bytes') }),
  'max-pods': flag.int({ default: 110, valueName: 'n', meaning: 'Pods each node takes (the agent\'s --max-pods).', validate: (n) => (n >= 1 ? undefined : 'must be 1 or more') }),
  'node-labels': flag.map('string', { valueName: 'k=v,...', meaning: 'Labels of every node, beside svc.io/simulated=true.' }),
  'node-status-update-frequency': flag.duration({ default: 10_000, meaning: 'How often each node computes its status and posts it when changed (the agent\'s flag).' }),
  'node-status-report-frequency': flag.duration({ default: 300_000, meaning: 'How often each node posts an unchanged status again (the kubelet\'s nodeStatusReportFrequency; the Lease is the heartbeat).' }),
  'sync-frequency': flag.duration({ default: 60_000, meaning: 'How often each pod is synced again (the agent\'s flag).' }),
  'start-rate': flag.float({ default: 50, valueName: 'nodes/s', meaning: 'Nodes started per second, so registrations come spread out; 0 starts them all at once.', validate: (n) => (n >= 0 ? undefined : 'must be 0 or more') }),
  'pod-start-delay': flag.duration({ default: 0, meaning: 'How long the simulated runtime takes to start a sandbox and, again, each container.' }),
  'sandbox-failure-rate': flag.float({ default: 0, valueName: '0..1', meaning: 'The chance that starting a pod sandbox fails (the agent retries).', validate: rate }),
  'start-failure-rate': flag.float({ default: 0, valueName: '0..1', meaning: 'The chance that starting a container fails (exit code 128, StartError; then crash-loop back-off).', validate: rate }),
  'probe-failure-rate': flag.float({ default: 0, valueName: '0..1', meaning: 'The chance that one probe attempt fails (exec, httpGet, tcpSocket, grpc alike).', validate: rate }),
  'api-connections': flag.int({
    default: 64,
    valueName: 'n',
    meaning: "Sockets to the API server the fleet's pods client (pod status, volumes' reads, TokenRequests) and its Events client keep at most, each; the heartbeats have --heartbeat-connections, the nodes' pod watches a client of their own, one socket each.",
    validate: (n) => (n >= 1 ? undefined : 'must be 1 or more'),
  }),
  'heartbeat-connections': flag.int({
    default: 0,
    valueName: 'n',
    meaning: "Sockets to the API server the fleet's heartbeat client (every node's Lease renewal, registration and Node status) keeps at most; 0: from --count, the renewals a second times 1 s (the API server's write SLO), at least 4 — 500 for 5,000 nodes. A real agent has a connection of its own; a pool smaller than that rule makes a slow API server's nodes go NotReady for the simulation's sake.",
    validate: (n) => (n >= 0 ? undefined : 'must be 0 (from --count) or more'),
  }),
  'write-volumes': flag.bool({
    default: false,
    meaning: "Write the pods' volumes under --root-dir as the node agent daemon does (to look at them, or to weigh their cost). By default a hollow node makes every volume's payload (ConfigMaps, Secrets, tokens read through the API) and writes no file: nothing reads them.",
  }),
  'shape-cri-requests': flag.bool({
    default: false,
    meaning:
      "Shape every CRI request through the CRI proto's types before the simulated runtime reads it, as a socket's decoder would (to weigh that cost, or to check the simulation against the wire). By default a request goes to the in-process runtime as the agent built it and the runtime reads every field with the CRI's default.",
  }),
  'cluster-dns': flag.stringSlice({ valueName: 'ip,...', meaning: "The pods' DNS servers (the agent's flag; written to their resolv.conf only)." }),
  'cluster-domain': flag.string({ default: 'cluster.local', valueName: 'domain', meaning: "The pods' DNS search domain (the agent's flag)." }),
});

export const hollowNodesDoc: CommandDoc = {
  name: 'svc hollow-nodes',
  usage: 'svc hollow-nodes --count N [--svcconfig PATH] [flags]',
  summary:
    "Runs N hollow nodes in this process: each is the node agent's own code (registration, status, Lease, pod workers, probes, pod status writes) on svc's simulated container runtime (svc-simulated, a CRI runtime in memory), so the cluster schedules and runs pods on them while no container runs. Every such Node is labelled svc.io/simulated=true and reports containerRuntimeVersion svc-simulated://. For scale tests and density benchmarks: docs/hollow-nodes.md.",
  source: 'src/cli/hollow-nodes-command.ts',
};

/** Failures by kind, the first of each told at once, counts every 30 s: a thousand nodes must not flood the log. */
function errorLog(io: CommandIO): { report: (node: string, what: string, error: unknown) => void; stop: () => void } {
  const counts = new Map<string, number>();
  const timer = setInterval(() => {
    if (counts.size === 0) return;
    io.err(`${hollowNodesDoc.name}: failures in the last 30s (retried): ${[...counts].map(([what, n]) => `${what} ${n}`).join(', ')}`);
    counts.clear();
  }, 30_000);
  timer.unref();
  const seen = new Set<string>();
  return {
    report: (node, what, error) => {
      const kind = what.startsWith('sync of pod') ? 'pod sync' : what;
      counts.set(kind, (counts.get(kind) ?? 0) + 1);
      if (!seen.has(kind)) {
        seen.add(kind);
        io.err(`${hollowNodesDoc.name}: ${node} ${what}: ${(error as Error).message}`);
      }
    },
    stop: () => clearInterval(timer),
  };
}

type HollowNodesValues = FlagValues<typeof hollowNodesFlags>;

/** A running fleet of hollow nodes and what it holds (clients, informers, its root dir). */
export interface RunningHollowNodes {
  readonly nodes: readonly HollowNode[];
  close(): Promise<void>;
}

/** The line every process that runs hollow nodes prints: their containers are not real. */
export function simulatedNotice(count: number): string {
  return `starting ${count} hollow nodes: the node agent is real, the containers are SIMULATED (${SIMULATED_RUNTIME_NAME} runtime; no process runs)`;
}

/**
 * Starts the fleet `values` describe (the flags of `svc hollow-nodes`, which `svc up
 * --hollow-nodes` passes too) and resolves once every node is started; `signal` stops the start
 * between nodes. Throws when the API server's config cannot be read.
 */
export async function startHollowNodes(values: HollowNodesValues, io: CommandIO, signal?: AbortSignal): Promise<RunningHollowNodes> {
  const closers: (() => Promise<void>)[] = [];
  const close = async (): Promise<void> => {
    for (const closer of closers.splice(0).reverse()) await closer();
  };
  try {
    // Every node's watch is a socket of its own: a limit below the fleet's need shows up as nodes
    // that never turn Ready (EMFILE on the 1,000th watch under the usual 1,024), so it is said first.
    const heartbeats = values.heartbeatConnections > 0 ? values.heartbeatConnections : heartbeatConnections(values.count);
    const pools = [values.apiConnections, values.apiConnections, heartbeats];
    const needed = fleetDescriptors(values.count, pools);
    const limit = openFilesLimit();
    if (limit !== undefined && limit < needed) {
      throw new Error(`${values.count} hollow nodes need about ${needed} open files (a pod watch socket each, ${pools.reduce((a, b) => a + b)} for the request pools) and this process may open ${limit}: raise the limit (ulimit -n; the hard limit, ulimit -Hn, as root) or run fewer nodes per process`);
    }
    const rootDir = values.rootDir ?? join(tmpdir(), `svc-hollow-nodes-${process.pid}`);
    mkdirSync(rootDir, { recursive: true });
    if (values.rootDir === undefined) closers.push(async () => rmSync(rootDir, { recursive: true, force: true }));
    const codec = await loadProtobufCodec();
    // The request clients one agent has (pods, throttled by the agent's bucket in the daemon;
    // heartbeats; Events), each with a bounded pool: unbounded, a thousand nodes' syncs opened a
    // socket each and filled the API server's accept queue (docs/benchmarks.md). The watches, one
    // long-lived socket per node, have their own client so that they never hold a request's socket.
    const connect = async (userAgent: string, connections?: number): Promise<Client> => {
      const options = { userAgent, codec, ...(connections === undefined ? {} : { connections }) };
      return values.svcconfig !== undefined ? Client.fromSvcconfig(values.svcconfig, options) : Client.fromEnv(options);
    };
    const client = await connect('nodeagent/hollow', values.apiConnections);
    closers.push(() => client.close());
    // The heartbeats' pool is sized from the node count (heartbeat-pool.ts): a real agent's Lease
    // has a connection of its own, and 64 shared sockets carried ~160 renewals a second of the 500
    // that 5,000 nodes make once the API server took 0.4 s a PUT, so nodes went NotReady.
    const statusClient = await connect('nodeagent/hollow-heartbeat', heartbeats);
    closers.push(() => statusClient.close());
    // The pods' Events have a pool of their own, as the kubelet has an event client beside its
    // heartbeat client: a burst of Events must not hold the sockets the Lease renewals need.
    const eventClient = await connect('nodeagent/hollow-events', values.apiConnections);
    closers.push(() => eventClient.close());
    const watchClient = await connect('nodeagent/hollow-watch');
    closers.push(() => watchClient.close());
    const informers = new InformerFactory(watchClient);
    closers.push(async () => informers.stop());
    const errors = errorLog(io);
    closers.push(async () => errors.stop());
    io.err(`${hollowNodesDoc.name}: ${simulatedNotice(values.count)}`);
    const nodes: HollowNode[] = [];
    closers.push(async () => {
      for (const node of nodes) await node.close();
    });
    nodes.push(
      ...(await startHollowFleet({
        count: values.count,
        firstIndex: values.firstIndex,
        namePrefix: values.namePrefix,
        client,
        statusClient,
        eventClient,
        informers,
        rootDir,
        nodeCidr: values.nodeCidr,
        podCidr: values.podCidr,
        simulation: { startDelayMs: values.podStartDelay, sandboxFailureRate: values.sandboxFailureRate, startFailureRate: values.startFailureRate, probeFailureRate: values.probeFailureRate },
        host: { cpus: values.cpus, memoryBytes: quantityBytes(values.memory)! },
        version: SVC_VERSION,
        nodeOptions: { nodeLabels: values.nodeLabels, maxPods: values.maxPods, nodeStatusUpdateFrequency: values.nodeStatusUpdateFrequency },
        statusReportFrequencyMs: values.nodeStatusReportFrequency,
        syncFrequencyMs: values.syncFrequency,
        writeVolumes: values.writeVolumes,
        shapeCriRequests: values.shapeCriRequests,
        clusterDNS: values.clusterDns,
        clusterDomain: values.clusterDomain,
        startRate: values.startRate,
        signal,
        onError: errors.report,
      })),
    );
    return { nodes, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** `svc up --hollow-nodes N`: the fleet with the command's defaults, on the cluster's admin svcconfig. */
export function startHollowNodesOf(svcconfig: string, count: number, io: CommandIO, signal?: AbortSignal): Promise<RunningHollowNodes> {
  const parsed = parseFlags(hollowNodesFlags, [`--svcconfig=${svcconfig}`, `--count=${count}`]);
  if (parsed.help) throw new Error('unreachable: no --help given');
  return startHollowNodes(parsed.values, io, signal);
}

export async function hollowNodes(argv: readonly string[], io: CommandIO): Promise<number> {
  const values = readCommandLine(hollowNodesDoc, hollowNodesFlags, argv, io, (v) => v);
  if (isExit(values)) return values.exitCode;
  const shutdown = new Shutdown(io);
  let running: RunningHollowNodes;
  try {
    running = await startHollowNodes(values, io, shutdown.signal);
  } catch (error) {
    io.err(`${hollowNodesDoc.name}: ${(error as Error).message}`);
    await shutdown.close();
    return EXIT_FAILED;
  }
  shutdown.add(() => running.close());
  const { nodes } = running;
  if (!shutdown.stopping) io.out(`${hollowNodesDoc.name}: ${nodes.length} hollow nodes started (${nodes[0]?.nodeName ?? ''} .. ${nodes.at(-1)?.nodeName ?? ''}), containers simulated`);
  await shutdown.requested;
  return shutdown.close();
}
