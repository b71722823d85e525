import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { renderHelp } from '../../src/cli/flag-docs.js';
import { FlagError } from '../../src/cli/flags.js';
import type { FlagSpec } from '../../src/cli/flag-spec.js';
import { CONFIG_API_VERSION, configFields, resolveNodeAgentOptions } from '../../src/cli/nodeagent-config.js';
import { prepareNodeAgent } from '../../src/cli/nodeagent-command.js';
import { configFieldOf, nodeAgentDoc, nodeAgentFlags, type NodeAgentFlagName, type NodeAgentFlags } from '../../src/cli/nodeagent-flags.js';
import { checkHost, effectiveRates, type HostFacts, nodeLabelAllowed, notBuiltNotices, readHostFacts, validateNodeAgentOptions } from '../../src/cli/nodeagent-validate.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-nodeagent-options-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let fileCount = 0;
const file = (text: string, name = `config-${++fileCount}.yaml`, inDir = dir): string => {
  const path = join(inDir, name);
  writeFileSync(path, text);
  return path;
};
const header = `apiVersion: ${CONFIG_API_VERSION}\nkind: NodeAgentConfiguration\n`;
const resolve = (argv: string[]) => resolveNodeAgentOptions(argv, dir);
const values = (argv: string[] = []) => resolve(argv).values;
const HEALTHY_HOST: HostFacts = { swapDevices: 0, cgroupVersion: 2 };

/** The spec's defaults (durations in ms). */
const SPEC_DEFAULTS: Partial<Record<NodeAgentFlagName, unknown>> = {
  'root-dir': '/var/lib/nodeagent',
  'register-node': true,
  'file-check-frequency': 20_000,
  'http-check-frequency': 20_000,
  'sync-frequency': 60_000,
  'node-status-update-frequency': 10_000,
  'container-runtime-endpoint': 'unix:///run/containerd/containerd.sock',
  'cgroup-driver': 'cgroupfs',
  'cgroups-per-qos': true,
  'enforce-node-allocatable': ['pods'],
  'cpu-cfs-quota': true,
  'cpu-cfs-quota-period': 100,
  'cpu-manager-policy': 'none',
  'memory-manager-policy': 'None',
  'topology-manager-policy': 'none',
  'topology-manager-scope': 'container',
  'serialize-image-pulls': true,
  'enable-controller-attach-detach': true,
  'volume-plugin-dir': '/usr/libexec/svc/nodeagent-plugins/volume/exec/',
  'experimental-allocatable-ignore-eviction': false,
  'local-storage-capacity-isolation': true,
  'make-iptables-util-chains': true,
  'hairpin-mode': 'promiscuous-bridge',
  'resolv-conf': '/etc/resolv.conf',
  'fail-swap-on': true,
  'fail-cgroupv1': true,
  'oom-score-adj': -999,
  'maximum-dead-containers': -1,
  'maximum-dead-containers-per-container': 1,
  'minimum-image-ttl-duration': 120_000,
  'log-flush-frequency': 5_000,
  'logging-format': 'text',
  'enable-server': true,
  address: '0.0.0.0',
  port: 10250,
  'read-only-port': 10255,
  'healthz-bind-address': '127.0.0.1',
  'healthz-port': 10248,
  'enable-debugging-handlers': true,
  'streaming-connection-idle-timeout': 4 * 3_600_000,
  'cert-dir': '/var/lib/nodeagent/pki',
  'anonymous-auth': true,
  'authentication-token-webhook-cache-ttl': 120_000,
  'authorization-mode': 'AlwaysAllow',
  'authorization-webhook-cache-authorized-ttl': 300_000,
  'authorization-webhook-cache-unauthorized-ttl': 30_000,
  'max-pods': 110,
  'pod-max-pids': -1,
  'max-open-files': 1_000_000,
  'container-log-max-files': 5,
  'container-log-max-size': '10Mi',
  'svc-api-qps': 50,
  'svc-api-burst': 100,
  'svc-api-content-type': 'application/vnd.svc.protobuf',
  'event-qps': 50,
  'event-burst': 100,
  'registry-qps': 5,
  'registry-burst': 10,
  'runtime-request-timeout': 120_000,
  'image-gc-high-threshold': 85,
  'image-gc-low-threshold': 80,
  'node-status-max-images': 50,
  'volume-stats-agg-period': 60_000,
  'eviction-pressure-transition-period': 300_000,
};

