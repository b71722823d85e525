import { isIP } from 'node:net';
import { CONTROLLER_NAMES, DISABLED_BY_DEFAULT, invalidControllerItems } from '../../controllers/index.js';
import { quantityBytes } from '../api/index.js';
import type { CommandDoc } from './flag-docs.js';
import { flag, type FlagValues } from './flag-spec.js';
import { defineFlags } from './flags.js';

/**
 * svc-controller-manager's options, in the spec's order and sections: the one table its parser,
 * `--help` and docs/flags/svc-controller-manager.md use. Each row's own checks are here; checks
 * that involve two flags are in controller-manager-config.ts. Options of controllers not built
 * yet are accepted, checked and documented (their meaning says so), so that a command line
 * written for the full set keeps working as loops arrive.
 */

const SEC = 1000;
const MIN = 60 * SEC;
const HOUR = 60 * MIN;

const NOT_BUILT = '(Its controller is not built yet: accepted and checked only.)';

const nonNegative = (n: number) => (n >= 0 ? undefined : 'must not be negative');
const positive = (n: number) => (n > 0 ? undefined : 'must be positive');
const port = (n: number) => (n >= 0 && n <= 65535 ? undefined : 'must be between 0 and 65535');

/** `10.0.0.0/8` or `fd00::/48`; a comma-separated pair (one per family) for dual stack. */
export function invalidCidrs(text: string): string | undefined {
  if (text === '') return undefined;
  const parts = text.split(',');
  if (parts.length > 2) return 'at most two CIDRs (one IPv4, one IPv6)';
  const families = new Set<number>();
  for (const cidr of parts) {
    const [ip, bits, extra] = cidr.trim().split('/');
    const family = ip === undefined ? 0 : isIP(ip);
    const max = family === 4 ? 32 : 128;
    if (family === 0 || bits === undefined || extra !== undefined || !/^\d+$/.test(bits) || Number(bits) > max) return `${JSON.stringify(cidr)} is not a CIDR`;
    families.add(family);
  }
  return parts.length === 2 && families.size !== 2 ? 'a dual-stack pair needs one IPv4 and one IPv6 CIDR' : undefined;
}

/** `pattern=N,...` for --vmodule. */
const invalidVmodule = (text: string): string | undefined =>
  text === '' || text.split(',').every((item) => /^[^=\s]+=\d+$/.test(item)) ? undefined : 'must be pattern=N pairs, comma-separated';

const VERSION = /^v\d+\.\d+\.\d+([-+][0-9A-Za-z.+-]*)?$/;
const MINOR = /^\d+\.\d+$/;

/** `1.31` or `component=1.31` items of --emulated-version / --min-compatibility-version. */
const invalidComponentVersions = (items: readonly string[]): string | undefined => {
  const bad = items.find((item) => !MINOR.test(item.includes('=') ? item.slice(item.indexOf('=') + 1) : item));
  return bad === undefined ? undefined : `${JSON.stringify(bad)} is not <major>.<minor> or <component>=<major>.<minor>`;
};

/** The Go names of the TLS cipher suites --tls-cipher-suites accepts, with the OpenSSL names Node uses. */
export const TLS_CIPHER_SUITES: Readonly<Record<string, string>> = {
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  // TLS 1.3 suites: always on in Node; accepted so a kube command line keeps working.
  TLS_AES_128_GCM_SHA256: '',
  TLS_AES_256_GCM_SHA384: '',
  TLS_CHACHA20_POLY1305_SHA256: '',
};

/** The feature gates of this daemon, with their defaults; `--feature-gates` accepts only these. */
export const CONTROLLER_MANAGER_FEATURE_GATES = {
  LoggingAlphaOptions: false,
  LoggingBetaOptions: true,
  RemoteRequestHeaderUID: false,
  // Dynamic resource allocation's device taints (alpha upstream, off): gates the device-taint-eviction loop.
  DRADeviceTaints: false,
} as const satisfies Record<string, boolean>;

/** `Name=bool` or `svc:Name=bool` items (a multimap keyed by `[component:]Name`). */
function invalidFeatureGates(gates: Readonly<Record<string, readonly string[]>>): string | undefined {
  for (const [key, values] of Object.entries(gates)) {
    const colon = key.indexOf(':');
    const component = colon < 0 ? 'svc' : key.slice(0, colon);
    const name = colon < 0 ? key : key.slice(colon + 1);
    if (component !== 'svc') return `unknown component ${JSON.stringify(component)} in ${JSON.stringify(key)} (only svc)`;
    if (!Object.hasOwn(CONTROLLER_MANAGER_FEATURE_GATES, name)) {
      return `unrecognized feature gate: ${name} (known: ${Object.keys(CONTROLLER_MANAGER_FEATURE_GATES).join(', ')})`;
    }
    const bad = values.find((v) => v !== 'true' && v !== 'false');
    if (bad !== undefined) return `value of ${name}: ${JSON.stringify(bad)} must be true or false`;
  }
  return undefined;
}

