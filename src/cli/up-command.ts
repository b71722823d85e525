import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ensureClientCertificate } from '../apiserver/index.js';
import { startForCommand } from './apiserver-command.js';
import { apiServerConfig } from './apiserver-flags.js';
import { closeOnSignal, EXIT_FAILED, isExit, readCommandLine, type CommandIO } from './command.js';
import { startControllerManagerFromArgs } from './controller-manager-command.js';
import { textLog } from './controller-manager-log.js';
import { parseFlags } from './flags.js';
import { startScheduler } from './scheduler-command.js';
import { schedulerFlags } from './scheduler-flags.js';
import { upDoc, upFlags } from './up-flags.js';
import { startUpNode, type UpNode } from './up-node.js';

/**
 * `svc up`: a whole local cluster in one process on the embedded store: the API server, the
 * controller manager, the scheduler and a node (its own containerd and the node agent).
 */

export interface UpOptions {
  /** `performance.now()` at the moment "start" means; default 0, the process start. */
  readonly startedAt?: number;
}

/** Runs `svc up` until SIGINT/SIGTERM; returns the exit code. */
export async function up(argv: readonly string[], io: CommandIO, options: UpOptions = {}): Promise<number> {
  const read = readCommandLine(upDoc, upFlags, argv, io, (values) => ({
    server: apiServerConfig(values),
    node: { enabled: !values.disableAgent, podCidr: values.podCidr, port: values.nodeAgentPort },
  }));
  if (isExit(read)) return read.exitCode;
  const { node: nodeConfig } = read;
  let config = read.server;
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
  const server = await startForCommand(upDoc, config, io);
  if (isExit(server)) return server.exitCode;
  // The controller manager runs in this process, as the admin, with leader election on (a second
  // `svc up` or an svc-controller-manager on the same cluster then waits instead of racing).
  // Its secure port stays off: run svc-controller-manager on its own for /metrics and /healthz.
  let manager: Awaited<ReturnType<typeof startControllerManagerFromArgs>>;
  try {
    manager = await startControllerManagerFromArgs(
      [`--svcconfig=${server.svcconfigPath}`, '--secure-port=0'],
      textLog(io, { verbosity: config.verbosity ?? 0, splitStream: false }),
    );
  } catch (error) {
    io.err(`${upDoc.name}: controller manager: ${(error as Error).message}`);
    await server.close();
    return EXIT_FAILED;
  }
  // The scheduler too: in this process, as the admin, leader-elected, without its health port.
  let scheduler: Awaited<ReturnType<typeof startScheduler>>;
  try {
    const parsed = parseFlags(schedulerFlags, [`--svcconfig=${server.svcconfigPath}`, '--secure-port=0']);
    if (parsed.help) throw new Error('unreachable: no --help given');
    scheduler = await startScheduler(parsed.values, { io });
  } catch (error) {
    io.err(`${upDoc.name}: scheduler: ${(error as Error).message}`);
    await manager.close();
    await server.close();
    return EXIT_FAILED;
  }
  // The node last: its agent registers with the API server and runs what the scheduler binds.
  let node: UpNode | undefined;
  if (nodeConfig.enabled) {
    try {
      node = await startUpNode({
        dataDir: resolve(config.dataDir),
        svcconfigPath: server.svcconfigPath,
        podCidr: nodeConfig.podCidr,
        port: nodeConfig.port,
        pkiDir: join(resolve(config.dataDir), 'pki'),
        io,
        verbose: (config.verbosity ?? 0) >= 2,
      });
    } catch (error) {
      io.err(`${upDoc.name}: node: ${(error as Error).message}`);
      await scheduler.close();
      await manager.close();
      await server.close();
      return EXIT_FAILED;
    }
    if (node) io.out(`node ${node.nodeName}: pods on ${node.podCidr}`);
  }
  const elapsed = Math.round(performance.now() - (options.startedAt ?? 0));
  io.out(`svcconfig: ${server.svcconfigPath}`);
  io.out(`ready in ${elapsed} ms`);
  io.out('');
  io.out('Use it with:');
  io.out(`  export KUBECONFIG=${server.svcconfigPath}`);
  io.out(`  kubectl --kubeconfig ${server.svcconfigPath} get ns`);
  // The grace covers the manager's drain (10s by default), the Lease release and the server's close.
  return closeOnSignal(
    async () => {
      await node?.close();
      await scheduler.close();
      await manager.close();
      await server.close();
    },
    io,
    30_000,
  );
}
