import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ensureClientCertificate } from '../pki/index.js';
import { isStatusError } from '../api/index.js';
import { builtin, Client, loadSvcconfig, resolveEnvConfig } from '../client/index.js';
import { startDashboard } from '../dashboard/index.js';
import { ensureServingCertificateFiles } from '../pki/index.js';
import { markNodeStatusUnknown, nodeName, readRegistryConfig, thisHost, type RegistryConfig } from '../nodeagent/index.js';
import { startForCommand } from './apiserver-command.js';
import { apiServerConfig } from './apiserver-flags.js';
import { EXIT_FAILED, isExit, readCommandLine, Shutdown, type CommandIO } from './command.js';
import { startControllerManagerFromArgs } from './controller-manager-command.js';
import { textLog } from './controller-manager-log.js';
import { parseFlags } from './flags.js';
import { startScheduler } from './scheduler-command.js';
import { schedulerFlags } from './scheduler-flags.js';
import { publishClusterInfo } from './up-cluster-info.js';
import { upDoc, upFlags } from './up-flags.js';
import { startUpNode, upPodCidr, type UpNode } from './up-node.js';
import { startHollowNodesOf } from './hollow-nodes-command.js';
import { gatewayOf } from './up-networking.js';
import { defaultRegistryConfigPath } from './up-paths.js';

/**
 * `svc up`: a whole local cluster in one process on the embedded store: the API server, the
 * controller manager, the scheduler and a node (its own containerd and the node agent).
 */

export interface UpOptions {
  /** `performance.now()` at the moment "start" means; default 0, the process start. */
  readonly startedAt?: number;
}

/** The burst of svc up's in-process controller manager (`--svc-api-burst`): room for its whole start. */
const UP_MANAGER_API_BURST = 300;

