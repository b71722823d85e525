import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSecureContext, type SecureContext } from 'node:tls';
import { X509Certificate } from 'node:crypto';
import { parse as parseYaml } from 'yaml';
import {
  AccessReviewer,
  builtinLoops,
  clusterCidrSets,
  invalidControllerSelection,
  loadControllerModules,
  parseCertificates,
  selectControllers,
  RequestAuth,
  startControllerManager,
  TokenReviewer,
  type ControllerManagerOptions,
  type LoopFactory,
  type ManagerLog,
  type RunningControllerManager,
  type ServingTls,
} from '../../controllers/index.js';
import { podSchema, SVC_VERSION, type Pod } from '../api/index.js';
import { signingKeyFromPem } from '../apiserver/index.js';
import {
  APISERVER_CLIENT_SIGNER,
  ensurePki,
  LEGACY_UNKNOWN_SIGNER,
  loadServingCertificate,
  loadSigningCa,
  NODE_CLIENT_SIGNER,
  NODE_SERVING_SIGNER,
  servingNames,
  type SignerName,
  type SigningCa,
} from '../pki/index.js';
import { Client, loadSvcconfig, type ConnectionOptions } from '../client/index.js';
import { closeOnSignal, EXIT_FAILED, EXIT_OK, isExit, processIO, readCommandLine, type CommandIO } from './command.js';
import { controllerManagerSettings, type ControllerManagerSettings } from './controller-manager-config.js';
import { readControllerManagerConfigFile, type ModuleSpec } from './controller-manager-config-file.js';
import { controllerManagerDoc, controllerManagerFlags, TLS_CIPHER_SUITES, type ControllerManagerFlags } from './controller-manager-flags.js';
import { textLog } from './controller-manager-log.js';
import { FlagError, parseFlags } from './flags.js';

/**
 * svc-controller-manager: flags → settings → files read (svcconfig, certificates, CAs) →
 * `startControllerManager`, then serve until SIGINT/SIGTERM, which drains the loops (bounded by
 * --controller-shutdown-timeout) and releases the Lease before exiting.
 */

/** `--version` alone means `--version=true` (a string flag would otherwise take the next argument). */
export function normalizeArgv(argv: readonly string[]): string[] {
  return argv.map((arg) => (arg === '--version' ? '--version=true' : arg));
}

/** Parses a command line into settings; throws `FlagError`. For tests and embedders. */
export function parseControllerManagerArgs(argv: readonly string[]): ControllerManagerSettings {
  const parsed = parseFlags(controllerManagerFlags, normalizeArgv(argv));
  if (parsed.help) throw new FlagError('--help is not a manager option');
  if (parsed.args.length > 0) throw new FlagError(`unexpected argument ${JSON.stringify(parsed.args[0])}`);
  return controllerManagerSettings(parsed.values);
}

export function versionText(settings: ControllerManagerSettings): string {
  if (settings.printVersion === 'raw') {
    const [major = '0', minor = '0'] = settings.reportedVersion.replace(/^v/, '').split('.');
    return JSON.stringify(
      { major, minor, gitVersion: settings.reportedVersion, svcVersion: SVC_VERSION, nodeVersion: process.version, platform: `${process.platform}/${process.arch}` },
      null,
      2,
    );
  }
  return `svc-controller-manager ${settings.reportedVersion}`;
}

const TLS_VERSIONS = { VersionTLS10: 'TLSv1', VersionTLS11: 'TLSv1.1', VersionTLS12: 'TLSv1.2', VersionTLS13: 'TLSv1.3' } as const;

