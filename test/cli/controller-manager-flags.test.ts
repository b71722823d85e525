// svc-controller-manager's options: every default the spec's tables give, every rule they state,
// --help, --version and the --controllers matrix. Parsing only: nothing is started here.
import { describe, expect, it } from 'vitest';
import { CONTROLLER_NAMES, DISABLED_BY_DEFAULT, selectControllers } from '../../controllers/manager/index.js';
import { main, parseControllerManagerArgs } from '../../src/cli/controller-manager-command.js';
import { controllerManagerFlags } from '../../src/cli/controller-manager-flags.js';
import { FlagError } from '../../src/cli/flags.js';
import { main as svc } from '../../src/cli/svc-command.js';

const API = '--master=https://127.0.0.1:6443';
const parse = (...argv: string[]) => parseControllerManagerArgs([API, ...argv]);

function rejects(argv: string[], flag: string, withApi = true): FlagError {
  try {
    parseControllerManagerArgs(withApi ? [API, ...argv] : argv);
  } catch (error) {
    expect(error).toBeInstanceOf(FlagError);
    expect((error as FlagError).flag).toBe(flag);
    return error as FlagError;
  }
  throw new Error(`no error for ${argv.join(' ')}`);
}

async function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

const s = 1000;
const m = 60 * s;
const h = 60 * m;