/** Entries of --allow-metric-labels: `<metric>,<label>=<values>`, the values quoted when they hold commas. */
const METRIC_LABEL_ENTRY = /\s*([A-Za-z_:][A-Za-z0-9_:]*),([A-Za-z_][A-Za-z0-9_]*)=(?:'([^']*)'|"([^"]*)"|([^,\s'"]*))\s*(?:,|$)/y;

/** Parses --allow-metric-labels items into `metric,label` → allowed values. */
export function parseAllowMetricLabels(items: readonly string[]): Map<string, string[]> | string {
  const out = new Map<string, string[]>();
  for (const item of items) {
    METRIC_LABEL_ENTRY.lastIndex = 0;
    while (METRIC_LABEL_ENTRY.lastIndex < item.length) {
      const start = METRIC_LABEL_ENTRY.lastIndex;
      const match = METRIC_LABEL_ENTRY.exec(item);
      if (!match || METRIC_LABEL_ENTRY.lastIndex === start) return `${JSON.stringify(item)} is not of the form <metric>,<label>='<value>,<value>'`;
      const values = (match[3] ?? match[4] ?? match[5] ?? '').split(',').map((v) => v.trim()).filter((v) => v !== '');
      out.set(`${match[1]},${match[2]}`, values);
    }
  }
  return out;
}

const concurrency = (what: string, dflt: number, built = false) =>
  flag.int32({
    default: dflt,
    meaning: `Number of ${what} allowed to sync concurrently. Larger values give faster response at more CPU and network cost.${built ? '' : ` ${NOT_BUILT}`}`,
    validate: positive,
  });

const period = <const D extends number>(dflt: D, meaning: string) => flag.duration({ default: dflt, meaning, validate: nonNegative });
const optionalPeriod = (meaning: string) => flag.duration({ meaning, validate: nonNegative });

const signingCert = (signer: string) =>
  flag.string({
    valueName: 'path',
    meaning: `PEM CA certificate of signer ${signer} (csrsigning). If set, --cluster-signing-cert-file and --cluster-signing-key-file must not be.`,
  });
const signingKey = (signer: string) =>
  flag.string({
    valueName: 'path',
    meaning: `PEM RSA or ECDSA private key of signer ${signer} (csrsigning). If set, --cluster-signing-cert-file and --cluster-signing-key-file must not be.`,
  });

