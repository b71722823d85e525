import { isIP } from 'node:net';
import { quantityValue } from '../api/index.js';
import type { CommandDoc } from './flag-docs.js';
import { flag, type FlagSpec, type FlagValues } from './flag-spec.js';
import { defineFlags } from './flags.js';

/**
 * nodeagent's options (docs/flags/nodeagent.md is generated from this table). Rows marked `(D)`
 * in the spec are settable in the `--config` file too: `viaConfig(field, row)` names the field and
 * makes the flag print a deprecation warning that names it. `(X)` rows carry their own notice.
 * Checks that involve more than one option, or that must also hold for values from the config
 * file, live in nodeagent-validate.ts.
 */

/** A row that may also be set in the config file (`NodeAgentConfiguration`), under `field`. */
export interface ConfigFieldRow {
  /** Dotted path in the config file: `authentication.x509.clientCAFile`. */
  readonly configField: string;
}

const CONFIG_NOTICE = (field: string) => `set "${field}" in the file given by --config instead (this flag still works and overrides the file)`;

/** A `(D)` row: the flag still works, warns, and names the config field that replaces it. */
function viaConfig<const S extends FlagSpec>(field: string, spec: S): S & ConfigFieldRow {
  return Object.assign({}, spec, { deprecated: CONFIG_NOTICE(field), configField: field });
}

/** A row the config file can set too, without a deprecation (the spec leaves it unmarked). */
function alsoInConfig<const S extends FlagSpec>(field: string, spec: S): S & ConfigFieldRow {
  return Object.assign({}, spec, { configField: field });
}

const port = (allowZero: boolean) => (n: number) => (n >= (allowZero ? 0 : 1) && n <= 65535 ? undefined : `must be between ${allowZero ? 0 : 1} and 65535`);
const nonNegative = (n: number) => (n >= 0 ? undefined : 'must not be negative');
const percent = (n: number) => (n >= 0 && n <= 100 ? undefined : 'must be between 0 and 100');
const positiveDuration = (ms: number) => (ms > 0 ? undefined : 'must be positive');
/** An http(s) URL, or empty (no URL source, as a config file may say). */
const httpUrl = (text: string) => {
  if (text === '') return undefined;
  const protocol = URL.canParse(text) ? new URL(text).protocol : '';
  return protocol === 'http:' || protocol === 'https:' ? undefined : 'must be an http:// or https:// URL';
};

