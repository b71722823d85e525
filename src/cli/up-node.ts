import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { stringify } from 'yaml';
import {
  buildLocalImages,
  defaultImageCacheDir,
  freePodCidr,
  importImageArchive,
  internalIps,
  missingNodeDependencies,
  mountsUnder,
  startContainerdProcess,
  type ContainerdProcess,
  type RegistryConfig,
} from '../nodeagent/index.js';
import { ensureServingCertificateFiles, type ClientCertificateFiles } from '../pki/index.js';
import { loadSvcconfig, writeSvcconfig } from '../client/index.js';
import type { CommandIO } from './command.js';
import { CONFIG_API_VERSION, CONFIG_KIND } from './nodeagent-config.js';
import { prepareNodeAgent } from './nodeagent-command.js';
import { startNodeAgent, type RunningNodeAgent } from './nodeagent-run.js';
import { agentRootDir, containerdSocketPath } from './up-paths.js';
import { readHostFacts } from './nodeagent-validate.js';
import { startUpNetworking, type UpNetworking } from './up-networking.js';

const CLUSTER_DOMAIN = 'cluster.local';

/**
 * The node of `svc up`, the way k3s runs its agent: a containerd of its own under
 * `<data-dir>/containerd` (generated config, its own socket, a bridge CNI network for pod IPs),
 * svc's local busybox and pause images imported into it, and the node agent in this process with
 * a generated NodeAgentConfiguration in `<data-dir>/agent/config.yaml`.
 */

export interface UpNodeOptions {
  readonly dataDir: string;
  /** The admin svcconfig the agent talks to the API server with. */
  readonly svcconfigPath: string;
  /**
   * The pod CIDR `svc up` chose (`upPodCidr`) before it started the controller manager, whose
   * node-ipam hands exactly this range to the node: used as it is, never chosen again (a second
   * choice could differ once another cluster's bridge took the first meanwhile).
   */
  readonly podCidr: string;
  /** The agent's HTTPS port. */
  readonly port: number;
  /**
   * The cluster's pki dir (`<data-dir>/pki`): its CA is the one whose client certificates the
   * agent accepts (the API server's proxy) and the one that signs the agent's serving certificate
   * (which the API server verifies).
   */
  readonly pkiDir: string;
  readonly io: CommandIO;
  readonly verbose: boolean;
  /**
   * Aborted when `svc up` is asked to stop while the node starts: the next step is not taken,
   * what was started is taken down, and the start rejects with the signal's reason.
   */
  readonly signal?: AbortSignal;
  /**
   * Join with this bootstrap token (`<id>.<secret>`) instead of the admin svcconfig: the agent
   * gets its client certificate by TLS bootstrap (`<data-dir>/agent/bootstrap.svcconfig`), keeps
   * it in `<data-dir>/agent/pki` with `<data-dir>/agent/nodeagent.svcconfig`, and rotates it.
   */
  readonly bootstrapToken?: string;
  /** The node's registries.yaml, read: containerd's hosts.toml and auth, and the agent's `registryConfig` (rewrites). */
  readonly registries?: { readonly config: RegistryConfig; readonly path: string };
  /** Where the API server listens: pods reach it through a relay on the bridge (up-networking.ts). */
  readonly apiServer: { readonly bindAddress: string; readonly port: number };
  /** The Node's name, for the service proxy's Local traffic policies. */
  readonly nodeName: string;
}

export interface UpNode {
  readonly nodeName: string;
  readonly podCidr: string;
  /** Stops the agent, then every pod sandbox and containerd (the whole node goes down with `svc up`). */
  close(): Promise<void>;
}

/** A bridge name per data dir (at most 15 characters), so two clusters on one host do not share one. */
export function bridgeName(dataDir: string): string {
  return `svc${createHash('sha256').update(dataDir).digest('hex').slice(0, 8)}`;
}

/**
 * The node's pod CIDR: the one it used last time (kept so pod IPs stay in one range across
 * restarts) or `preferred`, unless a host route covers it. `svc up` asks before it starts the
 * controller manager, whose node-ipam then hands exactly this range to the node.
 */
