import { canonicalControllerName, selectControllers, type ControllerName } from '../../controllers/index.js';
import { SVC_VERSION, quantityBytes } from '../api/index.js';
import { CONTROLLER_MANAGER_FEATURE_GATES, parseAllowMetricLabels, type ControllerManagerFlags } from './controller-manager-flags.js';
import { FlagError } from './flags.js';

/**
 * The checks of svc-controller-manager that involve more than one flag (each flag's own checks
 * ran while parsing), and the settings they resolve to. Throws `FlagError`.
 */

/** The node agent's status update frequency and HTTP/2 health-check timeouts the grace period must fit. */
export const NODE_STATUS_UPDATE_FREQUENCY_MS = 10_000;
export const NODE_AGENT_HTTP2_READ_IDLE_TIMEOUT_MS = 30_000;
export const NODE_AGENT_HTTP2_PING_TIMEOUT_MS = 15_000;

const SIGNERS = ['svc-apiserver-client', 'nodeagent-client', 'nodeagent-serving', 'legacy-unknown'] as const;

export type FeatureGateValues = Readonly<Record<keyof typeof CONTROLLER_MANAGER_FEATURE_GATES, boolean>>;

export interface ControllerManagerSettings {
  readonly flags: ControllerManagerFlags;
  readonly controllers: readonly ControllerName[];
  readonly featureGates: FeatureGateValues;
  readonly allowMetricLabels: ReadonlyMap<string, readonly string[]>;
  /** The version the manager reports (`--version=vX.Y.Z`), else svc's. */
  readonly reportedVersion: string;
  /** What `--version` asks to print before exiting, if anything. */
  readonly printVersion: 'short' | 'raw' | undefined;
}

function resolveGates(flags: ControllerManagerFlags): FeatureGateValues {
  const gates: Record<string, boolean> = { ...CONTROLLER_MANAGER_FEATURE_GATES };
  for (const [key, values] of Object.entries(flags.featureGates)) gates[key.slice(key.indexOf(':') + 1)] = values.at(-1) === 'true';
  return gates as FeatureGateValues;
}

const given = (value: string | undefined): value is string => value !== undefined && value !== '';

function checkSigning(flags: ControllerManagerFlags): void {
  const generic = [flags.clusterSigningCertFile, flags.clusterSigningKeyFile];
  const specific: Record<(typeof SIGNERS)[number], [string | undefined, string | undefined]> = {
    'svc-apiserver-client': [flags.clusterSigningSvcApiserverClientCertFile, flags.clusterSigningSvcApiserverClientKeyFile],
    'nodeagent-client': [flags.clusterSigningNodeagentClientCertFile, flags.clusterSigningNodeagentClientKeyFile],
    'nodeagent-serving': [flags.clusterSigningNodeagentServingCertFile, flags.clusterSigningNodeagentServingKeyFile],
    'legacy-unknown': [flags.clusterSigningLegacyUnknownCertFile, flags.clusterSigningLegacyUnknownKeyFile],
  };
  if (given(generic[0]) !== given(generic[1])) {
    throw new FlagError('--cluster-signing-cert-file and --cluster-signing-key-file must be given together', '--cluster-signing-cert-file');
  }
  for (const signer of SIGNERS) {
    const [cert, key] = specific[signer];
    const flag = `--cluster-signing-${signer}`;
    if (given(cert) !== given(key)) throw new FlagError(`${flag}-cert-file and ${flag}-key-file must be given together`, `${flag}-cert-file`);
    if (given(cert) && given(generic[0])) {
      throw new FlagError(`${flag}-cert-file/-key-file cannot be given with --cluster-signing-cert-file/--cluster-signing-key-file`, `${flag}-cert-file`);
    }
  }
}

function checkNodeMonitor(graceMs: number): void {
  const http2 = NODE_AGENT_HTTP2_READ_IDLE_TIMEOUT_MS + NODE_AGENT_HTTP2_PING_TIMEOUT_MS;
  if (graceMs % NODE_STATUS_UPDATE_FREQUENCY_MS !== 0 || graceMs === 0) {
    throw new FlagError(
      `--node-monitor-grace-period must be a multiple of the node agent's status update frequency (${NODE_STATUS_UPDATE_FREQUENCY_MS / 1000}s)`,
      '--node-monitor-grace-period',
    );
  }
  if (graceMs <= http2) {
    throw new FlagError(
      `--node-monitor-grace-period must be greater than the node agent's HTTP/2 ping timeout plus read-idle timeout (${http2 / 1000}s)`,
      '--node-monitor-grace-period',
    );
  }
}

const minor = (v: string) => v.split('.').map(Number) as [number, number];
const bareVersions = (items: readonly string[]) => items.filter((i) => !i.includes('=') || i.startsWith('svc='));