/** Runs `svc up` until SIGINT/SIGTERM; returns the exit code. */
export async function up(argv: readonly string[], io: CommandIO, options: UpOptions = {}): Promise<number> {
  const read = readCommandLine(upDoc, upFlags, argv, io, (values) => ({
    server: apiServerConfig(values),
    node: { enabled: !values.disableAgent, podCidr: values.podCidr, port: values.nodeAgentPort, registryConfig: values.registryConfig, bootstrapToken: values.nodeBootstrapToken },
    dashboardPort: values.disableDashboard ? undefined : values.dashboardPort,
    hollowNodes: values.hollowNodes,
    controllerManagerArgs: values.controllerManagerArg,
    schedulerArgs: values.schedulerArg,
  }));
  if (isExit(read)) return read.exitCode;
  const { node: nodeConfig, dashboardPort, hollowNodes, controllerManagerArgs, schedulerArgs } = read;
  let config = read.server;
  // Read before anything starts: a broken registries.yaml is the operator's to fix, not a node to start without.
  let registries: RegistryConfig | undefined;
  const registryPath = nodeConfig.registryConfig ?? defaultRegistryConfigPath(resolve(config.dataDir));
  if (nodeConfig.enabled && (nodeConfig.registryConfig !== undefined || existsSync(registryPath))) {
    try {
      registries = readRegistryConfig(registryPath);
    } catch (error) {
      io.err(`${upDoc.name}: ${(error as Error).message}`);
      return EXIT_FAILED;
    }
  }
  if (nodeConfig.enabled && config.nodeAgent?.clientCertificateFile === undefined) {
    // The API server shows the node agent a certificate of the cluster CA when it proxies logs,
    // exec, attach and port-forward; the agent trusts that CA and asks RBAC, where system:masters may.
    const files = await ensureClientCertificate(join(resolve(config.dataDir), 'pki'), 'node-agent-client', {
      commonName: 'svc-apiserver-node-agent-client',
      organizations: ['system:masters'],
    });
    // ...and verifies the agent's serving certificate, which svc up has the same CA sign (up-node.ts).
    const certificateAuthorityFile = config.nodeAgent?.certificateAuthorityFile ?? join(resolve(config.dataDir), 'pki', 'ca.crt');
    config = { ...config, nodeAgent: { ...config.nodeAgent, clientCertificateFile: files.certFile, clientKeyFile: files.keyFile, certificateAuthorityFile } };
  }
  const pkiDir = join(resolve(config.dataDir), 'pki');
  // Joining with a bootstrap token: the node's certificates come from the cluster CA through
  // CertificateSigningRequests, so the API server must trust that CA's client certificates.
  const bootstrapToken = nodeConfig.enabled && nodeConfig.bootstrapToken;
  if (bootstrapToken && config.clientCaFile === undefined) config = { ...config, clientCaFile: join(pkiDir, 'ca.crt') };
  // Pods reach the API server at their bridge's gateway (the `kubernetes` Service's endpoint), so
  // the pod network is chosen before the server starts (up-networking.ts).
  let podCidr = nodeConfig.podCidr;
  if (nodeConfig.enabled) {
    podCidr = upPodCidr(resolve(config.dataDir), nodeConfig.podCidr);
    if (config.advertiseAddress === undefined) config = { ...config, advertiseAddress: gatewayOf(podCidr).address };
  }
  // Armed before anything starts: a signal during start-up closes what has started (containerd
  // above all) instead of ending the process with it left running.
  const shutdown = new Shutdown(io, 30_000);
  const stopEarly = async (): Promise<number> => {
    const code = await shutdown.close();
    return shutdown.stopping ? code : EXIT_FAILED;
  };
  const server = await startForCommand(upDoc, config, io);
  if (isExit(server)) {
    await shutdown.close();
    return server.exitCode;
  }
  shutdown.add(() => server.close());
  if (shutdown.stopping) return stopEarly();
  // Whatever the Node says now, its last agent said; none runs until this one starts (below).
  try {
    await markOwnNodeUnknown(server.svcconfigPath);
  } catch (error) {
    io.err(`${upDoc.name}: marking the node's status Unknown: ${(error as Error).message}`);
  }
  // cluster-info in svc-public, as kubeadm: the bootstrap-signer loop signs it per bootstrap token.
  try {
    await publishOwnClusterInfo(server.svcconfigPath);
  } catch (error) {
    io.err(`${upDoc.name}: publishing cluster-info: ${(error as Error).message}`);
    return stopEarly();
  }
  // The controller manager runs in this process, as the admin, with leader election on (a second
  // `svc up` or an svc-controller-manager on the same cluster then waits instead of racing).
  // Its secure port listens on loopback only, on a free port, for the dashboard's Controllers view
  // (`/live/controllers`): a certificate of the cluster CA, which the dashboard already trusts,
  // and every request authenticated (TokenReview) and authorized (SubjectAccessReview) by the API
  // server, as the admin's svcconfig asks them.
  // node-ipam hands the node the range its bridge uses (a free /24 chosen here, before the node
  // starts): the whole cluster CIDR is that one block, so a node that joins keeps its own range.
  const nodePodCidr = nodeConfig.enabled ? podCidr : undefined;
  let managerUrl: string | undefined;
  try {
    const managerServing = await ensureServingCertificateFiles(pkiDir, 'controller-manager-serving', 'svc-controller-manager', { dns: ['localhost'], ips: ['127.0.0.1'] });
    const manager = await startControllerManagerFromArgs(
      [
        `--svcconfig=${server.svcconfigPath}`,
        '--bind-address=127.0.0.1',
        `--tls-cert-file=${managerServing.certFile}`,
        `--tls-private-key-file=${managerServing.keyFile}`,
        `--authentication-svcconfig=${server.svcconfigPath}`,
        `--authorization-svcconfig=${server.svcconfigPath}`,
        ...(nodePodCidr ? ['--allocate-node-cidrs', `--cluster-cidr=${nodePodCidr}`, `--node-cidr-mask-size=${nodePodCidr.split('/')[1]}`] : []),
        // As kubeadm: the bootstrap-token pair on beside the defaults.
        '--controllers=*,bootstrap-signer-controller,token-cleaner-controller',
        // The API server's own signing key (it trusts its public half): legacy token secrets work.
        `--service-account-private-key-file=${config.serviceAccountSigningKeyFile ?? join(resolve(config.dataDir), 'service-account.key')}`,
        // As k3s's local-path: a default class whose claims get a directory on this host (docs/storage.md).
        '--enable-hostpath-provisioner',
        `--hostpath-provisioner-root=${join(resolve(config.dataDir), 'storage')}`,
        // csrsigning issues with the cluster CA (the node's certificates when it joins with a token).
        `--cluster-signing-cert-file=${join(pkiDir, 'ca.crt')}`,
        `--cluster-signing-key-file=${join(pkiDir, 'ca.key')}`,
        // Its start (every informer's list and watch, the garbage collector's of every resource,
        // the first reconciles: ~220 requests) in one burst. At kube's 30 they queued at 20/s for
        // ~5 s: the default ServiceAccount that readiness waits for came seconds late, and a stop
        // in those seconds drained behind the queue (docs/testing.md). The rate stays kube's 20/s.
        `--svc-api-burst=${UP_MANAGER_API_BURST}`,
        ...controllerManagerArgs,
      ],
      textLog(io, { verbosity: config.verbosity ?? 0, splitStream: false }),
      { freeSecurePort: true },
    );
    shutdown.add(() => manager.close());
    managerUrl = manager.serving?.url;
  } catch (error) {
    io.err(`${upDoc.name}: controller manager: ${(error as Error).message}`);
    return stopEarly();
  }
  if (shutdown.stopping) return stopEarly();
  // The scheduler too: in this process, as the admin, leader-elected, without its health port.
  try {
    const parsed = parseFlags(schedulerFlags, [`--svcconfig=${server.svcconfigPath}`, '--secure-port=0', ...schedulerArgs]);
    if (parsed.help) throw new Error('--scheduler-arg=--help: see svc-scheduler --help');
    const scheduler = await startScheduler(parsed.values, { io });
    shutdown.add(() => scheduler.close());
  } catch (error) {
    io.err(`${upDoc.name}: scheduler: ${(error as Error).message}`);
    return stopEarly();
  }
  if (shutdown.stopping) return stopEarly();
  // The node last: its agent registers with the API server and runs what the scheduler binds.
  if (nodeConfig.enabled) {
    let node: UpNode | undefined;
    try {
      const joinToken = bootstrapToken ? await createNodeBootstrapToken(server.svcconfigPath) : undefined;
      if (joinToken) io.out(`node bootstrap token: ${joinToken} (valid 24h; the node joins with it, not as the admin)`);
      node = await startUpNode({
        ...(joinToken ? { bootstrapToken: joinToken } : {}),
        dataDir: resolve(config.dataDir),
        svcconfigPath: server.svcconfigPath,
        podCidr,
        port: nodeConfig.port,
        apiServer: { bindAddress: config.bindAddress, port: server.port },
        nodeName: nodeName({}, thisHost),
        pkiDir: join(resolve(config.dataDir), 'pki'),
        io,
        verbose: (config.verbosity ?? 0) >= 2,
        signal: shutdown.signal,
        ...(registries ? { registries: { config: registries, path: resolve(registryPath) } } : {}),
      });
    } catch (error) {
      // startUpNode took down what of the node it had started.
      if (!shutdown.stopping) io.err(`${upDoc.name}: node: ${(error as Error).message}`);
      return stopEarly();
    }
    if (node) {
      const started = node;
      shutdown.add(() => started.close());
      io.out(`node ${node.nodeName}: pods on ${node.podCidr}`);
    }
  }
  if (shutdown.stopping) return stopEarly();
  // Hollow nodes: the agent's code on the simulated runtime, saying so in the log and on each Node.
  if (hollowNodes > 0) {
    try {
      const fleet = await startHollowNodesOf(server.svcconfigPath, hollowNodes, io, shutdown.signal);
      shutdown.add(() => fleet.close());
      io.out(`hollow nodes: ${fleet.nodes.length} (${fleet.nodes[0]?.nodeName ?? ''} .. ${fleet.nodes.at(-1)?.nodeName ?? ''}), containers SIMULATED (svc-simulated runtime)`);
    } catch (error) {
      if (!shutdown.stopping) io.err(`${upDoc.name}: hollow nodes: ${(error as Error).message}`);
      return stopEarly();
    }
  }
  if (shutdown.stopping) return stopEarly();
  // Ready means a pod can be made in `default`: its account is the serviceaccount loop's, which
  // runs once the manager leads (at once, unless another manager holds the Lease).
  if (!(await defaultAccountExists(server.svcconfigPath, shutdown.signal))) {
    if (shutdown.stopping) return stopEarly();
    io.err(`${upDoc.name}: the default ServiceAccount of namespace default is not there yet (another controller manager leads?); pods there are refused until it is`);
  }
  // The dashboard reads as the admin through its proxy; a taken port costs the dashboard, not the cluster.
  let dashboardUrl: string | undefined;
  if (dashboardPort !== undefined) {
    try {
      const { connection } = await resolveEnvConfig({ path: server.svcconfigPath });
      const dashboard = await startDashboard({ connection, port: dashboardPort, ...(managerUrl ? { controllerManager: managerUrl } : {}) });
      shutdown.add(() => dashboard.close());
      dashboardUrl = dashboard.url;
    } catch (error) {
      io.err(`${upDoc.name}: dashboard not started: ${(error as Error).message}`);
    }
  }
  const elapsed = Math.round(performance.now() - (options.startedAt ?? 0));
  io.out(`svcconfig: ${server.svcconfigPath}`);
  if (managerUrl !== undefined) io.out(`controller manager: ${managerUrl} (loopback; /metrics, /healthz, /live/controllers with the admin's credential)`);
  if (dashboardUrl !== undefined) io.out(`dashboard: ${dashboardUrl}`);
  io.out(`ready in ${elapsed} ms`);
  io.out('');
  io.out('Use it with:');
  io.out(`  export KUBECONFIG=${server.svcconfigPath}`);
  io.out(`  kubectl --kubeconfig ${server.svcconfigPath} get ns`);
  // The grace (30 s) covers the manager's drain (10s by default), the Lease release and the server's close.
  await shutdown.requested;
  return shutdown.close();
}