export function upPodCidr(dataDir: string, preferred: string): string {
  const agentDir = agentRootDir(dataDir);
  mkdirSync(agentDir, { recursive: true });
  return choosePodCidr(agentDir, preferred);
}

/** The pod CIDR the node used last time, kept so pod IPs stay in one range across restarts. */
export function choosePodCidr(agentDir: string, preferred: string): string {
  const file = join(agentDir, 'pod-cidr');
  const previous = existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined;
  const cidr = freePodCidr(previous || preferred);
  writeFileSync(file, `${cidr}\n`);
  return cidr;
}

/** The agent's generated configuration: what `svc up` chooses for its node, each for a reason. */
function agentConfig(o: UpNodeOptions, endpoint: string, podCidr: string, port: number | undefined, serving: ClientCertificateFiles, clusterDns: string | undefined): Record<string, unknown> {
  return {
    apiVersion: CONFIG_API_VERSION,
    kind: CONFIG_KIND,
    containerRuntimeEndpoint: endpoint,
    podCIDR: podCidr,
    // None with `--node-agent-port=0`: the agent binds a port the system picks (startUpNode).
    ...(port === undefined ? {} : { port }),
    // Signed by the cluster CA for the names the API server reaches the node by, so its proxy verifies the agent.
    tlsCertFile: serving.certFile,
    tlsPrivateKeyFile: serving.keyFile,
    // A laptop cluster serves neither the unauthenticated read-only port nor a fixed health port
    // (two clusters on one host would fight over them).
    readOnlyPort: 0,
    healthzPort: 0,
    // Machines like this one still boot with cgroup v1; the agent runs there with a warning.
    failCgroupV1: false,
    // Laptops and CI machines often have swap on.
    failSwapOn: false,
    clusterDomain: CLUSTER_DOMAIN,
    // The cluster DNS svc up runs on the bridge's gateway (up-networking.ts).
    ...(clusterDns ? { clusterDNS: [clusterDns] } : {}),
    // Only the API server's proxy (a client certificate from the cluster CA) and tokens the API
    // server vouches for get in; what they may do is the API server's RBAC decision.
    authentication: { anonymous: { enabled: false }, x509: { clientCAFile: join(o.pkiDir, 'ca.crt') }, webhook: { enabled: true } },
    authorization: { mode: 'Webhook' },
    // The agent applies the mirrors' rewrites; containerd's side (hosts.toml, auth) is written with its config.
    ...(o.registries ? { registryConfig: o.registries.path } : {}),
  };
}

/** The agent's options for joining with a bootstrap token: its bootstrap config, where its own goes, rotation on. */
async function bootstrapArgs(o: UpNodeOptions, agentDir: string, token: string): Promise<string[]> {
  const admin = await loadSvcconfig(o.svcconfigPath);
  const bootstrapPath = join(agentDir, 'bootstrap.svcconfig');
  await writeSvcconfig(bootstrapPath, { name: 'bootstrap', server: admin.server, caData: admin.caData, token });
  return ['--bootstrap-svcconfig', bootstrapPath, '--svcconfig', join(agentDir, 'nodeagent.svcconfig'), '--rotate-certificates'];
}

/**
 * Starts the node, or says why there is none and returns undefined (the control plane runs on):
 * containerd, runc or the CNI plugins missing (with the command that installs them), or no static
 * busybox to build the local images from.
 */