async function readText(path: string, flag: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new Error(`${flag}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
}

/** `--tls-sni-cert-key` entries as a lookup by server name: exact names first, then wildcards. */
async function sniCallback(entries: readonly string[], base: { ciphers?: string; minVersion?: string }): Promise<ServingTls['SNICallback']> {
  const exact = new Map<string, SecureContext>();
  const wildcard = new Map<string, SecureContext>();
  // Explicit patterns beat names taken from certificates: those are added only where free.
  const layers: Array<{ names: string[]; context: SecureContext; explicit: boolean }> = [];
  for (const entry of entries) {
    const colon = entry.indexOf(':');
    const [certFile, keyFile] = (colon < 0 ? entry : entry.slice(0, colon)).split(',') as [string, string];
    const cert = await readText(certFile, '--tls-sni-cert-key');
    const key = await readText(keyFile, '--tls-sni-cert-key');
    const context = createSecureContext({ cert, key, ...(base.ciphers ? { ciphers: base.ciphers } : {}), ...(base.minVersion ? { minVersion: base.minVersion as 'TLSv1.2' } : {}) });
    let names: string[];
    const explicit = colon >= 0;
    if (explicit) names = entry.slice(colon + 1).split(',').map((n) => n.trim().toLowerCase()).filter((n) => n !== '');
    else {
      const leaf = new X509Certificate(cert);
      const sans = (leaf.subjectAltName ?? '').split(', ').filter((s) => s.startsWith('DNS:')).map((s) => s.slice(4).toLowerCase());
      const cn = /(?:^|\n)CN=([^\n]+)/.exec(leaf.subject)?.[1];
      names = sans.length > 0 ? sans : cn ? [cn.toLowerCase()] : [];
    }
    layers.push({ names, context, explicit });
  }
  for (const explicitFirst of [true, false]) {
    for (const layer of layers.filter((l) => l.explicit === explicitFirst)) {
      for (const name of layer.names) {
        const map = name.startsWith('*.') ? wildcard : exact;
        const key = name.startsWith('*.') ? name.slice(2) : name;
        if (!map.has(key)) map.set(key, layer.context);
      }
    }
  }
  return (servername, cb) => {
    const name = servername.toLowerCase();
    const context = exact.get(name) ?? wildcard.get(name.slice(name.indexOf('.') + 1));
    cb(null, context);
  };
}

async function servingTls(flags: ControllerManagerSettings['flags']): Promise<ServingTls> {
  let cert: string;
  let key: string;
  if (flags.tlsCertFile && flags.tlsPrivateKeyFile) {
    ({ cert, key } = await loadServingCertificate(flags.tlsCertFile, flags.tlsPrivateKeyFile));
  } else {
    const names = servingNames(flags.bindAddress === '' ? '0.0.0.0' : flags.bindAddress);
    if (flags.certDir) ({ cert, key } = await ensurePki(flags.certDir, names));
    else {
      // No --cert-dir: the pair lives in memory only (generated in a private temporary folder, then deleted).
      const dir = await mkdtemp(join(tmpdir(), 'svc-cm-pki-'));
      try {
        ({ cert, key } = await ensurePki(dir, names));
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
  }
  const ca: string[] = [];
  for (const [file, flag] of [
    [flags.clientCaFile, '--client-ca-file'],
    [flags.requestheaderClientCaFile, '--requestheader-client-ca-file'],
  ] as const) {
    if (file) ca.push(await readText(file, flag));
  }
  const ciphers = flags.tlsCipherSuites.map((name) => TLS_CIPHER_SUITES[name]).filter((c): c is string => c !== undefined && c !== '');
  const minVersion = flags.tlsMinVersion ? TLS_VERSIONS[flags.tlsMinVersion as keyof typeof TLS_VERSIONS] : undefined;
  const base = { ...(ciphers.length > 0 ? { ciphers: ciphers.join(':') } : {}), ...(minVersion ? { minVersion } : {}) };
  const sni = flags.tlsSniCertKey.length > 0 ? await sniCallback(flags.tlsSniCertKey, base) : undefined;
  return { cert, key, ...(ca.length > 0 ? { ca } : {}), ...base, ...(sni ? { SNICallback: sni } : {}) } as ServingTls;
}

async function requestAuth(flags: ControllerManagerSettings['flags']): Promise<RequestAuth> {
  const certs = async (file: string | undefined, flag: string) => (file ? parseCertificates(await readText(file, flag), flag) : undefined);
  const clientCAs = await certs(flags.clientCaFile, '--client-ca-file');
  const requestHeaderCAs = await certs(flags.requestheaderClientCaFile, '--requestheader-client-ca-file');
  const tokens = flags.authenticationSvcconfig
    ? new TokenReviewer(await Client.fromSvcconfig(flags.authenticationSvcconfig, { userAgent: 'svc-controller-manager/authentication' }), flags.authenticationTokenWebhookCacheTtl)
    : undefined;
  const access = flags.authorizationSvcconfig
    ? new AccessReviewer(
        await Client.fromSvcconfig(flags.authorizationSvcconfig, { userAgent: 'svc-controller-manager/authorization' }),
        flags.authorizationWebhookCacheAuthorizedTtl,
        flags.authorizationWebhookCacheUnauthorizedTtl,
      )
    : undefined;
  return new RequestAuth({
    ...(clientCAs ? { clientCAs } : {}),
    ...(requestHeaderCAs
      ? {
          requestHeader: {
            cas: requestHeaderCAs,
            allowedNames: flags.requestheaderAllowedNames,
            usernameHeaders: flags.requestheaderUsernameHeaders,
            groupHeaders: flags.requestheaderGroupHeaders,
            extraHeaderPrefixes: flags.requestheaderExtraHeadersPrefix,
            uidHeaders: flags.requestheaderUidHeaders,
          },
        }
      : {}),
    ...(tokens ? { tokens } : {}),
    ...(access ? { access } : {}),
    alwaysAllowPaths: flags.authorizationAlwaysAllowPaths,
  });
}

async function allowLabels(settings: ControllerManagerSettings): Promise<Map<string, readonly string[]>> {
  const merged = new Map<string, readonly string[]>();
  const manifest = settings.flags.allowMetricLabelsManifest;
  if (manifest) {
    const doc: unknown = parseYaml(await readText(manifest, '--allow-metric-labels-manifest'));
    if (typeof doc !== 'object' || doc === null) throw new Error('--allow-metric-labels-manifest: not a map of "<metric>,<label>" to values');
    for (const [key, value] of Object.entries(doc)) {
      if (typeof value !== 'string' || !/^[^,]+,[^,]+$/.test(key)) throw new Error(`--allow-metric-labels-manifest: entry ${JSON.stringify(key)} is not "<metric>,<label>": "<v1>,<v2>"`);
      merged.set(key, value.split(',').map((v) => v.trim()).filter((v) => v !== ''));
    }
  }
  for (const [key, values] of settings.allowMetricLabels) merged.set(key, values);
  return merged;
}

async function connection(flags: ControllerManagerSettings['flags']): Promise<ConnectionOptions> {
  if (!flags.svcconfig) return { server: flags.master! };
  const target = await loadSvcconfig(flags.svcconfig);
  return {
    server: flags.master || target.server,
    // --master names one server: the config's further servers are not its.
    ...(flags.master ? {} : { servers: target.servers }),
    token: target.token,
    caData: target.caData,
    clientCertificate: target.clientCertificate,
    clientKey: target.clientKey,
    insecureSkipTlsVerify: target.insecureSkipTlsVerify,
  };
}

/**
 * The loops of `--config`'s controllerModules and of `--controller-module`s, with the built-in
 * ones, and the controllers `--controllers` selects among all of them. Throws `Error` (a module
 * that does not load, a name clash, a `--controllers` name no one gives).
 */
async function controllerSelection(settings: ControllerManagerSettings): Promise<Pick<ControllerManagerOptions, 'controllers' | 'loops'>> {
  const f = settings.flags;
  const specs: ModuleSpec[] = [...(f.config ? (await readControllerManagerConfigFile(f.config)).controllerModules : []), ...f.controllerModule.map((spec) => ({ spec, base: process.cwd() }))];
  if (specs.length === 0) return { controllers: settings.controllers };
  const modules = await loadControllerModules(specs);
  const names = [...modules.keys()];
  const problem = invalidControllerSelection(f.controllers, names);
  if (problem) throw new Error(`--controllers: ${problem}`);
  const loops = new Map<string, LoopFactory>(builtinLoops());
  for (const [name, loop] of modules) loops.set(name, () => loop);
  return { controllers: selectControllers(f.controllers, names), loops };
}

/** A recycler pod template file: a Pod in YAML or JSON, checked against the Pod schema now (a bad file fails the start). */
async function recyclerTemplate(path: string, flag: string): Promise<Pod> {
  const parsed = podSchema.safeParse(parseYaml(await readText(path, flag)));
  if (!parsed.success) throw new Error(`${flag}: ${path} is not a Pod: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
  return parsed.data;
}

/**
 * The CA of each built-in signer: the generic `--cluster-signing-cert-file`/`-key-file` pair signs
 * for all four, else each signer's own pair (which may not be combined with the generic one:
 * controller-manager-config.ts). Read and checked now: a bad file fails the start, not the loop.
 */
async function clusterSigningCas(f: ControllerManagerFlags): Promise<Map<SignerName, SigningCa>> {
  const pairs: [SignerName, string | undefined, string | undefined, string][] = [
    [APISERVER_CLIENT_SIGNER, f.clusterSigningSvcApiserverClientCertFile, f.clusterSigningSvcApiserverClientKeyFile, '--cluster-signing-svc-apiserver-client'],
    [NODE_CLIENT_SIGNER, f.clusterSigningNodeagentClientCertFile, f.clusterSigningNodeagentClientKeyFile, '--cluster-signing-nodeagent-client'],
    [NODE_SERVING_SIGNER, f.clusterSigningNodeagentServingCertFile, f.clusterSigningNodeagentServingKeyFile, '--cluster-signing-nodeagent-serving'],
    [LEGACY_UNKNOWN_SIGNER, f.clusterSigningLegacyUnknownCertFile, f.clusterSigningLegacyUnknownKeyFile, '--cluster-signing-legacy-unknown'],
  ];
  const cas = new Map<SignerName, SigningCa>();
  if (f.clusterSigningCertFile && f.clusterSigningKeyFile) {
    const ca = await loadSigningCa(
      await readText(f.clusterSigningCertFile, '--cluster-signing-cert-file'),
      await readText(f.clusterSigningKeyFile, '--cluster-signing-key-file'),
      `--cluster-signing-cert-file ${f.clusterSigningCertFile} / --cluster-signing-key-file ${f.clusterSigningKeyFile}`,
    );
    for (const [signer] of pairs) cas.set(signer, ca);
    return cas;
  }
  for (const [signer, certFile, keyFile, flag] of pairs) {
    if (!certFile || !keyFile) continue;
    const what = `${flag}-cert-file ${certFile} / ${flag}-key-file ${keyFile}`;
    cas.set(signer, await loadSigningCa(await readText(certFile, `${flag}-cert-file`), await readText(keyFile, `${flag}-key-file`), what));
  }
  return cas;
}

/** The manager's options from its settings, with every file read and every controller module loaded. Throws `Error` on unusable files or modules. */
export async function controllerManagerOptions(settings: ControllerManagerSettings, log: ManagerLog): Promise<ControllerManagerOptions> {
  const f = settings.flags;
  const target = await connection(f);
  const selection = await controllerSelection(settings);
  // The root CA publisher publishes --root-ca-file, else the CA the manager itself trusts the API server with.
  const caData = target.caData;
  const rootCa = f.rootCaFile !== undefined ? await readText(f.rootCaFile, '--root-ca-file') : caData === undefined ? undefined : Buffer.from(caData).toString('utf8');
  // Read and checked now: a key that is not one fails the start, not the loop.
  const serviceAccountPrivateKey = f.serviceAccountPrivateKeyFile !== undefined ? await readText(f.serviceAccountPrivateKeyFile, '--service-account-private-key-file') : undefined;
  if (serviceAccountPrivateKey !== undefined) signingKeyFromPem(serviceAccountPrivateKey, `--service-account-private-key-file ${f.serviceAccountPrivateKeyFile}`);
  // Bad pod ranges fail the start with the option at fault, before anything is allocated.
  if (f.allocateNodeCidrs) {
    clusterCidrSets({ allocatorType: f.cidrAllocatorType, clusterCidr: f.clusterCidr ?? '', serviceCidr: f.serviceClusterIpRange, maskSize: f.nodeCidrMaskSize, maskSizeIpv4: f.nodeCidrMaskSizeIpv4, maskSizeIpv6: f.nodeCidrMaskSizeIpv6 });
  }
  const clusterSigning = await clusterSigningCas(f);
  return {
    connection: target,
    contentType: f.svcApiContentType,
    qps: f.svcApiQps,
    burst: f.svcApiBurst,
    connections: f.svcApiConnections,
    ...selection,
    loopSettings: {
      concurrentNamespaceSyncs: f.concurrentNamespaceSyncs,
      namespaceSyncPeriodMs: f.namespaceSyncPeriod,
      concurrentGcSyncs: f.concurrentGcSyncs,
      minResyncPeriodMs: f.minResyncPeriod,
      rootCa,
      concurrentJobSyncs: f.concurrentJobSyncs,
      concurrentCronJobSyncs: f.concurrentCronJobSyncs,
      concurrentTtlAfterFinishedSyncs: f.concurrentTtlAfterFinishedSyncs,
      terminatedPodGcThreshold: f.terminatedPodGcThreshold,
      concurrentReplicasetSyncs: f.concurrentReplicasetSyncs,
      concurrentRcSyncs: f.concurrentRcSyncs,
      concurrentDeploymentSyncs: f.concurrentDeploymentSyncs,
      // Node-bound and stateful workloads (wl-nodes).
      concurrentDaemonsetSyncs: f.concurrentDaemonsetSyncs,
      concurrentStatefulsetSyncs: f.concurrentStatefulsetSyncs,
      // Service accounts and their tokens (sa-loops).
      serviceAccountPrivateKey,
      concurrentServiceaccountTokenSyncs: f.concurrentServiceaccountTokenSyncs,
      legacyServiceAccountTokenCleanUpPeriodMs: f.legacyServiceAccountTokenCleanUpPeriod,
      // Certificates (csr).
      clusterSigning,
      clusterSigningDurationMs: f.clusterSigningDuration,
      // Service endpoints (net-loops).
      concurrentEndpointSyncs: f.concurrentEndpointSyncs,
      endpointUpdatesBatchPeriodMs: f.endpointUpdatesBatchPeriod,
      concurrentServiceEndpointSyncs: f.concurrentServiceEndpointSyncs,
      maxEndpointsPerSlice: f.maxEndpointsPerSlice,
      endpointSliceUpdatesBatchPeriodMs: f.endpointsliceUpdatesBatchPeriod,
      mirroringConcurrentServiceEndpointSyncs: f.mirroringConcurrentServiceEndpointSyncs,
      mirroringMaxEndpointsPerSubset: f.mirroringMaxEndpointsPerSubset,
      mirroringEndpointSliceUpdatesBatchPeriodMs: f.mirroringEndpointsliceUpdatesBatchPeriod,
      concurrentServiceSyncs: f.concurrentServiceSyncs,
      cloudProvider: f.cloudProvider,
      // The horizontal pod autoscaler (autoscale).
      concurrentHorizontalPodAutoscalerSyncs: f.concurrentHorizontalPodAutoscalerSyncs,
      horizontalPodAutoscalerSyncPeriodMs: f.horizontalPodAutoscalerSyncPeriod,
      horizontalPodAutoscalerTolerance: f.horizontalPodAutoscalerTolerance,
      horizontalPodAutoscalerDownscaleStabilizationMs: f.horizontalPodAutoscalerDownscaleStabilization,
      horizontalPodAutoscalerCpuInitializationPeriodMs: f.horizontalPodAutoscalerCpuInitializationPeriod,
      horizontalPodAutoscalerInitialReadinessDelayMs: f.horizontalPodAutoscalerInitialReadinessDelay,
      draDeviceTaints: settings.featureGates['DRADeviceTaints'] === true,
      // Nodes (node-loops).
      nodeMonitorPeriodMs: f.nodeMonitorPeriod,
      nodeMonitorGracePeriodMs: f.nodeMonitorGracePeriod,
      nodeStartupGracePeriodMs: f.nodeStartupGracePeriod,
      nodeEvictionRate: f.nodeEvictionRate,
      secondaryNodeEvictionRate: f.secondaryNodeEvictionRate,
      largeClusterSizeThreshold: f.largeClusterSizeThreshold,
      unhealthyZoneThreshold: f.unhealthyZoneThreshold,
      allocateNodeCidrs: f.allocateNodeCidrs,
      clusterCidr: f.clusterCidr,
      serviceClusterIpRange: f.serviceClusterIpRange,
      cidrAllocatorType: f.cidrAllocatorType,
      nodeCidrMaskSize: f.nodeCidrMaskSize,
      nodeCidrMaskSizeIpv4: f.nodeCidrMaskSizeIpv4,
      nodeCidrMaskSizeIpv6: f.nodeCidrMaskSizeIpv6,
      // Storage loops (storage-loops).
      pvClaimBinderSyncPeriodMs: f.pvclaimbinderSyncPeriod,
      enableDynamicProvisioning: f.enableDynamicProvisioning,
      enableHostPathProvisioner: f.enableHostpathProvisioner,
      hostPathProvisionerRoot: f.hostpathProvisionerRoot,
      recycler: {
        minimumTimeoutHostPath: f.pvRecyclerMinimumTimeoutHostpath,
        timeoutIncrementHostPath: f.pvRecyclerTimeoutIncrementHostpath,
        minimumTimeoutNfs: f.pvRecyclerMinimumTimeoutNfs,
        timeoutIncrementNfs: f.pvRecyclerIncrementTimeoutNfs,
        hostPathTemplate: f.pvRecyclerPodTemplateFilepathHostpath !== undefined ? await recyclerTemplate(f.pvRecyclerPodTemplateFilepathHostpath, '--pv-recycler-pod-template-filepath-hostpath') : undefined,
        nfsTemplate: f.pvRecyclerPodTemplateFilepathNfs !== undefined ? await recyclerTemplate(f.pvRecyclerPodTemplateFilepathNfs, '--pv-recycler-pod-template-filepath-nfs') : undefined,
      },
      concurrentEphemeralVolumeSyncs: f.concurrentEphemeralvolumeSyncs,
      attachDetachReconcileSyncPeriodMs: f.attachDetachReconcileSyncPeriod,
      disableAttachDetachReconcileSync: f.disableAttachDetachReconcileSync,
      // Admission policies (vap).
      concurrentValidatingAdmissionPolicyStatusSyncs: f.concurrentValidatingAdmissionPolicyStatusSyncs,
      // Policy loops (policy-loops).
      concurrentResourceQuotaSyncs: f.concurrentResourceQuotaSyncs,
      resourceQuotaSyncPeriodMs: f.resourceQuotaSyncPeriod,
    },
    enableGarbageCollector: f.enableGarbageCollector,
    drainTimeoutMs: f.controllerShutdownTimeout,
    startIntervalMs: f.controllerStartInterval ?? 0,
    ...(f.leaderElect
      ? {
          election: {
            lease: { namespace: f.leaderElectResourceNamespace, name: f.leaderElectResourceName },
            leaseDurationMs: f.leaderElectLeaseDuration,
            renewDeadlineMs: f.leaderElectRenewDeadline,
            retryPeriodMs: f.leaderElectRetryPeriod,
          },
        }
      : {}),
    ...(f.securePort !== 0
      ? {
          serving: {
            bindAddress: f.bindAddress,
            port: f.securePort,
            tls: await servingTls(f),
            http2: !f.disableHttp2Serving,
            ...(f.http2MaxStreamsPerConnection ? { maxStreamsPerConnection: f.http2MaxStreamsPerConnection } : {}),
            ...(f.permitPortSharing ? { reusePort: true } : {}),
            profiling: f.profiling,
            auth: await requestAuth(f),
          },
        }
      : {}),
    metrics: { disabled: new Set(f.disabledMetrics), allowLabels: await allowLabels(settings), ...(f.latencyAnnotation ? { latencyAnnotation: f.latencyAnnotation } : {}) },
    userAgent: `svc-controller-manager/${settings.reportedVersion}`,
    log,
  };
}

/**
 * Starts the manager from a command line (tests, `svc up`). Throws `FlagError` or `Error`.
 * `freeSecurePort`: serve on a port the system picks (the flag cannot say it: 0 turns serving
 * off), as `svc up` does so that its dashboard can reach the manager's live view.
 */
export async function startControllerManagerFromArgs(argv: readonly string[], log: ManagerLog, extra: { readonly freeSecurePort?: boolean } = {}): Promise<RunningControllerManager> {
  const settings = parseControllerManagerArgs(argv);
  const options = await controllerManagerOptions(extra.freeSecurePort ? { ...settings, flags: { ...settings.flags, securePort: 1 } } : settings, log);
  return startControllerManager(extra.freeSecurePort && options.serving ? { ...options, serving: { ...options.serving, port: 0 } } : options);
}

/** svc-controller-manager: runs until SIGINT/SIGTERM. Returns the exit code. */
export async function main(argv: readonly string[], io: CommandIO = processIO): Promise<number> {
  const settings = readCommandLine(controllerManagerDoc, controllerManagerFlags, normalizeArgv(argv), io, controllerManagerSettings);
  // Usage errors exit 1 as kube-controller-manager's do; help exits 0.
  if (isExit(settings)) return settings.exitCode === EXIT_OK ? EXIT_OK : EXIT_FAILED;
  if (settings.printVersion) {
    io.out(versionText(settings));
    return EXIT_OK;
  }
  const log = textLog(io, { verbosity: settings.flags.v, splitStream: settings.flags.logTextSplitStream });
  let manager: RunningControllerManager;
  try {
    manager = await startControllerManager(await controllerManagerOptions(settings, log));
  } catch (error) {
    io.err(`${controllerManagerDoc.name}: ${(error as Error).message}`);
    return EXIT_FAILED;
  }
  log.info(`svc-controller-manager ${settings.reportedVersion} running ${manager.running.join(', ') || 'no controllers'}`);
  if (manager.serving) io.out(`svc-controller-manager serving on ${manager.serving.url}`);
  // The drain has its own bound; the grace covers it plus the Lease release and closing the port.
  return closeOnSignal(manager.close, io, settings.flags.controllerShutdownTimeout + 10_000);
}