/** Every option the spec lists (its four tables). */
const SPEC_OPTIONS = [
  'config', 'config-dir', 'svcconfig', 'hostname-override', 'node-ip', 'node-labels', 'provider-id', 'register-node', 'register-with-taints',
  'cloud-provider', 'root-dir', 'pod-manifest-path', 'manifest-url', 'manifest-url-header', 'file-check-frequency', 'http-check-frequency',
  'sync-frequency', 'runonce', 'lock-file', 'exit-on-lock-contention', 'pod-cidr', 'node-status-update-frequency', 'container-runtime-endpoint',
  'image-service-endpoint', 'runtime-cgroups', 'cgroup-driver', 'cgroup-root', 'cgroups-per-qos', 'svc-reserved-cgroup', 'system-reserved-cgroup',
  'nodeagent-cgroups', 'system-cgroups', 'enforce-node-allocatable', 'cpu-cfs-quota', 'cpu-cfs-quota-period', 'cpu-manager-policy',
  'cpu-manager-policy-options', 'cpu-manager-reconcile-period', 'memory-manager-policy', 'topology-manager-policy', 'topology-manager-policy-options',
  'topology-manager-scope', 'qos-reserved', 'allowed-unsafe-sysctls', 'protect-kernel-defaults', 'seccomp-default', 'serialize-image-pulls',
  'image-credential-provider-bin-dir', 'image-credential-provider-config', 'enable-controller-attach-detach', 'volume-plugin-dir',
  'experimental-mounter-path', 'experimental-allocatable-ignore-eviction', 'local-storage-capacity-isolation', 'kernel-memcg-notification',
  'make-iptables-util-chains', 'hairpin-mode', 'resolv-conf', 'cluster-dns', 'cluster-domain', 'fail-swap-on', 'fail-cgroupv1', 'oom-score-adj',
  'maximum-dead-containers', 'maximum-dead-containers-per-container', 'minimum-container-ttl-duration', 'minimum-image-ttl-duration',
  'feature-gates', 'version', 'v', 'vmodule', 'log-flush-frequency', 'logging-format', 'log-text-info-buffer-size', 'log-text-split-stream',
  'contention-profiling', 'enable-server', 'address', 'port', 'read-only-port', 'healthz-bind-address', 'healthz-port', 'enable-debugging-handlers',
  'streaming-connection-idle-timeout', 'tls-cert-file', 'tls-private-key-file', 'tls-cipher-suites', 'tls-min-version', 'cert-dir', 'anonymous-auth',
  'client-ca-file', 'authentication-token-webhook', 'authentication-token-webhook-cache-ttl', 'authorization-mode',
  'authorization-webhook-cache-authorized-ttl', 'authorization-webhook-cache-unauthorized-ttl', 'bootstrap-svcconfig', 'rotate-certificates',
  'rotate-server-certificates', 'max-pods', 'pods-per-core', 'pod-max-pids', 'max-open-files', 'container-log-max-files', 'container-log-max-size',
  'svc-api-qps', 'svc-api-burst', 'svc-api-content-type', 'event-qps', 'event-burst', 'registry-qps', 'registry-burst', 'runtime-request-timeout',
  'image-gc-high-threshold', 'image-gc-low-threshold', 'node-status-max-images', 'volume-stats-agg-period', 'eviction-hard', 'eviction-soft',
  'eviction-soft-grace-period', 'eviction-minimum-reclaim', 'eviction-max-pod-grace-period', 'eviction-pressure-transition-period', 'svc-reserved',
  'system-reserved', 'reserved-cpus', 'reserved-memory',
] as const;

/**
 * svc's own options beyond the spec, each for a need the spec leaves open: the node's registry
 * configuration (mirrors, rewrites, hosts.toml for the runtime; docs/node-agent-config.md).
 */
const SVC_OPTIONS = ['registry-config', 'registry-hosts-dir'] as const;

/** The options the spec marks (X): deprecated for their own reason, not for the config file. */
const X_OPTIONS = ['experimental-mounter-path', 'experimental-allocatable-ignore-eviction', 'maximum-dead-containers', 'maximum-dead-containers-per-container', 'minimum-container-ttl-duration'];
/** Unmarked options: no deprecation notice. */
const UNMARKED = [
  'config', 'config-dir', 'svcconfig', 'hostname-override', 'node-ip', 'node-labels', 'cloud-provider', 'root-dir', 'lock-file', 'exit-on-lock-contention',
  'runtime-cgroups', 'seccomp-default', 'image-credential-provider-bin-dir', 'image-credential-provider-config', 'fail-cgroupv1', 'feature-gates', 'version',
  'v', 'vmodule', 'log-flush-frequency', 'tls-cipher-suites', 'cert-dir', 'bootstrap-svcconfig', ...SVC_OPTIONS,
];

