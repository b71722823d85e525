import { performance } from 'node:perf_hooks';
import { startForCommand } from './apiserver-command.js';
import { apiServerConfig } from './apiserver-flags.js';
import { closeOnSignal, isExit, readCommandLine, type CommandIO } from './command.js';
import { upDoc, upFlags } from './up-flags.js';

/**
 * `svc up`: a whole local cluster in one process on the embedded store. Today that is the API
 * server; the controller manager and the scheduler start here too once they exist.
 */

export interface UpOptions {
  /** `performance.now()` at the moment "start" means; default 0, the process start. */
  readonly startedAt?: number;
}

/** Runs `svc up` until SIGINT/SIGTERM; returns the exit code. */
export async function up(argv: readonly string[], io: CommandIO, options: UpOptions = {}): Promise<number> {
  const config = readCommandLine(upDoc, upFlags, argv, io, apiServerConfig);
  if (isExit(config)) return config.exitCode;
  const server = await startForCommand(upDoc, config, io);
  if (isExit(server)) return server.exitCode;
  const elapsed = Math.round(performance.now() - (options.startedAt ?? 0));
  io.out(`svcconfig: ${server.svcconfigPath}`);
  io.out(`ready in ${elapsed} ms`);
  io.out('');
  io.out('Use it with:');
  io.out(`  export KUBECONFIG=${server.svcconfigPath}`);
  io.out(`  kubectl --kubeconfig ${server.svcconfigPath} get ns`);
  return closeOnSignal(server.close, io);
}