export const nodeAgentFlags = defineFlags({
  // Identity, registration and configuration sources
  config: flag.string({
    valueName: 'path',
    meaning: 'A NodeAgentConfiguration file (YAML or JSON) to load the options from; flags given on the command line override it. Relative paths start at the working directory. Without it the built-in defaults apply.',
  }),
  'config-dir': flag.string({
    valueName: 'path',
    meaning: 'A directory of drop-in NodeAgentConfiguration files (*.conf, YAML or JSON), applied in lexical order of their names over the defaults and the --config file (flags still win).',
  }),
  svcconfig: flag.string({
    valueName: 'path',
    meaning: 'The svcconfig (kubeconfig) of the API server. With it the agent registers its node and runs the pods bound to it; without it, it runs in standalone mode: static pods only.',
  }),
  'hostname-override': flag.string({ meaning: "The node's name, instead of the machine's hostname (lower-cased either way)." }),
  'node-ip': flag.string({
    valueName: 'ips',
    meaning: "The node's IP (or two comma-separated IPs of different families, for dual stack). Unset: the address of the default IPv4 route, else IPv6's. `::` prefers IPv6.",
    validate: (text) => {
      const ips = text.split(',');
      if (ips.length > 2) return 'at most two IPs (one per family)';
      const bad = ips.find((ip) => isIP(ip) === 0);
      if (bad !== undefined) return `${JSON.stringify(bad)} is not an IP address`;
      if (ips.length === 2 && isIP(ips[0]!) === isIP(ips[1]!)) return 'two IPs must be of different families';
      return undefined;
    },
  }),
  'node-labels': flag.map('string', {
    meaning:
      'Labels added to the Node at registration, as key=value pairs. Labels in the svc.io namespace must begin with nodeagent.svc.io/ or node.svc.io/, or be one of the well-known ones (svc.io/hostname, svc.io/os, svc.io/arch, topology.svc.io/region, ...).',
  }),
  'provider-id': viaConfig('providerID', flag.string({ meaning: 'The unique identifier of the node in a machine database (spec.providerID).' })),
  'register-node': viaConfig('registerNode', flag.bool({ default: true, meaning: 'Register the node with the API server. Irrelevant without --svcconfig.' })),
  'register-with-taints': viaConfig(
    'registerWithTaints',
    flag.stringSlice({
      valueName: 'taints',
      meaning: 'Taints the node registers with, as <key>=<value>:<effect> (effect NoSchedule, PreferNoSchedule or NoExecute). No-op with --register-node=false.',
    }),
  ),
  'cloud-provider': flag.string({ meaning: 'The cloud provider: empty for none, or `external`. svc runs no cloud provider code: only the empty value and `external` (which then waits for nothing) are accepted.' }),
  'root-dir': flag.string({ default: '/var/lib/nodeagent', valueName: 'path', meaning: "The directory of the agent's files: pod volumes, container logs, images to import (<root-dir>/images)." }),
  'pod-manifest-path': viaConfig(
    'staticPodPath',
    flag.string({ valueName: 'path', meaning: 'A directory of static pod files (or one file) to run; files whose names begin with a dot are ignored.' }),
  ),
  'manifest-url': viaConfig('staticPodURL', flag.string({ valueName: 'url', meaning: 'An http:// or https:// URL that serves static pod specifications (one or many YAML or JSON documents).', validate: httpUrl })),
  'manifest-url-header': viaConfig(
    'staticPodURLHeader',
    flag.stringSlice({
      valueName: 'headers',
      meaning: "Headers sent with --manifest-url requests, as 'Name:value' items, comma-separated; repeatable; same-name headers are sent in the order given.",
      validate: (items) => {
        const bad = items.find((item) => !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+:/.test(item));
        return bad === undefined ? undefined : `${JSON.stringify(bad)} is not of the form Name:value`;
      },
    }),
  ),
  'file-check-frequency': viaConfig('fileCheckFrequency', flag.duration({ default: 20_000, meaning: 'How often the static pod files are read again.', validate: positiveDuration })),
  'http-check-frequency': viaConfig('httpCheckFrequency', flag.duration({ default: 20_000, meaning: 'How often --manifest-url is fetched again.', validate: positiveDuration })),
  'sync-frequency': viaConfig(
    'syncFrequency',
    flag.duration({ default: 60_000, meaning: 'How often each pod is synchronized again (running containers with the desired pod) when nothing else changes it: this to 1.5 times this after its last sync, at random, so that pods are not all synced at once.', validate: positiveDuration }),
  ),
  runonce: viaConfig('runOnce', flag.bool({ meaning: 'Start the pods from the static files and the manifest URL, wait until they run, then exit. Exclusive with --enable-server.' })),
  'lock-file': flag.string({ valueName: 'path', meaning: '(alpha) A lock file the agent holds while it runs, so that two agents never run on one root dir.' }),
  'exit-on-lock-contention': flag.bool({ meaning: 'Exit when another process takes the --lock-file, instead of waiting for it.' }),
  'pod-cidr': viaConfig('podCIDR', flag.string({ valueName: 'cidr', meaning: 'The pod IP range, standalone mode only (in cluster mode it comes from the Node). At most 65536 addresses for IPv6.' })),
  'node-status-update-frequency': viaConfig(
    'nodeStatusUpdateFrequency',
    flag.duration({ default: 10_000, meaning: "How often the node's status is posted (and on every change); must fit the controller manager's node monitor grace period.", validate: positiveDuration }),
  ),

  // Runtime, containers and images
  'container-runtime-endpoint': viaConfig(
    'containerRuntimeEndpoint',
    flag.string({ default: 'unix:///run/containerd/containerd.sock', valueName: 'endpoint', meaning: 'The CRI runtime service endpoint (unix:// socket).' }),
  ),
  'image-service-endpoint': viaConfig('imageServiceEndpoint', flag.string({ valueName: 'endpoint', meaning: 'The CRI image service endpoint; defaults to the runtime endpoint.' })),
  'runtime-cgroups': flag.string({ meaning: 'Cgroups in which to create and run the runtime.' }),
  'cgroup-driver': viaConfig('cgroupDriver', flag.enum(['cgroupfs', 'systemd'], { default: 'cgroupfs', meaning: 'How cgroups are managed on the host: cgroupfs or systemd (must match the runtime).' })),
  'cgroup-root': viaConfig('cgroupRoot', flag.string({ meaning: 'The root cgroup of pods; empty: the runtime default.' })),
  'cgroups-per-qos': viaConfig('cgroupsPerQOS', flag.bool({ default: true, meaning: 'Create the QoS cgroup hierarchy (guaranteed, burstable, besteffort).' })),
  'svc-reserved-cgroup': viaConfig('svcReservedCgroup', flag.string({ meaning: 'The top-level cgroup of the svc components whose resources --svc-reserved reserves.' })),
  'system-reserved-cgroup': viaConfig('systemReservedCgroup', flag.string({ meaning: 'The top-level cgroup of the other system components whose resources --system-reserved reserves.' })),
  'nodeagent-cgroups': viaConfig('nodeAgentCgroups', flag.string({ meaning: 'The cgroup the agent runs in.' })),
  'system-cgroups': viaConfig('systemCgroups', flag.string({ meaning: 'The cgroup of every non-kernel process not already in a cgroup under /; rolling back needs a reboot.' })),
  'enforce-node-allocatable': viaConfig(
    'enforceNodeAllocatable',
    flag.stringSlice({
      default: ['pods'],
      meaning:
        'What node allocatable is enforced on: any of pods, system-reserved, system-reserved-compressible, svc-reserved, svc-reserved-compressible, or none alone. The reserved ones need their cgroup option.',
    }),
  ),
  'cpu-cfs-quota': viaConfig('cpuCFSQuota', flag.bool({ default: true, meaning: 'Enforce CPU limits with CFS quota.' })),
  'cpu-cfs-quota-period': viaConfig('cpuCFSQuotaPeriod', flag.duration({ default: 100, meaning: 'The CFS quota period.', validate: positiveDuration })),
  'cpu-manager-policy': viaConfig('cpuManagerPolicy', flag.enum(['none', 'static'], { default: 'none', meaning: 'The CPU manager policy: none (every container on every CPU), or static (Guaranteed containers with whole CPU requests get CPUs to themselves; needs reserved CPUs).' })),
  'cpu-manager-policy-options': viaConfig('cpuManagerPolicyOptions', flag.map('string', { meaning: 'Options of the static CPU manager policy, as name=true|false: full-pcpus-only; strict-cpu-reservation, distribute-cpus-across-cores and align-by-socket with the CPUManagerPolicyAlphaOptions feature gate.' })),
  'cpu-manager-reconcile-period': viaConfig(
    'cpuManagerReconcilePeriod',
    flag.duration({ meaning: '(alpha) The CPU manager reconcile period; unset: --node-status-update-frequency.', validate: positiveDuration }),
  ),
  'memory-manager-policy': viaConfig('memoryManagerPolicy', flag.enum(['None', 'Static'], { default: 'None', meaning: 'The memory manager policy: None, or Static (Guaranteed containers get their memory and hugepages from chosen NUMA nodes, pinned with cpuset.mems; needs --reserved-memory).' })),
  'topology-manager-policy': viaConfig(
    'topologyManagerPolicy',
    flag.enum(['none', 'best-effort', 'restricted', 'single-numa-node'], { default: 'none', meaning: 'The topology manager policy: how the CPU and memory managers\' NUMA hints are merged at admission: none, best-effort, restricted (refuse a pod without a preferred placement) or single-numa-node (refuse a pod that does not fit one NUMA node).' }),
  ),
  'topology-manager-policy-options': viaConfig('topologyManagerPolicyOptions', flag.map('string', { meaning: 'Options of the topology manager policy: prefer-closest-numa-nodes=true|false, max-allowable-numa-nodes=<n> (8 by default).' })),
  'topology-manager-scope': viaConfig('topologyManagerScope', flag.enum(['container', 'pod'], { default: 'container', meaning: 'The scope of topology hints: container (each container aligned on its own) or pod (all containers of a pod on one placement).' })),
  'qos-reserved': viaConfig(
    'qosReserved',
    flag.map('string', { valueName: 'resource=percentage', meaning: '(alpha) The share of the higher QoS classes\' memory requests kept from the lower ones (memory=<percentage>, on the burstable and besteffort cgroups\' limits). Only memory; needs the QOSReserved feature gate and --cgroups-per-qos.' }),
  ),
  'allowed-unsafe-sysctls': viaConfig('allowedUnsafeSysctls', flag.stringSlice({ meaning: 'Unsafe sysctls (or patterns ending in *) pods may set.' })),
  'protect-kernel-defaults': viaConfig('protectKernelDefaults', flag.bool({ meaning: "Refuse to start when a kernel tunable differs from the kubelet's value (vm.overcommit_memory=1, vm.panic_on_oom=0, kernel.panic=10, kernel.panic_on_oops=1, kernel.keys.root_maxkeys, kernel.keys.root_maxbytes); without it the agent sets them." })),
  'seccomp-default': alsoInConfig('seccompDefault', flag.bool({ meaning: 'Use the RuntimeDefault seccomp profile for every workload that names none.' })),
  'serialize-image-pulls': viaConfig('serializeImagePulls', flag.bool({ default: true, meaning: 'Pull one image at a time.' })),
  'image-credential-provider-bin-dir': flag.string({ valueName: 'path', meaning: 'The directory of the image credential provider plugins --image-credential-provider-config names.' }),
  'image-credential-provider-config': flag.string({
    valueName: 'path',
    meaning:
      'A CredentialProviderConfig (kubelet.config.k8s.io/v1, YAML or JSON), or a directory of them joined in lexical order: the exec plugins asked for the credentials of the images their matchImages name (docs/node-agent.md#image-credential-provider-plugins).',
  }),
  'registry-config': alsoInConfig(
    'registryConfig',
    flag.string({
      valueName: 'path',
      meaning:
        "A registries.yaml (k3s's shape: mirrors with endpoints and rewrites, configs with auth and TLS). The agent applies its mirrors' rewrites to pulls, and with --registry-hosts-dir writes containerd's hosts.toml files. A file that cannot be read or is invalid stops the agent at start.",
    }),
  ),
  'registry-hosts-dir': alsoInConfig(
    'registryHostsDir',
    flag.string({
      valueName: 'path',
      meaning:
        "The directory the runtime's CRI plugin reads registry hosts from (containerd's registry.config_path, e.g. /etc/containerd/certs.d): the agent writes <registry>/hosts.toml there for each registry of --registry-config at start (containerd reads them at each pull, no restart). Unset: nothing is written.",
    }),
  ),
  'enable-controller-attach-detach': viaConfig(
    'enableControllerAttachDetach',
    flag.bool({ default: true, meaning: 'Leave attaching and detaching volumes to the attach/detach controller.' }),
  ),
  'volume-plugin-dir': viaConfig(
    'volumePluginDir',
    flag.string({ default: '/usr/libexec/svc/nodeagent-plugins/volume/exec/', valueName: 'path', meaning: 'The directory searched for third-party (flex) volume plugins.' }),
  ),
  'experimental-mounter-path': flag.string({
    valueName: 'path',
    deprecated: 'it will be removed in 1.25 or later, in favour of CSI',
    meaning: 'The mounter binary (deprecated: removal in 1.25 or later, in favour of CSI).',
  }),
  'experimental-allocatable-ignore-eviction': flag.bool({
    deprecated: 'it will be removed in 1.25 or later',
    meaning: 'Ignore the hard eviction thresholds when computing node allocatable (deprecated: removal in 1.25 or later).',
  }),
  'local-storage-capacity-isolation': viaConfig('localStorageCapacityIsolation', flag.bool({ default: true, meaning: 'Isolate local ephemeral storage (requests, limits, eviction).' })),
  'kernel-memcg-notification': viaConfig('kernelMemcgNotification', flag.bool({ meaning: 'Have the kernel signal memory.available thresholds (cgroup v1 memory threshold notifications) so an eviction pass runs at once; polling stays, and is all there is on cgroup v2.' })),
  'make-iptables-util-chains': viaConfig('makeIPTablesUtilChains', flag.bool({ default: true, meaning: 'Make sure the iptables utility chains exist.' })),
  'hairpin-mode': viaConfig(
    'hairpinMode',
    flag.enum(['promiscuous-bridge', 'hairpin-veth', 'none'], { default: 'promiscuous-bridge', meaning: 'How a pod reaches itself through its service: promiscuous-bridge, hairpin-veth or none.' }),
  ),
  'resolv-conf': viaConfig('resolvConf', flag.string({ default: '/etc/resolv.conf', valueName: 'path', meaning: "The resolver configuration containers' DNS is based on." })),
  'cluster-dns': viaConfig(
    'clusterDNS',
    flag.stringSlice({
      valueName: 'ips',
      meaning: 'DNS server IPs for pods with dnsPolicy=ClusterFirst; they must all serve the same records.',
      validate: (ips) => {
        const bad = ips.find((ip) => isIP(ip) === 0);
        return bad === undefined ? undefined : `${JSON.stringify(bad)} is not an IP address`;
      },
    }),
  ),
  'cluster-domain': viaConfig('clusterDomain', flag.string({ meaning: "The cluster's DNS domain, added to containers' search domains." })),
  'fail-swap-on': viaConfig('failSwapOn', flag.bool({ default: true, meaning: 'Refuse to start when swap is on.' })),
  'fail-cgroupv1': alsoInConfig('failCgroupV1', flag.bool({ default: true, meaning: 'Refuse to start on a cgroup v1 host.' })),
  'oom-score-adj': viaConfig(
    'oomScoreAdj',
    flag.int32({ default: -999, meaning: "The agent process's oom_score_adj, within [-1000, 1000].", validate: (n) => (n >= -1000 && n <= 1000 ? undefined : 'must be within [-1000, 1000]') }),
  ),
  'maximum-dead-containers': flag.int32({
    default: -1,
    deprecated: 'use --eviction-hard or --eviction-soft instead',
    meaning: 'Old containers kept in all; negative: no limit (deprecated: use the eviction options).',
  }),
  'maximum-dead-containers-per-container': flag.int32({
    default: 1,
    deprecated: 'use --eviction-hard or --eviction-soft instead',
    meaning: 'Old instances kept per container (deprecated: use the eviction options).',
  }),
  'minimum-container-ttl-duration': flag.duration({
    deprecated: 'use --eviction-hard or --eviction-soft instead',
    meaning: 'The least age of a finished container before it is collected (deprecated: use the eviction options).',
  }),
  'minimum-image-ttl-duration': viaConfig('imageMinimumGCAge', flag.duration({ default: 120_000, meaning: 'The least age of an unused image before it is collected.' })),

  // Diagnostics and general
  'feature-gates': alsoInConfig('featureGates', flag.map('bool', { meaning: 'Feature gates, as Name=true|false pairs.' })),
  version: flag.string({
    valueName: 'version[=true]',
    meaning: 'Print the version and exit (`--version`, `--version=true`, or `--version=raw` for the build details); any other value is reported as the node agent version instead.',
  }),
  v: flag.int({ short: 'v', default: 0, valueName: 'level', meaning: 'Log verbosity.', validate: nonNegative }),
  vmodule: flag.map('int', {
    valueName: 'pattern=N',
    meaning: "Per-file log verbosity (text format only), raising -v for the files a glob names: the base name without /, the path under src/ with it (eviction-*=4, nodeagent/images/*=5).",
  }),
  'log-flush-frequency': flag.duration({ default: 5000, meaning: 'The longest time between log flushes.', validate: positiveDuration }),
  'logging-format': viaConfig('logging.format', flag.enum(['text'], { default: 'text', meaning: 'The log format; only text.' })),
  'log-text-info-buffer-size': viaConfig(
    'logging.options.text.infoBufferSize',
    flag.string({ valueName: 'quantity', meaning: '(alpha) The buffer of info messages in split-stream text mode; needs the LoggingAlphaOptions gate.' }),
  ),
  'log-text-split-stream': viaConfig('logging.options.text.splitStream', flag.bool({ meaning: '(alpha) Errors to stderr, info to stdout; needs the LoggingAlphaOptions gate.' })),
  'contention-profiling': viaConfig('enableContentionProfiling', flag.bool({ meaning: 'Block profiling, when profiling is on.' })),

  // Endpoints
  'enable-server': viaConfig('enableServer', flag.bool({ default: true, meaning: "Run the agent's HTTPS server." })),
  address: viaConfig('address', flag.string({ default: '0.0.0.0', valueName: 'ip', meaning: 'The IP to serve on (0.0.0.0 or :: for every interface).', validate: (ip) => (isIP(ip) ? undefined : 'not an IP address') })),
  port: viaConfig('port', flag.int32({ default: 10250, meaning: 'The HTTPS port.', validate: port(false) })),
  'read-only-port': viaConfig('readOnlyPort', flag.int32({ default: 10255, meaning: 'The read-only HTTP port, without authentication or authorization; 0 disables it.', validate: port(true) })),
  'healthz-bind-address': viaConfig('healthzBindAddress', flag.string({ default: '127.0.0.1', valueName: 'ip', meaning: 'The address of the health server.', validate: (ip) => (isIP(ip) ? undefined : 'not an IP address') })),
  'healthz-port': viaConfig('healthzPort', flag.int32({ default: 10248, meaning: 'The localhost health port; 0 disables it.', validate: port(true) })),
  'enable-debugging-handlers': viaConfig('enableDebuggingHandlers', flag.bool({ default: true, meaning: 'Serve container logs, exec, attach and port-forward.' })),
  'streaming-connection-idle-timeout': viaConfig(
    'streamingConnectionIdleTimeout',
    flag.duration({ default: 4 * 3_600_000, meaning: 'An idle exec/attach/port-forward connection closes after this; 0: never. Every connection closes after 4 hours.', validate: nonNegative }),
  ),
  'tls-cert-file': viaConfig('tlsCertFile', flag.string({ valueName: 'path', meaning: 'The serving certificate (intermediates after it). Without it and the key, a self-signed pair is made in --cert-dir.' })),
  'tls-private-key-file': viaConfig('tlsPrivateKeyFile', flag.string({ valueName: 'path', meaning: 'The private key of --tls-cert-file.' })),
  'tls-cipher-suites': flag.stringSlice({ meaning: "Cipher suites of the server, by Go's names (TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256, as Kubernetes documents them) or OpenSSL's; an unknown name stops the start. Default: Node's." }),
  'tls-min-version': viaConfig(
    'tlsMinVersion',
    flag.enum(['VersionTLS10', 'VersionTLS11', 'VersionTLS12', 'VersionTLS13'], { meaning: 'The lowest TLS version the server accepts.' }),
  ),
  'cert-dir': flag.string({ default: '/var/lib/nodeagent/pki', valueName: 'path', meaning: 'The directory of the TLS certificates; ignored when --tls-cert-file and --tls-private-key-file are given.' }),

  // Authentication
  'anonymous-auth': viaConfig('authentication.anonymous.enabled', flag.bool({ default: true, meaning: 'Requests no other method rejects are anonymous (system:anonymous, group system:unauthenticated).' })),
  'client-ca-file': viaConfig('authentication.x509.clientCAFile', flag.string({ valueName: 'path', meaning: "Client certificates signed by these CAs authenticate as their CommonName (groups: Organization)." })),
  'authentication-token-webhook': viaConfig('authentication.webhook.enabled', flag.bool({ meaning: "Check bearer tokens with the API server's TokenReview." })),
  'authentication-token-webhook-cache-ttl': viaConfig(
    'authentication.webhook.cacheTTL',
    flag.duration({ default: 120_000, meaning: 'How long TokenReview answers are cached.', validate: nonNegative }),
  ),
  'authorization-mode': viaConfig(
    'authorization.mode',
    flag.enum(['AlwaysAllow', 'Webhook'], { default: 'AlwaysAllow', meaning: "AlwaysAllow, or Webhook: ask the API server's SubjectAccessReview." }),
  ),
  'authorization-webhook-cache-authorized-ttl': viaConfig(
    'authorization.webhook.cacheAuthorizedTTL',
    flag.duration({ default: 300_000, meaning: "How long an 'allowed' answer is cached.", validate: nonNegative }),
  ),
  'authorization-webhook-cache-unauthorized-ttl': viaConfig(
    'authorization.webhook.cacheUnauthorizedTTL',
    flag.duration({ default: 30_000, meaning: "How long a 'denied' answer is cached.", validate: nonNegative }),
  ),
  'bootstrap-svcconfig': flag.string({
    valueName: 'path',
    meaning: 'A svcconfig used to obtain a client certificate when the --svcconfig file does not exist; the latter is then written, naming the certificate and key stored in --cert-dir.',
  }),
  'rotate-certificates': viaConfig('rotateCertificates', flag.bool({ meaning: 'Request a new client certificate as the current one nears expiry.' })),
  'rotate-server-certificates': viaConfig(
    'serverTLSBootstrap',
    flag.bool({ meaning: 'Request and rotate the serving certificate through CertificateSigningRequests; needs the RotateNodeAgentServerCertificate gate.' }),
  ),

  // Limits
  'max-pods': viaConfig('maxPods', flag.int32({ default: 110, meaning: 'Pods the node can run.', validate: nonNegative })),
  'pods-per-core': viaConfig('podsPerCore', flag.int32({ default: 0, meaning: 'Pods per core, capped by --max-pods; 0 disables.', validate: nonNegative })),
  'pod-max-pids': viaConfig('podPidsLimit', flag.int({ default: -1, meaning: 'The most processes in one pod; -1: the node allocatable pid capacity.', validate: (n) => (n >= -1 ? undefined : 'must be -1 or more') })),
  'max-open-files': viaConfig('maxOpenFiles', flag.int({ default: 1_000_000, meaning: 'Files the agent process may open.', validate: (n) => (n > 0 ? undefined : 'must be positive') })),
  'container-log-max-files': viaConfig('containerLogMaxFiles', flag.int32({ default: 5, meaning: '(beta) Log files kept per container; at least 2.', validate: (n) => (n >= 2 ? undefined : 'must be at least 2') })),
  'container-log-max-size': viaConfig(
    'containerLogMaxSize',
    flag.string({ default: '10Mi', valueName: 'quantity', meaning: 'The size at which a container log is rotated (a quantity: 10Mi, 512Ki).', validate: (q) => (quantityValue(q) === undefined ? 'not a quantity such as 10Mi' : undefined) }),
  ),
  'svc-api-qps': viaConfig('svcAPIQPS', flag.int32({ default: 50, meaning: 'API queries per second (events and node heartbeats excluded); 0 uses 50.', validate: nonNegative })),
  'svc-api-burst': viaConfig('svcAPIBurst', flag.int32({ default: 100, meaning: 'API burst; 0 uses 100.', validate: nonNegative })),
  'svc-api-content-type': viaConfig(
    'contentType',
    flag.enum(['application/vnd.svc.protobuf', 'application/json'], { default: 'application/vnd.svc.protobuf', meaning: 'The content type of requests to the API server.' }),
  ),
  'event-qps': viaConfig('eventRecordQPS', flag.int32({ default: 50, meaning: 'Events created per second; 0 uses 5.', validate: nonNegative })),
  'event-burst': viaConfig('eventBurst', flag.int32({ default: 100, meaning: 'Event burst; 0 uses 10.', validate: nonNegative })),
  'registry-qps': viaConfig('registryPullQPS', flag.int32({ default: 5, meaning: 'Image pulls per second, when above 0; 0: unlimited.', validate: nonNegative })),
  'registry-burst': viaConfig('registryBurst', flag.int32({ default: 10, meaning: 'Image pull burst; used only when --registry-qps is above 0.', validate: nonNegative })),
  'runtime-request-timeout': viaConfig(
    'runtimeRequestTimeout',
    flag.duration({ default: 120_000, meaning: 'The timeout of runtime requests other than pull, logs, exec and attach; past it the request is cancelled and retried later.', validate: positiveDuration }),
  ),
  'image-gc-high-threshold': viaConfig('imageGCHighThresholdPercent', flag.int32({ default: 85, meaning: 'Disk usage percentage above which image garbage collection always runs; 100 disables it.', validate: percent })),
  'image-gc-low-threshold': viaConfig('imageGCLowThresholdPercent', flag.int32({ default: 80, meaning: 'Disk usage percentage below which it never runs; below the high threshold.', validate: percent })),
  'node-status-max-images': viaConfig('nodeStatusMaxImages', flag.int32({ default: 50, meaning: 'Images reported in the node status; -1: no cap.', validate: (n) => (n >= -1 ? undefined : 'must be -1 or more') })),
  'volume-stats-agg-period': viaConfig('volumeStatsAggPeriod', flag.duration({ default: 60_000, meaning: 'How often volume usage is computed; negative disables.' })),
  'eviction-hard': viaConfig(
    'evictionHard',
    flag.map('string', { meaning: 'Hard eviction thresholds, as signal=quantity or percentage (memory.available=100Mi, nodefs.available=10%, ...).' }),
  ),
  'eviction-soft': viaConfig('evictionSoft', flag.map('string', { meaning: 'Soft eviction thresholds: evict when one holds for its grace period.' })),
  'eviction-soft-grace-period': viaConfig('evictionSoftGracePeriod', flag.map('string', { meaning: 'Grace periods of the soft thresholds, as signal=duration.' })),
  'eviction-minimum-reclaim': viaConfig('evictionMinimumReclaim', flag.map('string', { meaning: 'The least amount reclaimed by an eviction, as signal=quantity.' })),
  'eviction-max-pod-grace-period': viaConfig('evictionMaxPodGracePeriod', flag.int32({ default: 0, meaning: "The longest grace period of a soft eviction, in seconds; negative: the pod's own." })),
  'eviction-pressure-transition-period': viaConfig(
    'evictionPressureTransitionPeriod',
    flag.duration({ default: 300_000, meaning: 'How long to wait before leaving a pressure condition.', validate: nonNegative }),
  ),
  'svc-reserved': viaConfig('svcReserved', flag.map('string', { meaning: 'Resources reserved for svc components: cpu, memory, pid and ephemeral-storage only.' })),
  'system-reserved': viaConfig('systemReserved', flag.map('string', { meaning: 'Resources reserved for the other system components: cpu, memory, pid and ephemeral-storage only.' })),
  'reserved-cpus': viaConfig('reservedSystemCPUs', flag.string({ valueName: 'cpus', meaning: 'CPUs (or ranges: 0-3,8) reserved for the system; supersedes the cpu of --svc-reserved and --system-reserved.' })),
  'reserved-memory': viaConfig(
    'reservedMemory',
    flag.stringSlice({
      valueName: 'numa-node=type=quantity',
      meaning: 'Memory reserved per NUMA node, as <numa-node>:<type>=<quantity>[,<type>=<quantity>]; repeatable. The sum per type must equal svc-reserved + system-reserved + the hard eviction threshold.',
    }),
  ),
});

export type NodeAgentFlags = FlagValues<typeof nodeAgentFlags>;
export type NodeAgentFlagName = keyof typeof nodeAgentFlags & string;

/** The config-file field of an option, when it has one. */
export function configFieldOf(name: NodeAgentFlagName): string | undefined {
  const spec = nodeAgentFlags[name] as FlagSpec & Partial<ConfigFieldRow>;
  return spec.configField;
}

export const nodeAgentDoc: CommandDoc = {
  name: 'nodeagent',
  usage: 'nodeagent [flags]',
  summary:
    'Registers its node with the API server and runs the pods bound to it (and static pods) through a CRI container runtime. Options come from the defaults, then the --config file, then the --config-dir drop-ins, then the command line.',
  source: 'src/cli/nodeagent-flags.ts',
};