describe('nodeagent options: the table', () => {
  it('has every option of the spec, and no other', () => {
    expect(Object.keys(nodeAgentFlags).sort()).toEqual([...SPEC_OPTIONS, ...SVC_OPTIONS].sort());
  });

  it('defaults every option as the spec says', () => {
    const defaults = values();
    for (const [name, expected] of Object.entries(SPEC_DEFAULTS)) {
      const key = name.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase()) as keyof NodeAgentFlags;
      expect([name, defaults[key]]).toEqual([name, expected]);
    }
  });

  it('lists every option in --help, and exits 0', () => {
    const out: string[] = [];
    expect(prepareNodeAgent(['--help'], { out: (l) => out.push(l), err: () => {} }, HEALTHY_HOST)).toBe(0);
    const help = out.join('\n');
    expect(help).toBe(renderHelp(nodeAgentDoc, nodeAgentFlags).trimEnd());
    for (const name of SPEC_OPTIONS) expect(help).toContain(`--${name}`);
  });

  it('marks the (D) options deprecated in favour of their config field, the (X) ones with their reason, and leaves the rest unmarked', () => {
    for (const name of SPEC_OPTIONS) {
      const spec: FlagSpec = nodeAgentFlags[name];
      if (UNMARKED.includes(name)) expect([name, spec.deprecated]).toEqual([name, undefined]);
      else if (X_OPTIONS.includes(name)) expect([name, spec.deprecated, configFieldOf(name)]).toEqual([name, expect.stringMatching(/removed|eviction/), undefined]);
      else expect([name, spec.deprecated]).toEqual([name, expect.stringContaining(`"${configFieldOf(name)}"`)]);
    }
    const warned = resolve(['--max-pods=20', '--experimental-mounter-path=/bin/mount', '--seccomp-default']);
    expect(warned.warnings).toEqual([
      'Flag --max-pods has been deprecated, set "maxPods" in the file given by --config instead (this flag still works and overrides the file)',
      'Flag --experimental-mounter-path has been deprecated, it will be removed in 1.25 or later, in favour of CSI',
    ]);
  });

  it('documents every config field', () => {
    const page = readFileSync(new URL('../../docs/node-agent-config.md', import.meta.url), 'utf8');
    for (const [field, name] of configFields()) expect(page).toContain(`| \`${field}\` | \`--${name}\` |`);
  });
});

describe('nodeagent options: per-option rules', () => {
  const rejects = (argv: string[], message: RegExp) => expect(() => resolve(argv)).toThrow(message);

  it('checks ranges, enums and formats of single options', () => {
    rejects(['--oom-score-adj=-1001'], /within \[-1000, 1000\]/);
    rejects(['--oom-score-adj=1001'], /within \[-1000, 1000\]/);
    rejects(['--container-log-max-files=1'], /at least 2/);
    rejects(['--image-gc-high-threshold=101'], /between 0 and 100/);
    rejects(['--image-gc-low-threshold=-1'], /between 0 and 100/);
    rejects(['--svc-api-qps=-1'], /must not be negative/);
    rejects(['--event-burst=-5'], /must not be negative/);
    rejects(['--registry-qps=-1'], /must not be negative/);
    rejects(['--port=0'], /between 1 and 65535/);
    rejects(['--read-only-port=70000'], /between 0 and 65535/);
    rejects(['--logging-format=json'], /must be one of text/);
    rejects(['--cgroup-driver=both'], /cgroupfs, systemd/);
    rejects(['--authorization-mode=RBAC'], /AlwaysAllow, Webhook/);
    rejects(['--hairpin-mode=on'], /promiscuous-bridge/);
    rejects(['--tls-min-version=VersionTLS09'], /VersionTLS10/);
    rejects(['--node-ip=10.0.0.300'], /not an IP/);
    rejects(['--node-ip=10.0.0.1,10.0.0.2'], /different families/);
    rejects(['--cluster-dns=1.2.3.4,dns'], /not an IP/);
    rejects(['--manifest-url-header=NoColon'], /Name:value/);
    rejects(['--manifest-url=not a url'], /--manifest-url.*http:\/\/ or https:\/\/ URL/);
    rejects(['--manifest-url=ftp://host/pods.yaml'], /http:\/\/ or https:\/\/ URL/);
    expect(values(['--manifest-url=https://host:8443/pods?node=a']).manifestUrl).toBe('https://host:8443/pods?node=a');
    rejects(['--container-log-max-size=ten'], /quantity/);
    rejects(['--sync-frequency=soon'], /not a duration/);
    rejects(['--max-pods=many'], /not an integer/);
    rejects(['--pod-max-pids=-2'], /-1 or more/);
    rejects(['--no-such-flag'], /unknown flag/);
  });

  it('applies the "0 uses N" rules of the rate options', () => {
    expect(effectiveRates(values(['--svc-api-qps=0', '--svc-api-burst=0', '--event-qps=0', '--event-burst=0', '--registry-qps=0']))).toEqual({
      apiQps: 50,
      apiBurst: 100,
      eventQps: 5,
      eventBurst: 10,
      registry: undefined,
    });
    expect(effectiveRates(values(['--registry-qps=3', '--registry-burst=7'])).registry).toEqual({ qps: 3, burst: 7 });
  });
});