// Every option of the spec's tables with the default it states (undefined: none stated).
const SPEC_DEFAULTS: Record<string, unknown> = {
  'allocate-node-cidrs': false, 'cluster-cidr': undefined, 'service-cluster-ip-range': undefined, 'cidr-allocator-type': 'RangeAllocator',
  'node-cidr-mask-size': undefined, 'node-cidr-mask-size-ipv4': undefined, 'node-cidr-mask-size-ipv6': undefined, 'configure-cloud-routes': true,
  'cloud-config': undefined, 'cloud-provider': undefined, 'external-cloud-volume-plugin': undefined, 'cluster-name': 'svc',
  master: 'https://127.0.0.1:6443', svcconfig: undefined, 'svc-api-content-type': 'application/vnd.svc.protobuf',
  'route-reconciliation-period': 10 * s, 'node-monitor-period': 5 * s, 'node-monitor-grace-period': 50 * s, 'node-startup-grace-period': 1 * m,
  'endpoint-updates-batch-period': undefined, 'endpointslice-updates-batch-period': undefined, 'mirroring-endpointslice-updates-batch-period': undefined,
  'cluster-signing-cert-file': undefined, 'cluster-signing-key-file': undefined,
  'cluster-signing-svc-apiserver-client-cert-file': undefined, 'cluster-signing-svc-apiserver-client-key-file': undefined,
  'cluster-signing-nodeagent-client-cert-file': undefined, 'cluster-signing-nodeagent-client-key-file': undefined,
  'cluster-signing-nodeagent-serving-cert-file': undefined, 'cluster-signing-nodeagent-serving-key-file': undefined,
  'cluster-signing-legacy-unknown-cert-file': undefined, 'cluster-signing-legacy-unknown-key-file': undefined,
  'root-ca-file': undefined, 'service-account-private-key-file': undefined, 'use-service-account-credentials': false,
  'legacy-service-account-token-clean-up-period': 8760 * h,
  'attach-detach-reconcile-sync-period': 1 * m, 'disable-attach-detach-reconcile-sync': false, 'disable-force-detach-on-timeout': false,
  'enable-dynamic-provisioning': true, 'enable-hostpath-provisioner': false, 'flex-volume-plugin-dir': '/usr/libexec/svc/nodeagent-plugins/volume/exec/',
  'pv-recycler-increment-timeout-nfs': 30, 'pv-recycler-minimum-timeout-hostpath': 60, 'pv-recycler-minimum-timeout-nfs': 300,
  'pv-recycler-pod-template-filepath-hostpath': undefined, 'pv-recycler-pod-template-filepath-nfs': undefined,
  'pv-recycler-timeout-increment-hostpath': 30, 'pvclaimbinder-sync-period': 15 * s,
  'enable-garbage-collector': true, 'controller-shutdown-timeout': 10 * s, 'controller-start-interval': undefined, 'namespace-sync-period': 5 * m,
  'resource-quota-sync-period': 5 * m, 'min-resync-period': 12 * h, 'horizontal-pod-autoscaler-cpu-initialization-period': 5 * m,
  'horizontal-pod-autoscaler-downscale-stabilization': 5 * m, 'horizontal-pod-autoscaler-initial-readiness-delay': 30 * s,
  'horizontal-pod-autoscaler-sync-period': 15 * s, 'enable-leader-migration': false, 'leader-migration-config': undefined,
  'leader-elect': true, 'leader-elect-lease-duration': 15 * s, 'leader-elect-renew-deadline': 10 * s, 'leader-elect-retry-period': 2 * s,
  'leader-elect-resource-lock': 'leases', 'leader-elect-resource-name': 'svc-controller-manager', 'leader-elect-resource-namespace': 'svc-system',
  profiling: true, 'contention-profiling': false, 'allow-metric-labels': [], 'allow-metric-labels-manifest': undefined, 'disabled-metrics': [],
  'show-hidden-metrics-for-version': undefined, 'emulated-version': [], 'min-compatibility-version': [], 'feature-gates': {},
  version: undefined, v: 0, vmodule: undefined, 'log-flush-frequency': 5 * s, 'logging-format': 'text', 'log-text-info-buffer-size': undefined,
  'log-text-split-stream': false,
  'secure-port': 10257, 'bind-address': '0.0.0.0', 'cert-dir': undefined, 'tls-cert-file': undefined, 'tls-private-key-file': undefined,
  'tls-sni-cert-key': [], 'tls-cipher-suites': [], 'tls-min-version': undefined, 'disable-http2-serving': false,
  'http2-max-streams-per-connection': undefined, 'permit-address-sharing': false, 'permit-port-sharing': false,
  'client-ca-file': undefined, 'authentication-svcconfig': undefined, 'authentication-skip-lookup': false,
  'authentication-tolerate-lookup-failure': false, 'authentication-token-webhook-cache-ttl': 10 * s, 'authorization-svcconfig': undefined,
  'authorization-always-allow-paths': ['/healthz', '/readyz', '/livez'], 'authorization-webhook-cache-authorized-ttl': 10 * s,
  'authorization-webhook-cache-unauthorized-ttl': 10 * s, 'requestheader-client-ca-file': undefined, 'requestheader-allowed-names': [],
  'requestheader-username-headers': ['x-remote-user'], 'requestheader-group-headers': ['x-remote-group'],
  'requestheader-extra-headers-prefix': ['x-remote-extra-'], 'requestheader-uid-headers': [],
  'concurrent-cron-job-syncs': 5, 'concurrent-daemonset-syncs': 2, 'concurrent-deployment-syncs': 5, 'concurrent-device-taint-eviction-syncs': 8,
  'concurrent-endpoint-syncs': 5, 'concurrent-ephemeralvolume-syncs': 5, 'concurrent-gc-syncs': 20, 'concurrent-horizontal-pod-autoscaler-syncs': 5,
  'concurrent-job-syncs': 5, 'concurrent-namespace-syncs': 10, 'concurrent-rc-syncs': 5, 'concurrent-replicaset-syncs': 5,
  'concurrent-resource-quota-syncs': 5, 'concurrent-service-endpoint-syncs': 5, 'concurrent-service-syncs': 1,
  'concurrent-serviceaccount-token-syncs': 5, 'concurrent-statefulset-syncs': 5, 'concurrent-ttl-after-finished-syncs': 5,
  'concurrent-validating-admission-policy-status-syncs': 5, 'mirroring-concurrent-service-endpoint-syncs': 5,
  'svc-api-qps': 20, 'svc-api-burst': 30, 'max-endpoints-per-slice': 100, 'mirroring-max-endpoints-per-subset': 1000,
  'terminated-pod-gc-threshold': 12500, 'node-eviction-rate': 0.1, 'secondary-node-eviction-rate': 0.01, 'large-cluster-size-threshold': 50,
  'unhealthy-zone-threshold': 0.55, 'horizontal-pod-autoscaler-tolerance': 0.1, 'cluster-signing-duration': 8760 * h,
};