export function controllerManagerSettings(flags: ControllerManagerFlags): ControllerManagerSettings {
  const version = flags.version;
  const printVersion = version === 'true' ? 'short' : version === 'raw' ? 'raw' : undefined;
  const reportedVersion = version !== undefined && version.startsWith('v') ? version : `v${SVC_VERSION}`;
  // Printing the version needs nothing else: checks across flags are for running.
  if (printVersion) return { flags, controllers: [], featureGates: resolveGates(flags), allowMetricLabels: new Map(), reportedVersion, printVersion };
  if (flags.allocateNodeCidrs && !given(flags.clusterCidr)) throw new FlagError('--allocate-node-cidrs requires --cluster-cidr', '--allocate-node-cidrs');
  checkNodeMonitor(flags.nodeMonitorGracePeriod);
  checkSigning(flags);
  if (flags.leaderElect) {
    if (!(flags.leaderElectRenewDeadline < flags.leaderElectLeaseDuration)) {
      throw new FlagError('--leader-elect-renew-deadline must be less than --leader-elect-lease-duration', '--leader-elect-renew-deadline');
    }
    if (!(flags.leaderElectRetryPeriod < flags.leaderElectRenewDeadline)) {
      throw new FlagError('--leader-elect-retry-period must be less than --leader-elect-renew-deadline', '--leader-elect-retry-period');
    }
  }
  if (given(flags.leaderMigrationConfig) && !flags.enableLeaderMigration) {
    throw new FlagError('--leader-migration-config is set without --enable-leader-migration', '--leader-migration-config');
  }
  const gates = resolveGates(flags);
  if (!gates.LoggingAlphaOptions) {
    if (given(flags.logTextInfoBufferSize) && quantityBytes(flags.logTextInfoBufferSize) !== 0) {
      throw new FlagError('--log-text-info-buffer-size needs the LoggingAlphaOptions feature gate', '--log-text-info-buffer-size');
    }
    if (flags.logTextSplitStream) throw new FlagError('--log-text-split-stream needs the LoggingAlphaOptions feature gate', '--log-text-split-stream');
  }
  if (flags.requestheaderUidHeaders.length > 0 && !gates.RemoteRequestHeaderUID) {
    throw new FlagError('--requestheader-uid-headers needs the RemoteRequestHeaderUID feature gate', '--requestheader-uid-headers');
  }
  if (given(flags.tlsCertFile) !== given(flags.tlsPrivateKeyFile)) {
    const missing = given(flags.tlsCertFile) ? '--tls-private-key-file' : '--tls-cert-file';
    throw new FlagError(`${missing} is required when the other of --tls-cert-file/--tls-private-key-file is given`, missing);
  }
  if (!given(flags.svcconfig) && !given(flags.master)) {
    throw new FlagError('no API server: give --svcconfig (and/or --master)', '--svcconfig');
  }
  const [major, min] = minor(SVC_VERSION);
  if (given(flags.showHiddenMetricsForVersion)) {
    const previous = `${major}.${min - 1}`;
    if (flags.showHiddenMetricsForVersion !== previous) {
      throw new FlagError(`--show-hidden-metrics-for-version must be the previous minor version, ${previous}`, '--show-hidden-metrics-for-version');
    }
  }
  const emulated = bareVersions(flags.emulatedVersion).map((v) => minor(v.replace(/^svc=/, ''))).at(-1);
  const compat = bareVersions(flags.minCompatibilityVersion).map((v) => minor(v.replace(/^svc=/, ''))).at(-1);
  if (emulated && (emulated[0] > major || (emulated[0] === major && emulated[1] > min))) {
    throw new FlagError(`--emulated-version cannot be newer than this binary (${major}.${min})`, '--emulated-version');
  }
  if (emulated && compat && (compat[0] > emulated[0] || (compat[0] === emulated[0] && compat[1] > emulated[1]))) {
    throw new FlagError('--min-compatibility-version cannot be newer than --emulated-version', '--min-compatibility-version');
  }
  // With controller modules their names are known only once they are loaded (when the manager starts).
  const modules = flags.controllerModule.length > 0 || given(flags.config);
  if (!modules) {
    for (const name of flags.controllers) {
      if (name !== '*' && canonicalControllerName(name.replace(/^-/, '')) === undefined) throw new FlagError(`unknown controller ${JSON.stringify(name)}`, '--controllers');
    }
  }
  const allow = parseAllowMetricLabels(flags.allowMetricLabels);
  return {
    flags,
    controllers: selectControllers(modules ? flags.controllers.filter((item) => item === '*' || canonicalControllerName(item.replace(/^-/, '')) !== undefined) : flags.controllers),
    featureGates: gates,
    allowMetricLabels: typeof allow === 'string' ? new Map() : allow,
    reportedVersion,
    printVersion: undefined,
  };
}