/** What kubeadm names its node-joining tokens' extra group: RBAC may single them out. */
export const NODE_TOKEN_GROUP = 'system:bootstrappers:svc:default-node-token';
const TOKEN_LIFETIME_MS = 24 * 3600_000;

/** A fresh bootstrap token Secret in svc-system (24 h, for authentication); the token `<id>.<secret>`. */
async function createNodeBootstrapToken(svcconfigPath: string): Promise<string> {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const pick = (n: number) => Array.from(randomBytes(n), (b) => alphabet[b % alphabet.length]).join('');
  const id = pick(6);
  const secret = pick(16);
  const data = (value: string) => Buffer.from(value).toString('base64');
  const client = await Client.fromSvcconfig(svcconfigPath);
  try {
    await client.create(builtin.secrets, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: `bootstrap-token-${id}`, namespace: 'svc-system' },
      type: 'bootstrap.kubernetes.io/token',
      data: {
        'token-id': data(id),
        'token-secret': data(secret),
        expiration: data(new Date(Date.now() + TOKEN_LIFETIME_MS).toISOString().replace(/\.\d+Z$/, 'Z')),
        'usage-bootstrap-authentication': data('true'),
        'auth-extra-groups': data(NODE_TOKEN_GROUP),
        description: data('made by svc up for its node'),
      },
    });
  } finally {
    await client.close();
  }
  return `${id}.${secret}`;
}