const camel = (name: string) => name.replace(/-([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

describe('svc-controller-manager options', () => {
  it('declares every option of the spec, plus --controllers, --controller-module, --config, --hostpath-provisioner-root, --latency-annotation and --svc-api-connections, and nothing it does not document', () => {
    expect(Object.keys(controllerManagerFlags).sort()).toEqual(
      [...Object.keys(SPEC_DEFAULTS), 'controllers', 'controller-module', 'config', 'hostpath-provisioner-root', 'latency-annotation', 'svc-api-connections'].sort(),
    );
  });

  it('--svc-api-connections bounds the request sockets (64 by default, at least 1)', () => {
    expect(parse().flags.svcApiConnections).toBe(64);
    expect(parse('--svc-api-connections=8').flags.svcApiConnections).toBe(8);
    rejects(['--svc-api-connections=0'], '--svc-api-connections');
  });

  it('gives every option the default the spec states', () => {
    const { flags } = parse();
    for (const [name, expected] of Object.entries(SPEC_DEFAULTS)) {
      expect((flags as Record<string, unknown>)[camel(name)], `--${name}`).toEqual(expected);
    }
    expect(flags.controllers).toEqual(['*']);
    expect(flags.hostpathProvisionerRoot).toBe('/tmp/svc-hostpath-pv');
  });

  it('parses every type: durations like 1m0s, int32, float, strings, string arrays, multimaps', () => {
    const { flags, featureGates } = parse(
      '--namespace-sync-period=1m30s',
      '--concurrent-gc-syncs=7',
      '--svc-api-qps=2.5',
      '--disabled-metrics=a_total,b_total',
      '--tls-sni-cert-key=a.crt,a.key:*.a.com,a.com',
      '--tls-sni-cert-key=b.crt,b.key',
      '--feature-gates=svc:LoggingAlphaOptions=true,RemoteRequestHeaderUID=true',
      '-v=3',
    );
    expect(flags.namespaceSyncPeriod).toBe(90_000);
    expect(flags.concurrentGcSyncs).toBe(7);
    expect(flags.svcApiQps).toBe(2.5);
    expect(flags.disabledMetrics).toEqual(['a_total', 'b_total']);
    expect(flags.tlsSniCertKey).toEqual(['a.crt,a.key:*.a.com,a.com', 'b.crt,b.key']);
    expect(featureGates).toMatchObject({ LoggingAlphaOptions: true, RemoteRequestHeaderUID: true });
    expect(flags.v).toBe(3);
  });

  it('reads the autoscaler options and the DRADeviceTaints gate (off by default)', () => {
    expect(parse().featureGates).toMatchObject({ DRADeviceTaints: false });
    const { flags, featureGates } = parse(
      '--horizontal-pod-autoscaler-sync-period=5s',
      '--horizontal-pod-autoscaler-tolerance=0.2',
      '--horizontal-pod-autoscaler-downscale-stabilization=1m',
      '--feature-gates=DRADeviceTaints=true',
    );
    expect(flags.horizontalPodAutoscalerSyncPeriod).toBe(5_000);
    expect(flags.horizontalPodAutoscalerTolerance).toBe(0.2);
    expect(flags.horizontalPodAutoscalerDownscaleStabilization).toBe(60_000);
    expect(featureGates).toMatchObject({ DRADeviceTaints: true });
  });

  it('reads --allow-metric-labels entries with quoted value lists', () => {
    const { allowMetricLabels } = parse("--allow-metric-labels=workqueue_depth,name='namespace-controller,garbage-collector-controller', workqueue_adds_total,name=x");
    expect([...allowMetricLabels]).toEqual([
      ['workqueue_depth,name', ['namespace-controller', 'garbage-collector-controller']],
      ['workqueue_adds_total,name', ['x']],
    ]);
    rejects(['--allow-metric-labels=nonsense'], '--allow-metric-labels');
  });

  it('rejects values of the wrong type, naming the flag', () => {
    rejects(['--namespace-sync-period=5'], '--namespace-sync-period');
    rejects(['--concurrent-gc-syncs=3000000000'], '--concurrent-gc-syncs');
    rejects(['--svc-api-qps=fast'], '--svc-api-qps');
    rejects(['--leader-elect=maybe'], '--leader-elect');
    rejects(['--no-such-flag'], '--no-such-flag');
  });
});

describe('the rules the spec states', () => {
  const rules: Array<[string, string[], string]> = [
    ['--leader-elect-renew-deadline must be below the lease duration', ['--leader-elect-renew-deadline=15s'], '--leader-elect-renew-deadline'],
    ['--leader-elect-retry-period must be below the renew deadline', ['--leader-elect-retry-period=10s'], '--leader-elect-retry-period'],
    ['--leader-elect-resource-lock is only leases', ['--leader-elect-resource-lock=endpointsleases'], '--leader-elect-resource-lock'],
    ['--logging-format is only text', ['--logging-format=json'], '--logging-format'],
    ['--attach-detach-reconcile-sync-period must exceed one second', ['--attach-detach-reconcile-sync-period=1s'], '--attach-detach-reconcile-sync-period'],
    ['--node-monitor-grace-period must be a multiple of the status update frequency', ['--node-monitor-grace-period=55s'], '--node-monitor-grace-period'],
    ['--node-monitor-grace-period must exceed HTTP/2 ping + read-idle timeouts', ['--node-monitor-grace-period=40s'], '--node-monitor-grace-period'],
    ['--allocate-node-cidrs requires --cluster-cidr', ['--allocate-node-cidrs'], '--allocate-node-cidrs'],
    ['--cluster-cidr must be a CIDR', ['--cluster-cidr=10.0.0.0'], '--cluster-cidr'],
    ['a dual-stack --cluster-cidr needs both families', ['--cluster-cidr=10.0.0.0/8,11.0.0.0/8'], '--cluster-cidr'],
    ['--service-cluster-ip-range must be a CIDR', ['--service-cluster-ip-range=x/1'], '--service-cluster-ip-range'],
    ['generic signing cert and key go together', ['--cluster-signing-cert-file=ca.crt'], '--cluster-signing-cert-file'],
    ['a specific signer cert and key go together', ['--cluster-signing-nodeagent-serving-key-file=k'], '--cluster-signing-nodeagent-serving-cert-file'],
    [
      'no specific --cluster-signing-* with the generic pair',
      ['--cluster-signing-cert-file=c', '--cluster-signing-key-file=k', '--cluster-signing-legacy-unknown-cert-file=c2', '--cluster-signing-legacy-unknown-key-file=k2'],
      '--cluster-signing-legacy-unknown-cert-file',
    ],
    ['--log-text-split-stream needs LoggingAlphaOptions', ['--log-text-split-stream'], '--log-text-split-stream'],
    ['--log-text-info-buffer-size needs LoggingAlphaOptions', ['--log-text-info-buffer-size=64Ki'], '--log-text-info-buffer-size'],
    ['--log-text-info-buffer-size is a quantity', ['--log-text-info-buffer-size=lots'], '--log-text-info-buffer-size'],
    ['--requestheader-uid-headers needs RemoteRequestHeaderUID', ['--requestheader-uid-headers=x-remote-uid'], '--requestheader-uid-headers'],
    ['--feature-gates knows its gates', ['--feature-gates=NoSuchGate=true'], '--feature-gates'],
    ['--feature-gates knows its component', ['--feature-gates=other:LoggingAlphaOptions=true'], '--feature-gates'],
    ['--feature-gates values are booleans', ['--feature-gates=LoggingAlphaOptions=yes'], '--feature-gates'],
    ['--tls-min-version is one of four', ['--tls-min-version=VersionTLS14'], '--tls-min-version'],
    ['--tls-cipher-suites are known names', ['--tls-cipher-suites=TLS_FAST'], '--tls-cipher-suites'],
    ['--tls-sni-cert-key is certfile,keyfile[:patterns]', ['--tls-sni-cert-key=only.crt'], '--tls-sni-cert-key'],
    ['--tls-cert-file needs --tls-private-key-file', ['--tls-cert-file=a.crt'], '--tls-private-key-file'],
    ['--tls-private-key-file needs --tls-cert-file', ['--tls-private-key-file=a.key'], '--tls-cert-file'],
    ['--secure-port is a port', ['--secure-port=70000'], '--secure-port'],
    ['--bind-address is an IP', ['--bind-address=localhost'], '--bind-address'],
    ['--svc-api-content-type is protobuf or JSON', ['--svc-api-content-type=text/plain'], '--svc-api-content-type'],
    ['--svc-api-qps is positive', ['--svc-api-qps=0'], '--svc-api-qps'],
    ['--svc-api-burst is at least 1', ['--svc-api-burst=0'], '--svc-api-burst'],
    ['concurrent syncs are positive', ['--concurrent-namespace-syncs=0'], '--concurrent-namespace-syncs'],
    ['--unhealthy-zone-threshold is a fraction', ['--unhealthy-zone-threshold=1.5'], '--unhealthy-zone-threshold'],
    ['--show-hidden-metrics-for-version is <major>.<minor>', ['--show-hidden-metrics-for-version=1'], '--show-hidden-metrics-for-version'],
    ['--show-hidden-metrics-for-version is the previous minor', ['--show-hidden-metrics-for-version=0.5'], '--show-hidden-metrics-for-version'],
    ['--emulated-version is <major>.<minor>', ['--emulated-version=one'], '--emulated-version'],
    ['--emulated-version is not newer than the binary', ['--emulated-version=9.0'], '--emulated-version'],
    ['--min-compatibility-version is not newer than the emulated one', ['--emulated-version=0.1', '--min-compatibility-version=0.2'], '--min-compatibility-version'],
    ['--vmodule is pattern=N pairs', ['--vmodule=foo'], '--vmodule'],
    ['--leader-migration-config needs --enable-leader-migration', ['--leader-migration-config=lm.yaml'], '--leader-migration-config'],
    ['--version is true, false, raw or vX.Y.Z', ['--version=latest'], '--version'],
    ['--master is a URL', ['--master=not a url'], '--master'],
    ['--authorization-always-allow-paths are paths', ['--authorization-always-allow-paths=healthz'], '--authorization-always-allow-paths'],
    ['--controllers names known controllers', ['--controllers=*,frobnicator'], '--controllers'],
  ];
  for (const [rule, argv, flag] of rules) {
    it(rule, () => {
      rejects(argv, flag);
    });
  }

  it('needs an API server: --svcconfig or --master', () => {
    rejects([], '--svcconfig', false);
    expect(parseControllerManagerArgs(['--svcconfig=admin.svcconfig']).flags.svcconfig).toBe('admin.svcconfig');
  });

  it('accepts what the rules allow', () => {
    expect(() =>
      parse(
        '--leader-elect=false', '--leader-elect-renew-deadline=20s', // no election: the durations are not checked against each other
        '--node-monitor-grace-period=1m0s', '--attach-detach-reconcile-sync-period=1.5s', '--allocate-node-cidrs', '--cluster-cidr=10.0.0.0/8,fd00::/48',
        '--cluster-signing-svc-apiserver-client-cert-file=c', '--cluster-signing-svc-apiserver-client-key-file=k',
        '--feature-gates=LoggingAlphaOptions=true', '--log-text-split-stream', '--log-text-info-buffer-size=1Mi',
        '--tls-min-version=VersionTLS13', '--tls-cipher-suites=TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256', '--show-hidden-metrics-for-version=0.0',
        '--emulated-version=0.1', '--min-compatibility-version=0.0', '--secure-port=0', '--bind-address=', '--enable-leader-migration', '--leader-migration-config=lm.yaml',
      ),
    ).not.toThrow();
  });
});

describe('--controllers', () => {
  const on = CONTROLLER_NAMES.filter((n) => !DISABLED_BY_DEFAULT.has(n));
  const matrix: Array<[string, string, (names: string[]) => void]> = [
    ['* (default)', '*', (names) => expect(names).toEqual(on)],
    ['* leaves the default-disabled ones off', '*', (names) => expect(names).not.toContain('bootstrap-signer-controller')],
    ['*,name turns a default-disabled one on', '*,bootstrap-signer-controller', (names) => expect(names).toEqual(CONTROLLER_NAMES.filter((n) => n !== 'token-cleaner-controller'))],
    ['*,-name turns one off', '*,-namespace-controller', (names) => expect(names).toEqual(on.filter((n) => n !== 'namespace-controller'))],
    ['an alias names the same controller', '*,-garbagecollector', (names) => expect(names).not.toContain('garbage-collector-controller')],
    ['a name alone runs only that one', 'namespace', (names) => expect(names).toEqual(['namespace-controller'])],
    ['-name beats name', 'namespace,-namespace', (names) => expect(names).toEqual([])],
    ['-name without * runs nothing', '-namespace-controller', (names) => expect(names).toEqual([])],
    ['names keep the table order', 'namespace-controller,garbage-collector-controller', (names) => expect(names).toEqual(['garbage-collector-controller', 'namespace-controller'])],
  ];
  for (const [what, value, check] of matrix) {
    it(what, () => check([...parse(`--controllers=${value}`).controllers]));
  }
  it('an unknown name, or an unknown -name, is an error', () => {
    expect(rejects(['--controllers=nope'], '--controllers').message).toContain('unknown controller "nope"');
    rejects(['--controllers=*,-nope'], '--controllers');
    rejects(['--controllers=Not_A_Name', '--controller-module=./m.js'], '--controllers'); // not even the form of a name
  });
  it("with controller modules, a name not built in is left for the modules to give (checked when they load)", () => {
    expect(parse('--controllers=namespace,widgets', '--controller-module=./widgets.js').controllers).toEqual(['namespace-controller']);
  });
  it('module names join the selection after the built-in ones: * turns them on, -name off', () => {
    expect(selectControllers(['namespace', 'widgets'], ['widgets', 'gadgets'])).toEqual(['namespace-controller', 'widgets']);
    expect(selectControllers(['*', '-gadgets'], ['widgets', 'gadgets'])).toEqual([...on, 'widgets']);
    expect(() => selectControllers(['nope'], ['widgets'])).toThrow('unknown controller "nope"');
  });
});

describe('the command line', () => {
  it('lists every option on --help and exits 0', async () => {
    const { code, out } = await run(['--help']);
    expect(code).toBe(0);
    for (const name of Object.keys(controllerManagerFlags)) expect(out).toContain(`--${name}`);
    expect(out).toContain('-v, --v');
    expect(out).toContain('-h, --help');
  });

  it('prints the version on --version and --version=raw, without needing an API server', async () => {
    const short = await run(['--version']);
    expect(short).toMatchObject({ code: 0 });
    expect(short.out).toMatch(/^svc-controller-manager v\d+\.\d+\.\d+$/);
    const raw = await run(['--version=raw']);
    expect(raw.code).toBe(0);
    expect(JSON.parse(raw.out)).toMatchObject({ gitVersion: expect.stringMatching(/^v\d+\.\d+\.\d+$/), major: expect.any(String), minor: expect.any(String) });
  });

  it('is also `svc controller-manager`', async () => {
    const out: string[] = [];
    expect(await svc(['controller-manager', '--version'], { out: (l) => out.push(l), err: () => undefined })).toBe(0);
    expect(out.join('\n')).toMatch(/^svc-controller-manager v/);
  });

  it('sets the reported version with --version=vX.Y.Z and keeps running', () => {
    expect(parse('--version=v1.32.0-svc.1')).toMatchObject({ reportedVersion: 'v1.32.0-svc.1', printVersion: undefined });
  });

  it('prints a clear error naming the flag and exits 1 on a bad command line', async () => {
    const { code, err } = await run([API, '--leader-elect-resource-lock=configmaps']);
    expect(code).toBe(1);
    expect(err).toContain('--leader-elect-resource-lock');
    expect(err).toContain("only 'leases' is supported");
    expect((await run([API, '--leader-elect-renew-deadline=20s'])).code).toBe(1);
  });
});
