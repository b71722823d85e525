import { SVC_VERSION } from '../api/index.js';
import { readCredentialProviderConfig, readRegistryConfig, type CredentialProvider, type RegistryConfig } from '../nodeagent/index.js';
import { closeOnSignal, EXIT_FAILED, EXIT_OK, processIO, type CommandIO } from './command.js';
import { renderHelp } from './flag-docs.js';
import { FlagError } from './flags.js';
import { resolveNodeAgentOptions, type ResolvedOptions } from './nodeagent-config.js';
import { nodeAgentDoc, nodeAgentFlags } from './nodeagent-flags.js';
import { startNodeAgent, type NodeAgentStartup, type RunningNodeAgent } from './nodeagent-run.js';

export type { NodeAgentStartup } from './nodeagent-run.js';
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

/** Reads `--registry-config`; a problem is an option error (exit 1). */
function readRegistries(path: string | undefined): RegistryConfig | undefined {
  if (path === undefined || path === '') return undefined;
  try {
    return readRegistryConfig(path);
  } catch (error) {
    throw new FlagError((error as Error).message);
  }
}

/** Reads `--image-credential-provider-config` against `--image-credential-provider-bin-dir`; a problem is an option error. */
function readCredentialProviders(config: string | undefined, binDir: string | undefined): CredentialProvider[] | undefined {
  if (config === undefined || config === '') return undefined;
  if (binDir === undefined || binDir === '') throw new FlagError('--image-credential-provider-config: needs --image-credential-provider-bin-dir, the directory of the plugins it names', '--image-credential-provider-bin-dir');
  try {
    return readCredentialProviderConfig(config, binDir);
  } catch (error) {
    throw new FlagError((error as Error).message, '--image-credential-provider-config');
  }
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
    const registries = readRegistries(options.values.registryConfig);
    const credentialProviders = readCredentialProviders(options.values.imageCredentialProviderConfig, options.values.imageCredentialProviderBinDir);
    return {
      options,
      version: version && 'report' in version ? version.report : SVC_VERSION,
      ...(registries ? { registries } : {}),
      ...(credentialProviders ? { credentialProviders } : {}),
    };
  } catch (error) {
    if (!(error instanceof FlagError)) throw error;
    // The spec's daemons end with status 1 on a bad option, a bad config file or a failed host check.
    io.err(`nodeagent: ${error.message}`);
    io.err("Run 'nodeagent --help' for usage.");
    return EXIT_FAILED;
  }
}

/** How long `--runonce` waits for its static pods to start before it gives up on them. */
const RUNONCE_TIMEOUT_MS = 5 * 60_000;

/**
 * `--runonce`: the static pods are started once, then the agent exits (their containers keep
 * running, as the kubelet's run-once mode leaves them). Exit 0 when every pod started, 1 when one
 * failed or did not start in time.
 */
async function runOnce(agent: RunningNodeAgent, io: CommandIO): Promise<number> {
  const deadline = Date.now() + RUNONCE_TIMEOUT_MS;
  const settled = (phase: string | undefined) => phase === 'Running' || phase === 'Succeeded' || phase === 'Failed';
  for (;;) {
    const pods = agent.pods();
    if (pods.length > 0 && pods.every((pod) => settled(pod.status?.phase))) break;
    if (Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  let failed = 0;
  for (const pod of agent.pods()) {
    const phase = pod.status?.phase ?? 'Pending';
    if (phase !== 'Running' && phase !== 'Succeeded') failed++;
    io.out(`${pod.metadata.namespace}/${pod.metadata.name}: ${phase}`);
  }
  await agent.close();
  return failed === 0 ? EXIT_OK : EXIT_FAILED;
}

/** nodeagent: runs until SIGINT or SIGTERM (or, with `--runonce`, until its static pods started). */
export async function main(argv: readonly string[], io: CommandIO = processIO): Promise<number> {
  const startup = prepareNodeAgent(argv, io);
  if (typeof startup === 'number') return startup;
  let agent: RunningNodeAgent;
  try {
    agent = await startNodeAgent(startup, io);
  } catch (error) {
    io.err(`nodeagent: ${(error as Error).message}`);
    return EXIT_FAILED;
  }
  if (startup.options.values.runonce) return runOnce(agent, io);
  io.err(`nodeagent: node ${agent.nodeName} running${startup.options.values.svcconfig ? '' : ' standalone (static pods only)'}`);
  // Stopping leaves the containers running: a restarted agent adopts them.
  return closeOnSignal(() => agent.close(), io);
}