export async function startUpNode(o: UpNodeOptions): Promise<UpNode | undefined> {
  const missing = missingNodeDependencies();
  if (missing.length > 0) {
    const install = [...new Set(missing.map((m) => m.install.replace(/^apt-get install -y /, '')))].join(' ');
    o.io.err(`svc up: no node: ${missing.map((m) => m.name).join(', ')} not installed (install with: apt-get install -y ${install}); running the control plane only`);
    return undefined;
  }
  let images;
  try {
    images = buildLocalImages(defaultImageCacheDir());
  } catch (error) {
    o.io.err(`svc up: no node: the local images cannot be built (${(error as Error).message}; install with: apt-get install -y busybox-static); running the control plane only`);
    return undefined;
  }
  const agentDir = agentRootDir(o.dataDir);
  mkdirSync(agentDir, { recursive: true });
  const podCidr = o.podCidr;
  const containerd: ContainerdProcess = await startContainerdProcess({
    dir: dirname(containerdSocketPath(o.dataDir)),
    podCidr,
    bridge: bridgeName(o.dataDir),
    sandboxImage: images.pause.ref,
    ...(o.registries ? { registries: o.registries.config } : {}),
    ...(o.verbose ? { onLog: (line: string) => o.io.err(`containerd: ${line}`) } : {}),
  });
  let agent: RunningNodeAgent | undefined;
  let networking: UpNetworking | undefined;
  // One way down for a node that started and for one whose start failed or was cut short.
  const teardown = async (): Promise<void> => {
    await agent?.close();
    // The service rules and the DNS go before containerd takes the bridge down.
    await networking?.close();
    await containerd.stop();
    // The agent made its root dir a shared bind mount, and memory-backed volumes are tmpfs
    // mounts under it: the node is gone, so are they (deepest first).
    for (const point of mountsUnder(agentDir).sort((a, b) => b.length - a.length)) {
      if (spawnSync('umount', [point], { stdio: 'ignore' }).status !== 0) spawnSync('umount', ['-l', point], { stdio: 'ignore' });
    }
  };
  try {
    o.signal?.throwIfAborted();
    for (const image of [images.pause, images.busybox]) {
      await importImageArchive({ address: containerd.address, archive: image.path, snapshotter: containerd.snapshotter });
      o.signal?.throwIfAborted();
    }
    const host = readHostFacts();
    if (host.cgroupVersion === 1) o.io.err('svc up: this host has cgroup v1: the node agent runs with failCgroupV1: false (set in <data-dir>/agent/config.yaml)');
    if (host.swapDevices > 0) o.io.err('svc up: swap is on: the node agent runs with failSwapOn: false');
    networking = await startUpNetworking({
      svcconfigPath: o.svcconfigPath,
      bridge: bridgeName(o.dataDir),
      podCidr,
      nodeName: o.nodeName,
      apiServer: o.apiServer,
      clusterDomain: CLUSTER_DOMAIN,
      warn: (message) => o.io.err(`svc up: ${message}`),
    });
    o.signal?.throwIfAborted();
    const configPath = join(agentDir, 'config.yaml');
    const serving = await ensureServingCertificateFiles(o.pkiDir, 'node-agent-serving', `system:node:${hostname().toLowerCase()}`, {
      dns: ['localhost', hostname().toLowerCase()],
      ips: ['127.0.0.1', '::1', ...internalIps(undefined)],
    });
    writeFileSync(configPath, stringify(agentConfig(o, containerd.endpoint, podCidr, o.port === 0 ? undefined : o.port, serving, networking.dns ? networking.gateway : undefined)));
    const identity = o.bootstrapToken ? await bootstrapArgs(o, agentDir, o.bootstrapToken) : ['--svcconfig', o.svcconfigPath];
    const prepared = prepareNodeAgent(['--config', configPath, ...identity, '--root-dir', agentDir, '--cert-dir', join(agentDir, 'pki')], o.io);
    if (typeof prepared === 'number') throw new Error('the generated node agent configuration was refused (see above)');
    // `--node-agent-port=0`: the agent's server binds port 0 (its configuration cannot say 0) and its
    // Node advertises the port it got. A port picked free here and bound by the agent seconds
    // later could be taken in between (another svc up, a test's server), and the node fail to start.
    const startup = o.port === 0 ? { ...prepared, options: { ...prepared.options, values: { ...prepared.options.values, port: 0 } } } : prepared;
    o.signal?.throwIfAborted();
    agent = await startNodeAgent(startup, o.io);
    o.signal?.throwIfAborted();
  } catch (error) {
    await teardown();
    throw error;
  }
  return { nodeName: agent.nodeName, podCidr, close: teardown };
}