describe('nodeagent options: rules across options', () => {
  const invalid = (argv: string[], message: RegExp) => expect(() => validateNodeAgentOptions(values(argv))).toThrow(message);
  const valid = (argv: string[]) => expect(() => validateNodeAgentOptions(values(argv))).not.toThrow();

  it('makes --runonce exclusive with --enable-server', () => {
    invalid(['--runonce'], /--runonce: is exclusive with --enable-server/);
    valid(['--runonce', '--enable-server=false']);
  });

  it('keeps the image GC low threshold below the high one', () => {
    invalid(['--image-gc-low-threshold=85'], /must be below --image-gc-high-threshold \(85\)/);
    invalid(['--image-gc-high-threshold=50', '--image-gc-low-threshold=60'], /image-gc-low-threshold/);
    valid(['--image-gc-high-threshold=100', '--image-gc-low-threshold=99']);
  });

  it('wants none alone in --enforce-node-allocatable, and the cgroup option of each reserved entry', () => {
    invalid(['--enforce-node-allocatable=none,pods'], /"none" must stand alone/);
    invalid(['--enforce-node-allocatable=pods,gpus'], /unknown value "gpus"/);
    invalid(['--enforce-node-allocatable=pods,system-reserved'], /needs --system-reserved-cgroup/);
    invalid(['--enforce-node-allocatable=svc-reserved-compressible'], /needs --svc-reserved-cgroup/);
    valid(['--enforce-node-allocatable=none']);
    valid(['--enforce-node-allocatable=pods,system-reserved,svc-reserved', '--system-reserved-cgroup=/system', '--svc-reserved-cgroup=/svc']);
  });

  it('allows node labels in the svc.io namespace only with an allowed prefix or a well-known key', () => {
    expect(nodeLabelAllowed('team')).toBe(true);
    expect(nodeLabelAllowed('example.com/rack')).toBe(true);
    expect(nodeLabelAllowed('node.svc.io/pool')).toBe(true);
    expect(nodeLabelAllowed('nodeagent.svc.io/x')).toBe(true);
    expect(nodeLabelAllowed('topology.svc.io/zone')).toBe(true);
    expect(nodeLabelAllowed('svc.io/hostname')).toBe(true);
    expect(nodeLabelAllowed('svc.io/role')).toBe(false);
    expect(nodeLabelAllowed('node-role.svc.io/master')).toBe(false);
    invalid(['--node-labels=svc.io/role=admin'], /--node-labels: "svc.io\/role" is in the svc.io namespace/);
    valid(['--node-labels=node.svc.io/pool=a,team=x']);
  });

  it('reads taints, pod CIDRs, reservations, eviction thresholds and gated options', () => {
    invalid(['--register-with-taints=dedicated'], /not of the form <key>=<value>:<effect>/);
    invalid(['--register-with-taints=a=b:Sometimes'], /NoSchedule, PreferNoSchedule or NoExecute/);
    valid(['--register-with-taints=a=b:NoSchedule,c:NoExecute']);
    invalid(['--pod-cidr=10.0.0.0'], /not a CIDR/);
    invalid(['--pod-cidr=fd00::/64'], /more than 65536 addresses/);
    valid(['--pod-cidr=fd00::/112']);
    valid(['--pod-cidr=10.42.0.0/24']);
    invalid(['--svc-reserved=gpu=1'], /only cpu, memory, pid and ephemeral-storage/);
    invalid(['--system-reserved=memory=lots'], /not a quantity/);
    valid(['--svc-reserved=cpu=100m,memory=256Mi,pid=1000,ephemeral-storage=1Gi']);
    invalid(['--eviction-hard=memory.free=1Gi'], /unknown eviction signal/);
    invalid(['--eviction-hard=nodefs.available=120%'], /percentage up to 100%/);
    invalid(['--eviction-soft=memory.available=1Gi'], /no grace period/);
    valid(['--eviction-soft=memory.available=1Gi', '--eviction-soft-grace-period=memory.available=1m30s', '--eviction-hard=nodefs.available=10%']);
    invalid(['--qos-reserved=memory=50%'], /QOSReserved feature gate/);
    invalid(['--qos-reserved=cpu=50%', '--feature-gates=QOSReserved=true'], /only memory/);
    valid(['--qos-reserved=memory=50%', '--feature-gates=QOSReserved=true']);
    invalid(['--log-text-split-stream'], /LoggingAlphaOptions/);
    invalid(['--reserved-cpus=all'], /not a CPU list/);
    invalid(['--reserved-memory=zero'], /<numa-node>:<type>=<quantity>/);
    invalid(['--cpu-manager-policy=static'], /--cpu-manager-policy: static needs reserved CPUs/);
    invalid(['--cpu-manager-policy=static', '--reserved-cpus=0', '--cpu-manager-policy-options=bogus=true'], /--cpu-manager-policy-options: unsupported CPU manager policy option "bogus"/);
    invalid(['--topology-manager-policy-options=max-allowable-numa-nodes=2'], /--topology-manager-policy-options: .*at least 8/);
    invalid(['--memory-manager-policy=Static'], /--memory-manager-policy: Static needs --reserved-memory/);
    invalid(['--reserved-memory=0:cpu=1'], /--reserved-memory: .*not memory or a hugepages size/);
    invalid(['--cloud-provider=aws'], /only empty/);
    invalid(['--tls-cert-file=/c.pem'], /--tls-private-key-file: is required/);
  });

  it('gives no notice for the resource managers (CPU, memory, topology), which are built', () => {
    const o = values(['--cpu-manager-policy=static', '--reserved-cpus=0', '--memory-manager-policy=Static', '--topology-manager-policy=best-effort', '--reserved-memory=0:memory=100Mi', '--rotate-certificates']);
    validateNodeAgentOptions(o);
    // Certificate rotation is built (docs/node-agent.md): no notice for it either.
    expect(notBuiltNotices(o)).toEqual([]);
    expect(notBuiltNotices(values())).toEqual([]);
  });
});

