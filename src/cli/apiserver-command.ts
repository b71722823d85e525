import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import { startKubernetesService } from '../../controllers/index.js';
import { DEFAULT_SERVICE_CIDR, serveApiServer, type ApiServerConfig, type ServingApiServer } from '../apiserver/index.js';
import { Client, writeSvcconfig } from '../client/index.js';
import { internalIps } from '../nodeagent/index.js';
import { apiServerConfig, apiServerDoc, apiServerFlags } from './apiserver-flags.js';
import { closeOnSignal, EXIT_FAILED, isExit, processIO, readCommandLine, type CommandIO, type Exit } from './command.js';
import type { CommandDoc } from './flag-docs.js';
import { FlagError, parseFlags } from './flags.js';

/** A running API server and the client config written for its admin. */
export interface RunningApiServer extends ServingApiServer {
  /** Absolute path of `<data-dir>/admin.svcconfig`: server URL, CA and admin token. */
  readonly svcconfigPath: string;
}

/**
 * Starts svc-apiserver in-process, from its command-line arguments (handy for tests and for
 * commands that embed it) or from a config. Resolves once it listens and `admin.svcconfig` is
 * written. Throws `FlagError` for bad arguments, `Error` for unusable files or ports.
 */
export async function startApiServer(options: readonly string[] | ApiServerConfig): Promise<RunningApiServer> {
  const config = isArgv(options) ? configFromArgv(options) : options;
  const server = await serveApiServer(config);
  const svcconfigPath = resolve(join(config.dataDir, 'admin.svcconfig'));
  try {
    await writeSvcconfig(svcconfigPath, { server: server.url, caData: server.caPem, token: server.adminToken, name: 'svc' });
  } catch (error) {
    await server.close();
    throw error;
  }
  if (config.endpointReconcilerType === 'none') return { ...server, svcconfigPath };
  // The `kubernetes` Service is kept through the server's own API, as the admin (upstream's loopback client).
  const client = await Client.fromSvcconfig(svcconfigPath);
  const advertiseAddress = advertiseAddressOf(config);
  const loop = startKubernetesService({
    client,
    serviceCidr: config.serviceNetwork?.clusterIpRange ?? DEFAULT_SERVICE_CIDR,
    advertiseAddress,
    securePort: server.port,
    ...(config.endpointReconcilerType === 'master-count' ? { masterCount: config.apiserverCount ?? 1 } : {}),
    identity: `apiserver-${createHash('sha256').update(`${hostname()}/${advertiseAddress}:${server.port}`).digest('hex').slice(0, 16)}`,
  });
  const close = async (): Promise<void> => {
    await loop.stop();
    await client.close();
    await server.close();
  };
  return { ...server, svcconfigPath, close };
}

/** `--advertise-address`, else the bind address when pods can reach it, else the host's default-route address. */
export function advertiseAddressOf(config: ApiServerConfig): string {
  if (config.advertiseAddress !== undefined) return config.advertiseAddress;
  const bind = config.bindAddress;
  if (bind !== '0.0.0.0' && bind !== '::' && !bind.startsWith('127.') && bind !== '::1') return bind;
  try {
    return internalIps(bind === '::' ? '::' : undefined)[0] ?? '127.0.0.1';
  } catch {
    return '127.0.0.1';
  }
}

function isArgv(options: readonly string[] | ApiServerConfig): options is readonly string[] {
  return Array.isArray(options);
}

function configFromArgv(argv: readonly string[]): ApiServerConfig {
  const parsed = parseFlags(apiServerFlags, argv);
  if (parsed.help) throw new FlagError('--help is not a server option');
  if (parsed.args.length > 0) throw new FlagError(`unexpected argument ${JSON.stringify(parsed.args[0])}`);
  return apiServerConfig(parsed.values);
}

/** Starts the server for a command, printing the listening line, or an error and its exit code. */
export async function startForCommand(doc: CommandDoc, config: ApiServerConfig, io: CommandIO): Promise<RunningApiServer | Exit> {
  try {
    const server = await startApiServer(config);
    io.out(`svc-apiserver listening on ${server.listenUrl}`);
    return server;
  } catch (error) {
    io.err(`${doc.name}: ${(error as Error).message}`);
    return { exitCode: EXIT_FAILED };
  }
}

/** svc-apiserver: serves until SIGINT/SIGTERM. Returns the exit code. */
export async function main(argv: readonly string[], io: CommandIO = processIO): Promise<number> {
  const config = readCommandLine(apiServerDoc, apiServerFlags, argv, io, apiServerConfig);
  if (isExit(config)) return config.exitCode;
  const server = await startForCommand(apiServerDoc, config, io);
  if (isExit(server)) return server.exitCode;
  io.out(`admin svcconfig written to ${server.svcconfigPath}`);
  return closeOnSignal(server.close, io);
}