/** The Node this host's agent registers (svc up sets no --hostname-override), marked Unknown until it reports. */
/** Waits (at most 30 s, or until `signal`) for `default/default`; whether it exists. */
async function defaultAccountExists(svcconfigPath: string, signal: AbortSignal): Promise<boolean> {
  const client = await Client.fromSvcconfig(svcconfigPath);
  try {
    for (const deadline = Date.now() + 30_000; Date.now() < deadline && !signal.aborted; ) {
      try {
        await client.get(builtin.serviceAccounts, 'default', { namespace: 'default' });
        return true;
      } catch (error) {
        if (!isStatusError(error) || error.code !== 404) throw error;
      }
      await new Promise((done) => setTimeout(done, 50));
    }
    return false;
  } finally {
    await client.close();
  }
}

/** The server and CA of the admin svcconfig, which nodes reach the cluster with too. */
async function publishOwnClusterInfo(svcconfigPath: string): Promise<void> {
  const target = await loadSvcconfig(svcconfigPath);
  if (target.caData === undefined) throw new Error(`${svcconfigPath} names no certificate authority`);
  const client = await Client.fromSvcconfig(svcconfigPath);
  try {
    await publishClusterInfo(client, { server: target.server, caPem: target.caData });
  } finally {
    await client.close();
  }
}

async function markOwnNodeUnknown(svcconfigPath: string): Promise<void> {
  const client = await Client.fromSvcconfig(svcconfigPath);
  try {
    await markNodeStatusUnknown(client, nodeName({}, thisHost));
  } finally {
    await client.close();
  }
}