describe('nodeagent options: config file and drop-ins', () => {
  it('reads a NodeAgentConfiguration, nested fields included, and flags override it', () => {
    const config = file(
      `${header}maxPods: 42\nfileCheckFrequency: 5s\nstaticPodPath: /etc/pods\nevictionHard: {memory.available: 200Mi}\nregisterWithTaints:\n- {key: dedicated, value: infra, effect: NoSchedule}\nstaticPodURLHeader: {X-Token: [a, b]}\nauthentication:\n  anonymous: {enabled: false}\n  x509: {clientCAFile: /ca.pem}\nlogging: {format: text}\n`,
    );
    const resolved = resolve(['--config', config, '--max-pods=7']);
    expect(resolved.values).toMatchObject({
      maxPods: 7,
      fileCheckFrequency: 5_000,
      podManifestPath: '/etc/pods',
      evictionHard: { 'memory.available': '200Mi' },
      registerWithTaints: ['dedicated=infra:NoSchedule'],
      manifestUrlHeader: ['X-Token:a', 'X-Token:b'],
      anonymousAuth: false,
      clientCaFile: '/ca.pem',
    });
    expect(resolved.sources.get('max-pods')).toBe('flag');
    expect(resolved.sources.get('file-check-frequency')).toBe('config');
    expect(resolved.files).toEqual([config]);
  });

  it('applies drop-ins in lexical order over the file, merging maps, and flags over all', () => {
    const config = file(`${header}maxPods: 10\nsyncFrequency: 30s\nevictionHard: {memory.available: 100Mi, nodefs.available: 10%}\n`);
    const dropIns = join(dir, 'drop-ins');
    mkdirSync(dropIns);
    file(`${header}maxPods: 30\nevictionHard: {nodefs.available: 5%}\n`, '20-second.conf', dropIns);
    file(`${header}maxPods: 20\nsyncFrequency: 45s\n`, '10-first.conf', dropIns);
    file(`${header}maxPods: 99\n`, '.hidden.conf', dropIns);
    file(`${header}maxPods: 98\n`, 'notes.yaml', dropIns);
    const resolved = resolve(['--config', config, '--config-dir', dropIns]);
    expect(resolved.values.maxPods).toBe(30);
    expect(resolved.values.syncFrequency).toBe(45_000);
    expect(resolved.values.evictionHard).toEqual({ 'memory.available': '100Mi', 'nodefs.available': '5%' });
    expect(resolved.files.map((f) => f.slice(f.lastIndexOf('/') + 1))).toEqual([config.slice(config.lastIndexOf('/') + 1), '10-first.conf', '20-second.conf']);
    expect(resolved.sources.get('max-pods')).toBe('drop-in');
    expect(resolve(['--config', config, '--config-dir', dropIns, '--max-pods', '5']).values.maxPods).toBe(5);
  });

  it('refuses unknown fields, wrong types, bad values, wrong kinds and malformed files, naming the file and field', () => {
    const bad = (body: string, message: RegExp) => {
      const path = file(body);
      expect(() => resolve(['--config', path])).toThrow(FlagError);
      expect(() => resolve(['--config', path])).toThrow(message);
    };
    bad(`${header}maxPod: 3\n`, /unknown field "maxPod"/);
    bad(`${header}authentication: {x509: {clientCAFiles: /x}}\n`, /unknown field "authentication.x509.clientCAFiles"/);
    bad(`${header}maxPods: "3"\n`, /field "maxPods": must be a number/);
    bad(`${header}fileCheckFrequency: 20\n`, /must be a duration string/);
    bad(`${header}fileCheckFrequency: soon\n`, /not a duration/);
    bad(`${header}containerLogMaxFiles: 1\n`, /at least 2/);
    bad(`${header}cgroupDriver: both\n`, /must be one of cgroupfs, systemd/);
    bad(`${header}failSwapOn: "no"\n`, /must be true or false/);
    bad(`${header}registerWithTaints: [{value: x}]\n`, /each taint needs a key and an effect/);
    bad(`${header}evictionHard: [a]\n`, /must be a map/);
    bad(`apiVersion: v1\nkind: NodeAgentConfiguration\n`, /apiVersion must be nodeagent.config.svc.io\/v1/);
    bad(`apiVersion: ${CONFIG_API_VERSION}\nkind: KubeletConfiguration\n`, /kind must be NodeAgentConfiguration/);
    bad(`${header}maxPods: 1\nmaxPods: 2\n`, /not valid YAML or JSON/);
    bad(`${header}---\n${header}`, /exactly one NodeAgentConfiguration/);
    bad(`[1, 2]\n`, /must hold an object/);
    bad(`${header}maxPods: [\n`, /not valid YAML or JSON/);
    expect(() => resolve(['--config', join(dir, 'absent.yaml')])).toThrow(/cannot read the config file/);
    expect(() => resolve(['--config-dir', join(dir, 'absent')])).toThrow(/cannot read --config-dir/);
  });

  it('reads JSON config files too', () => {
    const path = file(JSON.stringify({ apiVersion: CONFIG_API_VERSION, kind: 'NodeAgentConfiguration', maxPods: 12, featureGates: { QOSReserved: true } }), 'config.json');
    expect(values(['--config', path])).toMatchObject({ maxPods: 12, featureGates: { QOSReserved: true } });
  });

  it('checks rules across options whatever source set each value', () => {
    const path = file(`${header}imageGCHighThresholdPercent: 60\n`);
    expect(() => validateNodeAgentOptions(values(['--config', path, '--image-gc-low-threshold=70']))).toThrow(/below --image-gc-high-threshold \(60\)/);
  });
});