export const controllerManagerFlags = defineFlags({
  // --- What runs -------------------------------------------------------------------------
  controllers: flag.stringSlice({
    default: ['*'],
    valueName: 'strings',
    meaning: `Controllers to run: '*' runs every on-by-default controller (and every controller of the controller modules), 'name' one more, '-name' one fewer (aliases accepted). Known: ${CONTROLLER_NAMES.join(', ')}. Off by default: ${[...DISABLED_BY_DEFAULT].join(', ')}.`,
    validate: invalidControllerItems,
  }),
  'controller-module': flag.stringArray({
    valueName: 'path|package',
    meaning:
      "An ES module of your own controllers: a file path (relative to the working directory) or a package name. Its default export (else its export named 'controllers') maps controller names to loops, functions of the ControllerContext (docs/controllers.md); the names then work in --controllers like the built-in ones. Repeatable; added to the config file's controllerModules.",
  }),
  config: flag.string({
    valueName: 'path',
    meaning:
      'A configuration file (YAML or JSON; apiVersion controllermanager.config.svc.io/v1alpha1, kind ControllerManagerConfiguration) with controllerModules: a list of modules as --controller-module takes them, paths relative to the file.',
  }),

  // --- General, cloud and networking -------------------------------------------------------
  'allocate-node-cidrs': flag.bool({ meaning: 'Allocate pod CIDRs to nodes (the node-ipam controller runs only with it); requires --cluster-cidr.' }),
  'cluster-cidr': flag.string({ valueName: 'cidr', meaning: 'CIDR range for pods (an IPv4 and an IPv6 one, comma-separated, for dual stack); only used if --allocate-node-cidrs is true.', validate: invalidCidrs }),
  'service-cluster-ip-range': flag.string({ valueName: 'cidr', meaning: 'CIDR range for services; only used if --allocate-node-cidrs is true.', validate: invalidCidrs }),
  'cidr-allocator-type': flag.string({ default: 'RangeAllocator', meaning: 'CIDR allocator type; svc has RangeAllocator only (blocks of --cluster-cidr; no cloud provider).', validate: (t) => (t === '' ? 'must not be empty' : undefined) }),
  'node-cidr-mask-size': flag.int32({ meaning: 'Node CIDR mask size; default 24 for IPv4 and 64 for IPv6.', validate: (n) => (n >= 1 && n <= 128 ? undefined : 'must be between 1 and 128') }),
  'node-cidr-mask-size-ipv4': flag.int32({ meaning: 'Node CIDR mask size of the IPv4 range in a dual-stack cluster; default 24.', validate: (n) => (n >= 1 && n <= 32 ? undefined : 'must be between 1 and 32') }),
  'node-cidr-mask-size-ipv6': flag.int32({ meaning: 'Node CIDR mask size of the IPv6 range in a dual-stack cluster; default 64.', validate: (n) => (n >= 1 && n <= 128 ? undefined : 'must be between 1 and 128') }),
  'configure-cloud-routes': flag.bool({ default: true, meaning: `Configure the CIDRs allocated by --allocate-node-cidrs on the cloud provider. ${NOT_BUILT}` }),
  'cloud-config': flag.string({ valueName: 'path', meaning: 'Path to the cloud provider configuration file; empty for none.' }),
  'cloud-provider': flag.string({ meaning: 'The cloud provider; empty for none (svc ships no cloud provider).' }),
  'external-cloud-volume-plugin': flag.string({ meaning: `The plugin to use when --cloud-provider is 'external', so that the node-ipam, volume binder, volume expander and attach-detach controllers work for in-tree providers. ${NOT_BUILT}` }),
  'cluster-name': flag.string({ default: 'svc', meaning: 'The instance prefix of the cluster.' }),
  master: flag.string({ valueName: 'url', meaning: 'The address of the API server; overrides the server in --svcconfig.', validate: (url) => (URL.canParse(url) ? undefined : 'not a URL') }),
  svcconfig: flag.string({ valueName: 'path', meaning: 'Path to a svcconfig (kubeconfig) file with the API server address and credentials.' }),
  'svc-api-content-type': flag.enum(['application/vnd.svc.protobuf', 'application/json'], {
    default: 'application/vnd.svc.protobuf',
    meaning: 'Content type of requests sent to the API server. With protobuf, objects of kinds that have a protobuf message go as protobuf and the rest (custom types, patches) as JSON.',
  }),
  'route-reconciliation-period': period(10 * SEC, `Period of reconciling the routes the cloud provider created for nodes. ${NOT_BUILT}`),
  'node-monitor-period': period(5 * SEC, 'Period of the node lifecycle controller\'s passes over node health, taints and zone states.'),
  'node-monitor-grace-period': period(
    50 * SEC,
    `How long a running node may be unresponsive before it is marked unhealthy. Must be a multiple of the node agent's status update frequency (10s) and greater than the sum of the node agent's HTTP/2 ping timeout (15s) and read-idle timeout (30s).`,
  ),
  'node-startup-grace-period': period(MIN, 'How long a starting node may be unresponsive before it is marked unhealthy.'),
  'endpoint-updates-batch-period': optionalPeriod('Batching delay of endpoint updates: pod changes are held this long and each Service they touch synced once. Larger means higher programming latency but fewer revisions; unset or 0: none.'),
  'endpointslice-updates-batch-period': optionalPeriod('Batching delay of endpoint slice updates, as --endpoint-updates-batch-period; unset or 0: none.'),
  'mirroring-endpointslice-updates-batch-period': optionalPeriod("Batching delay of the endpoint-slice mirroring controller's updates: Endpoints changes are held this long; unset or 0: none."),

  // --- Certificates and service accounts -----------------------------------------------------
  'cluster-signing-cert-file': flag.string({
    valueName: 'path',
    meaning: 'PEM CA certificate csrsigning issues certificates of every built-in signer with. If given, no more specific --cluster-signing-* option may be given.',
  }),
  'cluster-signing-key-file': flag.string({
    valueName: 'path',
    meaning: 'PEM RSA or ECDSA private key csrsigning signs certificates of every built-in signer with. If given, no more specific --cluster-signing-* option may be given.',
  }),
  'cluster-signing-svc-apiserver-client-cert-file': signingCert('svc.io/apiserver-client'),
  'cluster-signing-svc-apiserver-client-key-file': signingKey('svc.io/apiserver-client'),
  'cluster-signing-nodeagent-client-cert-file': signingCert('svc.io/apiserver-client-nodeagent'),
  'cluster-signing-nodeagent-client-key-file': signingKey('svc.io/apiserver-client-nodeagent'),
  'cluster-signing-nodeagent-serving-cert-file': signingCert('svc.io/nodeagent-serving'),
  'cluster-signing-nodeagent-serving-key-file': signingKey('svc.io/nodeagent-serving'),
  'cluster-signing-legacy-unknown-cert-file': signingCert('svc.io/legacy-unknown'),
  'cluster-signing-legacy-unknown-key-file': signingKey('svc.io/legacy-unknown'),
  'root-ca-file': flag.string({ valueName: 'path', meaning: "Root CA (PEM bundle) the root CA publisher puts in every namespace's kube-root-ca.crt ConfigMap and the serviceaccount-token controller puts in token secrets (ca.crt). Default: the CA of --svcconfig." }),
  'service-account-private-key-file': flag.string({
    valueName: 'path',
    meaning: 'PEM RSA or ECDSA private key that signs service account tokens; setting it enables legacy secret-based tokens (the serviceaccount-token controller runs only with it). The API server must trust its public half (its signing key, or --service-account-key-file).',
  }),
  'use-service-account-credentials': flag.bool({ meaning: 'Give each controller its own service account credentials. (Not built yet: every loop uses the manager\'s credentials.)' }),
  'legacy-service-account-token-clean-up-period': period(
    8760 * HOUR,
    'Time since last use before a legacy service account token (a secret its account lists, mounted by no pod) is labelled invalid; invalid this long again, it is deleted.',
  ),

  // --- Storage and volumes ------------------------------------------------------------------
  'attach-detach-reconcile-sync-period': flag.duration({
    default: MIN,
    meaning: "Wait between the attach-detach reconciler's syncs (every node's VolumeAttachments compared with the CSI volumes its pods use); must exceed one second. Raising it may leave volumes mismatched with pods.",
    validate: (ms) => (ms > SEC ? undefined : 'must be more than 1s'),
  }),
  'disable-attach-detach-reconcile-sync': flag.bool({ meaning: "Disable the attach-detach reconciler's periodic sync (attachments then follow pod and VolumeAttachment events only)." }),
  'disable-force-detach-on-timeout': flag.bool({
    meaning: `Never force-detach a volume on unmount timeout and node status; non-graceful node shutdown must then be used for recovery. (svc's attach-detach loop never force-detaches: accepted and checked only.)`,
  }),
  'enable-dynamic-provisioning': flag.bool({ default: true, meaning: 'Provision volumes dynamically where the environment supports it: a claim of a class with a provisioner gets a volume made (host-path in-process, others annotated for their external provisioner).' }),
  'enable-hostpath-provisioner': flag.bool({
    meaning: 'Provision host-path volumes without a cloud provider (the svc.io/host-path provisioner, and its default StorageClass local-path): directories under --hostpath-provisioner-root on the host the manager runs on. For test and development, single node only; `svc up` turns it on.',
  }),
  'hostpath-provisioner-root': flag.string({
    default: '/tmp/svc-hostpath-pv',
    valueName: 'path',
    meaning: 'Directory under which the host-path provisioner makes each claim\'s directory (svc only; `svc up` uses <data-dir>/storage).',
  }),
  'flex-volume-plugin-dir': flag.string({ default: '/usr/libexec/svc/nodeagent-plugins/volume/exec/', valueName: 'path', meaning: `Directory searched for third-party flex volume plugins. ${NOT_BUILT}` }),
  'pv-recycler-increment-timeout-nfs': flag.int32({ default: 30, valueName: 'seconds', meaning: 'Seconds added per Gi to the ActiveDeadlineSeconds of an NFS scrubber pod.', validate: nonNegative }),
  'pv-recycler-minimum-timeout-hostpath': flag.int32({ default: 60, valueName: 'seconds', meaning: 'Minimum ActiveDeadlineSeconds of a host-path recycler pod (development only).', validate: nonNegative }),
  'pv-recycler-minimum-timeout-nfs': flag.int32({ default: 300, valueName: 'seconds', meaning: 'Minimum ActiveDeadlineSeconds of an NFS recycler pod.', validate: nonNegative }),
  'pv-recycler-pod-template-filepath-hostpath': flag.string({ valueName: 'path', meaning: 'Pod definition (YAML or JSON) used as the template of host-path volume recycling; its volume named `vol` is replaced by the volume.' }),
  'pv-recycler-pod-template-filepath-nfs': flag.string({ valueName: 'path', meaning: 'Pod definition (YAML or JSON) used as the template of NFS volume recycling; its volume named `vol` is replaced by the volume.' }),
  'pv-recycler-timeout-increment-hostpath': flag.int32({ default: 30, valueName: 'seconds', meaning: 'Seconds added per Gi to the ActiveDeadlineSeconds of a host-path scrubber pod (development only).', validate: nonNegative }),
  'pvclaimbinder-sync-period': period(15 * SEC, 'Period of syncing persistent volumes and claims (every claim and volume looked at again).'),

  // --- Lifecycle, scaling and periods -----------------------------------------------------------
  'enable-garbage-collector': flag.bool({ default: true, meaning: "Run the generic garbage collector (garbage-collector-controller). Must match the API server's setting." }),
  'controller-shutdown-timeout': flag.duration({
    default: 10 * SEC,
    meaning: 'How long controllers may take to finish their work in flight when the manager stops or loses the lease; then they are cut off.',
    validate: nonNegative,
  }),
  'controller-start-interval': optionalPeriod('Wait between starting one controller and the next.'),
  'namespace-sync-period': period(5 * MIN, 'Period of the namespace lifecycle sync (a full resync of every namespace).'),
  'resource-quota-sync-period': period(5 * MIN, 'Period of recounting every quota\'s usage (resourcequota-controller), beside the recounts a change of a counted object triggers.'),
  'min-resync-period': flag.duration({ default: 12 * HOUR, meaning: 'Informers resync at a random period between this and twice this.', validate: positive }),
  'horizontal-pod-autoscaler-cpu-initialization-period': period(5 * MIN, `Period after a pod starts during which CPU samples may be skipped.`),
  'horizontal-pod-autoscaler-downscale-stabilization': period(5 * MIN, `Look-back window: never scale below a recommendation made within it.`),
  'horizontal-pod-autoscaler-initial-readiness-delay': period(30 * SEC, `Period after a pod starts during which readiness changes count as initial readiness.`),
  'horizontal-pod-autoscaler-sync-period': period(15 * SEC, `Period of syncing the pod counts of autoscalers.`),
  'enable-leader-migration': flag.bool({ meaning: 'Controller leader migration. (Not built: accepted; a single lock is used.)' }),
  'leader-migration-config': flag.string({
    valueName: 'path',
    meaning: 'Config file of leader migration (kind LeaderMigrationConfiguration, group controllermanager.config.svc.io, version v1alpha1); empty for the default. Read only with --enable-leader-migration.',
  }),

  // --- Leader election --------------------------------------------------------------------------
  'leader-elect': flag.bool({ default: true, meaning: 'Gain leadership of a Lease before running the control loops; other replicas wait. Turn off only when a single replica runs.' }),
  'leader-elect-lease-duration': flag.duration({ default: 15 * SEC, meaning: 'How long non-leaders wait after the last renewal before they take over.', validate: positive }),
  'leader-elect-renew-deadline': flag.duration({
    default: 10 * SEC,
    meaning: 'How long the leader keeps trying to renew before it gives up leading; must be less than the lease duration.',
    validate: positive,
  }),
  'leader-elect-retry-period': flag.duration({ default: 2 * SEC, meaning: 'Wait between attempts to acquire or renew the lease; must be less than the renew deadline.', validate: positive }),
  'leader-elect-resource-lock': flag.string({ default: 'leases', meaning: "The type of the lock object. Only 'leases' is supported.", validate: (t) => (t === 'leases' ? undefined : "only 'leases' is supported") }),
  'leader-elect-resource-name': flag.string({ default: 'svc-controller-manager', meaning: 'The name of the lock object.', validate: (n) => (/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(n) ? undefined : 'not a valid object name') }),
  'leader-elect-resource-namespace': flag.string({ default: 'svc-system', meaning: 'The namespace of the lock object.', validate: (n) => (/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/.test(n) ? undefined : 'not a valid namespace name') }),

  // --- Diagnostics ----------------------------------------------------------------------------------
  profiling: flag.bool({ default: true, meaning: 'Serve profiling at /debug/pprof/ on the secure port: a CPU profile (profile?seconds=N) and a heap snapshot (heap).' }),
  'contention-profiling': flag.bool({ meaning: 'Block profiling if profiling is on. (Node has no block profiler: accepted, no effect.)' }),
  'allow-metric-labels': flag.stringArray({
    valueName: 'stringToString',
    meaning: "Allow-list of label values per metric label, as <metric>,<label>='<value>,<value>'; a value outside it is reported as 'unexpected'. Overrides --allow-metric-labels-manifest.",
    validate: (items) => {
      const parsed = parseAllowMetricLabels(items);
      return typeof parsed === 'string' ? parsed : undefined;
    },
  }),
  'allow-metric-labels-manifest': flag.string({ valueName: 'path', meaning: "YAML file mapping '<metric>,<label>' to the allowed values ('v1,v2'), the same allow-list as --allow-metric-labels." }),
  'disabled-metrics': flag.stringSlice({ meaning: 'Fully qualified names of metrics to disable; takes precedence over showing hidden metrics.' }),
  'latency-annotation': flag.string({
    valueName: 'key',
    meaning: "An annotation a writer sets to its send time (ms since the epoch): the reconciles its changes start are observed in controller_sent_to_reconcile_start_seconds, write to reconcile start by this host's clock. Empty: off. (svc's own, for benchmarks.)",
    validate: (key) => (key === '' || /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(key) ? undefined : 'not an annotation key'),
  }),
  'show-hidden-metrics-for-version': flag.string({
    valueName: '<major>.<minor>',
    meaning: 'The previous minor version whose hidden metrics are shown. svc hides no metrics yet, so this only checks the version.',
    validate: (v) => (v === '' || MINOR.test(v) ? undefined : 'must be <major>.<minor>'),
  }),
  'emulated-version': flag.stringSlice({ meaning: 'Versions the components emulate, as <major>.<minor> or <component>=<major>.<minor>.', validate: invalidComponentVersions }),
  'min-compatibility-version': flag.stringSlice({
    meaning: 'The minimum control-plane version to stay compatible with, as <major>.<minor> or <component>=<major>.<minor>.',
    validate: invalidComponentVersions,
  }),
  'feature-gates': flag.multimap({
    valueName: 'colonSeparatedMultimapStringString',
    meaning: `Feature gates, comma-separated [component:]Name=true|false (the component, when given, is svc). Known gates and defaults: ${Object.entries(CONTROLLER_MANAGER_FEATURE_GATES).map(([k, v]) => `${k}=${v}`).join(', ')}.`,
    validate: invalidFeatureGates,
  }),
  version: flag.string({
    valueName: 'version[=true]',
    meaning: "--version (or --version=true) prints the version and exits; --version=raw prints it with build details as JSON; --version=vX.Y.Z... sets the version the manager reports.",
    validate: (v) => (['true', 'false', 'raw'].includes(v) || VERSION.test(v) ? undefined : 'must be true, false, raw or a version vX.Y.Z'),
  }),
  v: flag.int({ short: 'v', default: 0, valueName: 'level', meaning: 'Log verbosity: 0 warnings and errors, 2 leadership and controller starts, 4 debug.', validate: nonNegative }),
  vmodule: flag.string({ valueName: 'pattern=N,...', meaning: 'Per-file verbosity (text format only). Accepted and checked; svc logs at one verbosity.', validate: invalidVmodule }),
  'log-flush-frequency': flag.duration({ default: 5 * SEC, meaning: 'Maximum time between log flushes.', validate: positive }),
  'logging-format': flag.string({ default: 'text', meaning: "The log format. Only 'text' is permitted.", validate: (f) => (f === 'text' ? undefined : "only 'text' is permitted") }),
  'log-text-info-buffer-size': flag.string({
    valueName: 'quantity',
    meaning: 'Alpha: buffer for info messages in split-stream text mode (a quantity like 64Ki); 0 disables. Needs the LoggingAlphaOptions feature gate.',
    validate: (q) => (quantityBytes(q) === undefined ? 'not a quantity (0, 65536, 64Ki, 1Mi)' : undefined),
  }),
  'log-text-split-stream': flag.bool({ meaning: 'Alpha: errors to stderr, info to stdout. Needs the LoggingAlphaOptions feature gate.' }),

  // --- Endpoints ------------------------------------------------------------------------------------
  'secure-port': flag.int({ default: 10257, valueName: 'port', meaning: 'The HTTPS port of /healthz, /readyz, /livez, /metrics and /debug/pprof/, with authentication and authorization. 0 disables HTTPS.', validate: port }),
  'bind-address': flag.string({
    default: '0.0.0.0',
    valueName: 'ip',
    meaning: 'The address the secure port listens on; blank or unspecified (0.0.0.0, ::) means every interface and family.',
    validate: (ip) => (ip === '' || isIP(ip) ? undefined : 'not an IP address'),
  }),
  'cert-dir': flag.string({
    valueName: 'path',
    meaning: 'Directory of the generated serving certificate (ca.crt, serving.crt and their keys); ignored when --tls-cert-file and --tls-private-key-file are given. Empty: the certificate is kept in memory.',
  }),
  'tls-cert-file': flag.string({
    valueName: 'path',
    meaning: 'PEM serving certificate (with any CA certificates after it). Without it and --tls-private-key-file, a self-signed pair is generated for the public address and saved in --cert-dir.',
  }),
  'tls-private-key-file': flag.string({ valueName: 'path', meaning: 'PEM private key of --tls-cert-file.' }),
  'tls-sni-cert-key': flag.stringArray({
    valueName: 'string',
    meaning: "A certificate and key file pair, optionally followed by :<domain patterns> (wildcards allowed), e.g. 'example.crt,example.key:*.example.com,example.com'. Repeatable. Without patterns, the names in the certificate are used; exact names beat wildcards, explicit patterns beat extracted names.",
    validate: (items) => {
      const bad = items.find((item) => !/^[^,:]+,[^,:]+(:[^:]+)?$/.test(item));
      return bad === undefined ? undefined : `${JSON.stringify(bad)} is not certfile,keyfile[:pattern,...]`;
    },
  }),
  'tls-cipher-suites': flag.stringSlice({
    meaning: `Cipher suites for the server (Go names). Default: Node's. Known: ${Object.keys(TLS_CIPHER_SUITES).join(', ')}.`,
    validate: (names) => {
      const bad = names.find((name) => !Object.hasOwn(TLS_CIPHER_SUITES, name));
      return bad === undefined ? undefined : `unknown cipher suite ${JSON.stringify(bad)}`;
    },
  }),
  'tls-min-version': flag.string({
    meaning: 'Minimum TLS version: VersionTLS10, VersionTLS11, VersionTLS12 or VersionTLS13.',
    validate: (v) => (v === '' || ['VersionTLS10', 'VersionTLS11', 'VersionTLS12', 'VersionTLS13'].includes(v) ? undefined : 'must be one of VersionTLS10, VersionTLS11, VersionTLS12, VersionTLS13'),
  }),
  'disable-http2-serving': flag.bool({ meaning: 'Serve HTTP/1.1 only (default: HTTP/2 and HTTP/1.1).' }),
  'http2-max-streams-per-connection': flag.int({ meaning: "Most streams per HTTP/2 connection; 0 uses Node's default.", validate: nonNegative }),
  'permit-address-sharing': flag.bool({ meaning: 'Bind with address reuse (SO_REUSEADDR), so a restart can bind while old connections linger.' }),
  'permit-port-sharing': flag.bool({ meaning: 'Bind with port reuse, so several instances can share the address (Node 22.12+ with SO_REUSEPORT; on older Node: accepted, no effect).' }),

  // --- Authentication -------------------------------------------------------------------------------
  'client-ca-file': flag.string({ valueName: 'path', meaning: "Requests with a client certificate signed by these authorities are authenticated as the certificate's CommonName (groups: its Organizations)." }),
  'authentication-svcconfig': flag.string({
    valueName: 'path',
    meaning: 'svcconfig of the API server, with rights to create TokenReviews (authentication.svc.io/v1). Optional; if empty, bearer tokens are not checked and such requests are anonymous.',
  }),
  'authentication-skip-lookup': flag.bool({ meaning: 'If false, --authentication-svcconfig is used to look up missing authentication configuration in the cluster. (Not built: no lookup is made.)' }),
  'authentication-tolerate-lookup-failure': flag.bool({ meaning: 'If true, lookup failures are not fatal (may lead to all requests anonymous).' }),
  'authentication-token-webhook-cache-ttl': period(10 * SEC, 'How long TokenReview answers are cached.'),
  'authorization-svcconfig': flag.string({
    valueName: 'path',
    meaning: 'svcconfig of the API server, with rights to create SubjectAccessReviews (authorization.svc.io/v1). Optional; if empty, every request to a path not in --authorization-always-allow-paths is forbidden.',
  }),
  'authorization-always-allow-paths': flag.stringSlice({
    default: ['/healthz', '/readyz', '/livez'],
    meaning: "Paths authorized without asking the API server (a trailing '*' matches a prefix).",
    validate: (paths) => {
      const bad = paths.find((p) => !p.startsWith('/'));
      return bad === undefined ? undefined : `${JSON.stringify(bad)} does not start with /`;
    },
  }),
  'authorization-webhook-cache-authorized-ttl': period(10 * SEC, "How long 'authorized' answers of SubjectAccessReviews are cached."),
  'authorization-webhook-cache-unauthorized-ttl': period(10 * SEC, "How long 'unauthorized' answers of SubjectAccessReviews are cached."),
  'requestheader-client-ca-file': flag.string({
    valueName: 'path',
    meaning: 'Root bundle that verifies client certificates before the identity headers (--requestheader-username-headers) of their requests are trusted.',
  }),
  'requestheader-allowed-names': flag.stringSlice({ meaning: 'Certificate common names allowed to supply user names in headers; if empty, any certificate validated by --requestheader-client-ca-file is.' }),
  'requestheader-username-headers': flag.stringSlice({ default: ['x-remote-user'], meaning: 'Headers inspected for the user name; the first one set wins.' }),
  'requestheader-group-headers': flag.stringSlice({ default: ['x-remote-group'], meaning: 'Headers inspected for groups.' }),
  'requestheader-extra-headers-prefix': flag.stringSlice({ default: ['x-remote-extra-'], meaning: 'Header prefixes inspected for extra user information.' }),
  'requestheader-uid-headers': flag.stringSlice({ meaning: 'Headers inspected for the UID. Needs the RemoteRequestHeaderUID feature gate.' }),

  // --- Limits: concurrent syncs -----------------------------------------------------------------------
  'concurrent-cron-job-syncs': concurrency('cron jobs', 5, true),
  'concurrent-daemonset-syncs': concurrency('daemonsets', 2, true),
  'concurrent-deployment-syncs': concurrency('deployments', 5, true),
  'concurrent-device-taint-eviction-syncs': concurrency('evictions and taint-rule status updates', 8),
  'concurrent-endpoint-syncs': concurrency('endpoint syncs', 5, true),
  'concurrent-ephemeralvolume-syncs': concurrency('ephemeral volume syncs', 5, true),
  'concurrent-gc-syncs': concurrency('garbage collector workers', 20, true),
  'concurrent-horizontal-pod-autoscaler-syncs': concurrency('autoscalers', 5, true),
  'concurrent-job-syncs': concurrency('jobs', 5, true),
  'concurrent-namespace-syncs': concurrency('namespaces', 10, true),
  'concurrent-rc-syncs': concurrency('replication controllers', 5, true),
  'concurrent-replicaset-syncs': concurrency('replica sets', 5, true),
  'concurrent-resource-quota-syncs': concurrency('resource quotas', 5, true),
  'concurrent-service-endpoint-syncs': concurrency('endpoint slice syncs', 5, true),
  'concurrent-service-syncs': concurrency('services', 1, true),
  'concurrent-serviceaccount-token-syncs': concurrency('service account token objects', 5, true),
  'concurrent-statefulset-syncs': concurrency('statefulsets', 5, true),
  'concurrent-ttl-after-finished-syncs': concurrency('ttl-after-finished workers', 5, true),
  'concurrent-validating-admission-policy-status-syncs': concurrency('validating admission policy status workers', 5, true),
  'mirroring-concurrent-service-endpoint-syncs': concurrency('endpoint-slice mirroring syncs', 5, true),

  // --- Limits: rates, sizes and thresholds --------------------------------------------------------------
  'svc-api-qps': flag.float({ default: 20, meaning: 'Requests per second to the API server, once the burst is spent (every request and watch of every controller shares it).', validate: positive }),
  'svc-api-burst': flag.int32({ default: 30, meaning: 'Requests that may go to the API server at once after an idle spell.', validate: (n) => (n >= 1 ? undefined : 'must be at least 1') }),
  'svc-api-connections': flag.int32({
    default: 64,
    meaning: "Sockets the controllers' requests hold to the API server at most (more wait for a free one); their watches have sockets of their own, one each.",
    validate: (n) => (n >= 1 ? undefined : 'must be at least 1'),
  }),
  'max-endpoints-per-slice': flag.int32({ default: 100, meaning: 'Most endpoints in one endpoint slice.', validate: positive }),
  'mirroring-max-endpoints-per-subset': flag.int32({
    default: 1000,
    meaning: "Most endpoints per endpoint slice of the mirroring controller: addresses of one Endpoints subset past it are not mirrored (the spec's table says 1000, its prose 100: the table wins).",
    validate: positive,
  }),
  'terminated-pod-gc-threshold': flag.int32({ default: 12500, meaning: 'Terminated pods allowed before the pod garbage collector starts deleting them (oldest first); <= 0 disables that step.' }),
  'node-eviction-rate': flag.float({ default: 0.1, meaning: 'Nodes per second whose pods are deleted after a node fails (tainted NoExecute), while its zone is healthy.', validate: nonNegative }),
  'secondary-node-eviction-rate': flag.float({
    default: 0.01,
    meaning: 'The same while the zone is unhealthy; implicitly 0 in clusters not larger than --large-cluster-size-threshold.',
    validate: nonNegative,
  }),
  'large-cluster-size-threshold': flag.int32({ default: 50, meaning: 'Node count from which a cluster (a zone, in multi-zone clusters) counts as large.', validate: nonNegative }),
  'unhealthy-zone-threshold': flag.float({
    default: 0.55,
    meaning: 'Fraction of not-Ready nodes (at least 3) that makes a zone unhealthy.',
    validate: (f) => (f > 0 && f <= 1 ? undefined : 'must be more than 0 and at most 1'),
  }),
  'horizontal-pod-autoscaler-tolerance': flag.float({ default: 0.1, meaning: `Smallest change from 1.0 of the desired-to-actual metric ratio that makes the autoscaler scale.`, validate: nonNegative }),
  'cluster-signing-duration': flag.duration({
    default: 8760 * HOUR,
    meaning: 'Longest lifetime of the certificates csrsigning signs; a request may ask for less with spec.expirationSeconds (at least 600).',
    validate: positive,
  }),
});

export type ControllerManagerFlags = FlagValues<typeof controllerManagerFlags>;

export const controllerManagerDoc: CommandDoc = {
  name: 'svc-controller-manager',
  usage: 'svc-controller-manager [flags]',
  summary:
    'Runs the control loops that move the cluster toward its desired state, against the API server named by --svcconfig (or --master). With leader election on (the default) one replica leads, through the Lease svc-system/svc-controller-manager, and the others wait. Serves /healthz, /readyz, /livez, /metrics and /debug/pprof/ over HTTPS on --secure-port.',
  source: 'src/cli/controller-manager-flags.ts',
};
