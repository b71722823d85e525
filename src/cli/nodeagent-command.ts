import { SVC_VERSION } from '../apiserver/index.js';
import { EXIT_FAILED, EXIT_OK, processIO, type CommandIO } from './command.js';
import { renderHelp } from './flag-docs.js';
import { FlagError } from './flags.js';
import { resolveNodeAgentOptions, type ResolvedOptions } from './nodeagent-config.js';
import { nodeAgentDoc, nodeAgentFlags } from './nodeagent-flags.js';
import { checkHost, notBuiltNotices, readHostFacts, validateNodeAgentOptions, type HostFacts } from './nodeagent-validate.js';

/**
 * `--version` takes an optional value (`--version`, `--version=true`, `--version=raw`, or a version
 * to report): a bare `--version` is rewritten so the parser never takes the next argument as it.
 */
function normalizeVersion(argv: readonly string[]): string[] {
  return argv.map((arg) => (arg === '--version' ? '--version=true' : arg));
}

/** What `--version` asks for: print and exit, or report another version. */
export function versionRequest(value: string | undefined): { print: 'short' | 'raw' } | { report: string } | undefined {
  if (value === undefined || value === 'false') return undefined;
  if (value === 'true') return { print: 'short' };
  if (value === 'raw') return { print: 'raw' };
  return { report: value };
}

export interface NodeAgentStartup {
  readonly options: ResolvedOptions;
  /** The version the agent reports in its Node (svc's, or `--version=<v>`). */
  readonly version: string;
}

/**
 * Everything before the agent starts: options from every source, their checks, the notices of
 * deprecated and not-built options, and the host checks. Returns an exit code when the command
 * ends here (help, version, an error), else the options to run with.
 */
export function prepareNodeAgent(argv: readonly string[], io: CommandIO, host: HostFacts = readHostFacts()): NodeAgentStartup | number {
  const args = normalizeVersion(argv);
  if (args.includes('--help') || args.includes('-h')) {
    io.out(renderHelp(nodeAgentDoc, nodeAgentFlags).trimEnd());
    return EXIT_OK;
  }
  try {
    const options = resolveNodeAgentOptions(args);
    const version = versionRequest(options.values.version);
    if (version && 'print' in version) {
      io.out(version.print === 'raw' ? JSON.stringify({ gitVersion: `v${SVC_VERSION}`, platform: `${process.platform}/${process.arch}`, compiler: 'node' }) : `nodeagent v${SVC_VERSION}`);
      return EXIT_OK;
    }
    for (const warning of options.warnings) io.err(`warning: ${warning}`);
    validateNodeAgentOptions(options.values);
    for (const notice of notBuiltNotices(options.values)) io.err(`warning: ${notice}`);
    checkHost(options.values, host);
    return { options, version: version && 'report' in version ? version.report : SVC_VERSION };
  } catch (error) {
    if (!(error instanceof FlagError)) throw error;
    // The spec's daemons end with status 1 on a bad option, a bad config file or a failed host check.
    io.err(`nodeagent: ${error.message}`);
    io.err("Run 'nodeagent --help' for usage.");
    return EXIT_FAILED;
  }
}

/**
 * nodeagent. The options, config files and host checks are complete; registering the node and
 * running pods (the rest of issue #12) are not built yet, so after the checks it says so and
 * exits 1 rather than pretend to run.
 */
export async function main(argv: readonly string[], io: CommandIO = processIO): Promise<number> {
  const startup = prepareNodeAgent(argv, io);
  if (typeof startup === 'number') return startup;
  io.err('nodeagent: the options are valid, but running pods is not built yet (issue #12: node registration, pod workers)');
  return EXIT_FAILED;
}