describe('nodeagent command: exit codes, version and host checks', () => {
  const run = (argv: string[], host = HEALTHY_HOST) => {
    const out: string[] = [];
    const err: string[] = [];
    const result = prepareNodeAgent(argv, { out: (l) => out.push(l), err: (l) => err.push(l) }, host);
    return { result, out, err };
  };

  it('exits 1 with the reason on a bad option, a bad file or a failed rule', () => {
    for (const argv of [['--max-pods=x'], ['--config', join(dir, 'absent.yaml')], ['--runonce'], ['--bogus']]) {
      const { result, err } = run(argv);
      expect(result).toBe(1);
      expect(err.filter((line) => !line.startsWith('warning: '))[0]).toMatch(/^nodeagent: /);
      expect(err.at(-1)).toBe("Run 'nodeagent --help' for usage.");
    }
  });

  it('reads --registry-config (or registryConfig) at start: a bad or missing file exits 1 naming it', () => {
    const good = file('mirrors:\n  docker.io:\n    endpoint: ["http://127.0.0.1:5000"]\n    rewrite: { "^library/(.*)": "hub/$1" }\n');
    const fromFlag = run([`--registry-config=${good}`]).result;
    expect(fromFlag).toMatchObject({ registries: { mirrors: { 'docker.io': { endpoint: ['http://127.0.0.1:5000'] } } } });
    const fromConfig = run(['--config', file(`${header}registryConfig: ${good}\nregistryHostsDir: /etc/containerd/certs.d\n`)]).result;
    expect(fromConfig).toMatchObject({ registries: { mirrors: { 'docker.io': {} } }, options: { values: { registryHostsDir: '/etc/containerd/certs.d' } } });
    for (const [path, message] of [
      [file('mirrors:\n  "*": { endpoint: [http://127.0.0.1:5000] }\n'), /"\*" is not supported/],
      [join(dir, 'no-registries.yaml'), /no-registries\.yaml: cannot be read/],
    ] as const) {
      const { result, err } = run([`--registry-config=${path}`]);
      expect(result).toBe(1);
      expect(err.find((line) => line.startsWith('nodeagent: '))).toMatch(message);
    }
  });

  it('prints the version for --version, --version=true and --version=raw, and reports another value', () => {
    expect(run(['--version']).out[0]).toMatch(/^nodeagent v\d+\.\d+\.\d+/);
    expect(run(['--version=true']).result).toBe(0);
    expect(JSON.parse(run(['--version=raw']).out[0]!)).toMatchObject({ gitVersion: expect.stringMatching(/^v/) });
    const reported = run(['--version=v9.9.9', '--fail-cgroupv1=false']).result;
    expect(reported).toMatchObject({ version: 'v9.9.9' });
  });

  it('warns about deprecated and not-built options on stderr and goes on', () => {
    const { result, err } = run(['--max-pods=20', '--cloud-provider=external', '--cpu-manager-policy=static', '--reserved-cpus=0']);
    expect(typeof result).toBe('object');
    expect(err).toContain('warning: Flag --max-pods has been deprecated, set "maxPods" in the file given by --config instead (this flag still works and overrides the file)');
    expect(err.some((line) => line.startsWith('warning: --cloud-provider=external: no cloud provider runs'))).toBe(true);
    // The CPU manager is built: its policy draws no notice.
    expect(err.some((line) => line.startsWith('warning: --cpu-manager-policy'))).toBe(false);
  });

  it('refuses swap and cgroup v1 unless told not to', () => {
    const swap: HostFacts = { swapDevices: 1, cgroupVersion: 2 };
    const v1: HostFacts = { swapDevices: 0, cgroupVersion: 1 };
    expect(() => checkHost(values(), swap)).toThrow(/swap is on/);
    expect(() => checkHost(values(['--fail-swap-on=false']), swap)).not.toThrow();
    expect(() => checkHost(values(), v1)).toThrow(/cgroup v1/);
    expect(() => checkHost(values(['--fail-cgroupv1=false']), v1)).not.toThrow();
    expect(run([], v1).result).toBe(1);
    const configured = file(`${header}failCgroupV1: false\nfailSwapOn: false\n`);
    expect(typeof run(['--config', configured], { swapDevices: 2, cgroupVersion: 1 }).result).toBe('object');
  });

  it('reads this host: the cgroup version and swap as /proc and /sys say', () => {
    const facts = readHostFacts();
    expect([1, 2]).toContain(facts.cgroupVersion);
    expect(facts.swapDevices).toBeGreaterThanOrEqual(0);
    // On this machine (cgroup v1) the default refuses to start, as the spec wants.
    if (facts.cgroupVersion === 1) expect(() => checkHost(values(['--fail-swap-on=false']), facts)).toThrow(/cgroup v1/);
  });
});
