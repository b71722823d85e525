import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { apiServerConfig, apiServerFlags } from '../../src/cli/apiserver-flags.js';
import { formatDuration, parseDuration } from '../../src/cli/duration.js';
import { renderHelp, renderMarkdown } from '../../src/cli/flag-docs.js';
import { FLAG_PAGES_GENERATOR, flagPages } from '../../src/cli/flag-pages.js';
import { flag } from '../../src/cli/flag-spec.js';
import { defineFlags, FlagError, parseFlags, withDefaults } from '../../src/cli/flags.js';
import { upFlags } from '../../src/cli/up-flags.js';

const table = defineFlags({
  name: flag.string({ meaning: 'A name.' }),
  'data-dir': flag.string({ default: './.data', meaning: 'Where data goes.' }),
  verbose: flag.bool({ meaning: 'Say more.' }),
  color: flag.bool({ default: true, meaning: 'Use colours.' }),
  count: flag.int({ default: 1, meaning: 'How many.', validate: (n) => (n >= 0 ? undefined : 'must not be negative') }),
  small: flag.int32({ meaning: 'A 32-bit number.' }),
  ratio: flag.float({ default: 0.5, meaning: 'A fraction.' }),
  timeout: flag.duration({ default: 60_000, meaning: 'How long to wait.' }),
  mode: flag.enum(['fast', 'safe'], { default: 'safe', meaning: 'How to run.' }),
  servers: flag.stringSlice({ meaning: 'Servers.' }),
  gates: flag.map('bool', { meaning: 'Gates.' }),
  labels: flag.map('string', { default: { team: 'core' }, meaning: 'Labels.' }),
  limits: flag.map('int', { meaning: 'Limits.' }),
  taints: flag.multimap({ meaning: 'Taints.' }),
  level: flag.int({ short: 'v', default: 0, meaning: 'Verbosity.' }),
  old: flag.string({ meaning: 'An old option.', deprecated: 'use --name instead.' }),
});

/** Parses and insists on values (not help). */
function values(argv: string[]) {
  const result = parseFlags(table, argv);
  if (result.help) throw new Error('unexpected help');
  return result;
}

function flagError(argv: string[], t = table): FlagError {
  try {
    parseFlags(t, argv);
  } catch (error) {
    expect(error).toBeInstanceOf(FlagError);
    return error as FlagError;
  }
  throw new Error(`no error for ${argv.join(' ')}`);
}

describe('parsing', () => {
  it('gives defaults and implicit zero values when nothing is passed', () => {
    const { values: v, args, given } = values([]);
    expect(v).toEqual({
      name: undefined,
      dataDir: './.data',
      verbose: false,
      color: true,
      count: 1,
      small: undefined,
      ratio: 0.5,
      timeout: 60_000,
      mode: 'safe',
      servers: [],
      gates: {},
      labels: { team: 'core' },
      limits: {},
      taints: {},
      level: 0,
      old: undefined,
    });
    expect(args).toEqual([]);
    expect(given.size).toBe(0);
  });

  it('types values from the table, camel-casing dashed names', () => {
    const { values: v } = values([]);
    expectTypeOf(v.dataDir).toEqualTypeOf<string>();
    expectTypeOf(v.name).toEqualTypeOf<string | undefined>();
    expectTypeOf(v.verbose).toEqualTypeOf<boolean>();
    expectTypeOf(v.count).toEqualTypeOf<number>();
    expectTypeOf(v.small).toEqualTypeOf<number | undefined>();
    expectTypeOf(v.mode).toEqualTypeOf<'fast' | 'safe'>();
    expectTypeOf(v.servers).toEqualTypeOf<readonly string[]>();
    expectTypeOf(v.gates).toEqualTypeOf<Readonly<Record<string, boolean>>>();
    expectTypeOf(v.limits).toEqualTypeOf<Readonly<Record<string, number>>>();
    expectTypeOf(v.taints).toEqualTypeOf<Readonly<Record<string, readonly string[]>>>();
  });

  it('accepts --name=value and --name value', () => {
    expect(values(['--name=a', '--data-dir', '/tmp/x']).values).toMatchObject({ name: 'a', dataDir: '/tmp/x' });
  });

  it('keeps an = inside the value and accepts an empty value', () => {
    expect(values(['--name=a=b']).values.name).toBe('a=b');
    expect(values(['--name=']).values.name).toBe('');
  });

  it('takes the next argument as the value even when it starts with a dash', () => {
    expect(values(['--count', '-0']).values.count).toBe(-0);
    expect(values(['--name', '--verbose']).values).toMatchObject({ name: '--verbose', verbose: false });
  });

  it('sets a bool with --bool and clears it with --bool=false', () => {
    expect(values(['--verbose']).values.verbose).toBe(true);
    expect(values(['--color=false']).values.color).toBe(false);
    expect(values(['--color=TRUE']).values.color).toBe(true);
  });

  it('never lets a bool take the next argument', () => {
    const { values: v, args } = values(['--verbose', 'false']);
    expect(v.verbose).toBe(true);
    expect(args).toEqual(['false']);
  });

  it('accepts short names as -v=3, -v 3 and -v3', () => {
    expect(values(['-v=3']).values.level).toBe(3);
    expect(values(['-v', '3']).values.level).toBe(3);
    expect(values(['-v3']).values.level).toBe(3);
  });

  it('reports --help and -h instead of values', () => {
    expect(parseFlags(table, ['--help'])).toEqual({ help: true });
    expect(parseFlags(table, ['--count=1', '-h'])).toEqual({ help: true });
  });

  it('collects positional arguments and everything after --', () => {
    const { values: v, args } = values(['up', '--count=2', 'now', '--', '--name=x', '-v']);
    expect(v.count).toBe(2);
    expect(v.name).toBeUndefined();
    expect(args).toEqual(['up', 'now', '--name=x', '-v']);
  });

  it('records which flags were given', () => {
    expect([...values(['--count=1', '-v', '2']).given].sort()).toEqual(['count', 'level']);
  });

  it('keeps the last occurrence of a repeated scalar', () => {
    expect(values(['--name=a', '--name=b']).values.name).toBe('b');
    expect(values(['--mode=fast', '--mode=safe']).values.mode).toBe('safe');
  });

  it('reads every numeric type', () => {
    expect(values(['--count=42', '--small=-2147483648', '--ratio=1e-3']).values).toMatchObject({ count: 42, small: -(2 ** 31), ratio: 0.001 });
    expect(values(['--ratio', '-2.5']).values.ratio).toBe(-2.5);
  });

  it('reads durations in Go notation into milliseconds', () => {
    expect(values(['--timeout=90s']).values.timeout).toBe(90_000);
    expect(values(['--timeout=1m0s']).values.timeout).toBe(60_000);
    expect(values(['--timeout=1h2m3.5s']).values.timeout).toBe(3_723_500);
    expect(values(['--timeout=250ms']).values.timeout).toBe(250);
    expect(values(['--timeout=0']).values.timeout).toBe(0);
  });

  it('reads an enum value', () => {
    expect(values(['--mode=fast']).values.mode).toBe('fast');
  });

  it('splits a string slice on commas and appends repeated occurrences (the first replaces the default)', () => {
    expect(values(['--servers=a,b', '--servers', 'c']).values.servers).toEqual(['a', 'b', 'c']);
    expect(values(['--servers=']).values.servers).toEqual([]);
  });

  it('reads maps of k=v pairs, typed by the map, merging repeated occurrences', () => {
    const { values: v } = values(['--gates=A=true,B=false', '--gates', 'B=true,C=false', '--limits=cpu=2', '--labels=app=web']);
    expect(v.gates).toEqual({ A: true, B: true, C: false });
    expect(v.limits).toEqual({ cpu: 2 });
    // Given at all, a map replaces its default rather than merging into it.
    expect(v.labels).toEqual({ app: 'web' });
  });

  it('trims spaces around map keys and values and keeps = in values', () => {
    expect(values(['--labels= a = x=y ']).values.labels).toEqual({ a: 'x=y' });
  });

  it('keeps __proto__ an ordinary map key', () => {
    const labels = values(['--labels=__proto__=x']).values.labels;
    expect(Object.keys(labels)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(labels)).toBe(Object.prototype);
  });

  it('accumulates multimap values per key across items and occurrences', () => {
    expect(values(['--taints=a=1,a=2,b=3', '--taints=a=4']).values.taints).toEqual({ a: ['1', '2', '4'], b: ['3'] });
  });

  it('warns once per deprecated flag used', () => {
    const result = values(['--old=x', '--old=y']);
    expect(result.values.old).toBe('y');
    expect(result.warnings).toEqual(['Flag --old has been deprecated, use --name instead.']);
    expect(values(['--name=x']).warnings).toEqual([]);
  });
});

describe('errors', () => {
  it('names an unknown flag', () => {
    const error = flagError(['--nope=1']);
    expect(error.message).toBe('unknown flag: --nope');
    expect(error.flag).toBe('--nope');
    expect(error.exitCode).toBe(2);
  });

  it('names an unknown short flag', () => {
    expect(flagError(['-x']).message).toBe("unknown shorthand flag: 'x' in -x");
  });

  it('names a flag whose value is missing', () => {
    expect(flagError(['--count']).message).toBe('flag needs an argument: --count');
    expect(flagError(['-v']).message).toBe('flag needs an argument: -v');
  });

  it.each([
    [['--count=abc'], '--count', 'not an integer'],
    [['--count=1.5'], '--count', 'not an integer'],
    [['--count=9007199254740993'], '--count', 'integer out of range'],
    [['--small=2147483648'], '--small', 'int32'],
    [['--ratio=x'], '--ratio', 'not a number'],
    [['--ratio='], '--ratio', 'not a number'],
    [['--timeout=10'], '--timeout', 'not a duration'],
    [['--timeout=1x'], '--timeout', 'not a duration'],
    [['--verbose=yes'], '--verbose', 'true or false'],
    [['--mode=slow'], '--mode', 'must be one of fast, safe'],
    [['--gates=A=maybe'], '--gates', 'value of A: must be true or false'],
    [['--gates=A'], '--gates', 'key=value'],
    [['--labels==x'], '--labels', 'key=value'],
    [['--limits=cpu=lots'], '--limits', 'not an integer'],
    [['--taints=a'], '--taints', 'key=value'],
    [['-v', 'x'], '-v', 'not an integer'],
  ])('rejects a bad value: %j', (argv, name, problem) => {
    const error = flagError(argv);
    expect(error.flag).toBe(name);
    expect(error.message).toContain(`for ${name} flag`);
    expect(error.message).toContain(problem);
  });

  it('quotes the bad value in the message', () => {
    expect(flagError(['--count=abc']).message).toBe('invalid argument "abc" for --count flag: not an integer');
  });

  it('runs the flag’s validation', () => {
    expect(flagError(['--count=-1']).message).toBe('invalid argument "-1" for --count flag: must not be negative');
  });
});

describe('tables', () => {
  it('refuses malformed tables where they are declared', () => {
    expect(() => defineFlags({ Bad_Name: flag.string({ meaning: '' }) })).toThrow(/lower-case dashed/);
    expect(() => defineFlags({ help: flag.bool({ meaning: '' }) })).toThrow(/built in/);
    expect(() => defineFlags({ a: flag.bool({ short: 'h', meaning: '' }) })).toThrow(/short name/);
    expect(() => defineFlags({ a: flag.bool({ short: 'x', meaning: '' }), b: flag.bool({ short: 'x', meaning: '' }) })).toThrow(/twice/);
    expect(() => defineFlags({ 'a-b': flag.bool({ meaning: '' }), aB: flag.bool({ meaning: '' }) })).toThrow();
    expect(() => defineFlags({ n: flag.int({ default: -1, meaning: '', validate: (n) => (n < 0 ? 'negative' : undefined) }) })).toThrow(
      /its own validation/,
    );
  });

  it('derives a table with other defaults', () => {
    const derived = withDefaults(table, { count: 7, mode: 'fast' });
    const result = parseFlags(derived, []);
    if (result.help) throw new Error('help');
    expect(result.values).toMatchObject({ count: 7, mode: 'fast', dataDir: './.data' });
    expect(table.count.default).toBe(1);
  });
});

describe('durations', () => {
  it.each([
    [0, '0s'],
    [250, '250ms'],
    [1500, '1.5s'],
    [60_000, '1m0s'],
    [90_000, '1m30s'],
    [3_600_000, '1h0m0s'],
    [3_723_500, '1h2m3.5s'],
    [-90_000, '-1m30s'],
    [0.5, '500µs'],
  ])('formats %d ms as %s and reads it back', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
    expect(parseDuration(text)).toBeCloseTo(ms, 9);
  });

  it('accepts every unit and refuses what is not a duration', () => {
    expect(parseDuration('1h1m1s1ms1us1ns')).toBeCloseTo(3_661_001.001001, 6);
    expect(parseDuration('.5s')).toBe(500);
    for (const text of ['', 's', '1', '1d', '1 s', '--1s', '1s ']) expect(parseDuration(text)).toBeUndefined();
  });
});

describe('help and docs', () => {
  const doc = { name: 'demo', usage: 'demo [flags]', summary: 'A demo command.' };

  it('lists every flag in --help with its value type, meaning and non-zero default', () => {
    const help = renderHelp(doc, table);
    expect(help).toMatch(/^Usage: demo \[flags\]\n\nA demo command\.\n\nFlags:\n/);
    expect(help).toMatch(/ {6}--data-dir string +Where data goes\. \(default "\.\/\.data"\)/);
    expect(help).toMatch(/ {6}--verbose +Say more\.\n/);
    expect(help).toMatch(/--timeout duration +How long to wait\. \(default 1m0s\)/);
    expect(help).toMatch(/--mode string +How to run\. One of: fast, safe\. \(default "safe"\)/);
    expect(help).toMatch(/-v, --level int +Verbosity\.\n/);
    expect(help).toMatch(/--old string +An old option\. \(DEPRECATED: use --name instead\.\)/);
    expect(help).toMatch(/-h, --help +Print this help and exit\./);
  });

  it('wraps long meanings under the meaning column', () => {
    const help = renderHelp(doc, apiServerFlags);
    for (const line of help.split('\n')) expect(line.length).toBeLessThanOrEqual(100);
  });

  it('renders a Markdown table with one row per flag', () => {
    const md = renderMarkdown(doc, table, 'gen');
    expect(md).toContain('# demo flags');
    expect(md).toContain('| `--data-dir` | string | `./.data` | Where data goes. |');
    expect(md).toContain('| `-v`, `--level` | int | `0` | Verbosity. |');
    expect(md).toContain('| `--mode` | one of `fast`, `safe` | `safe` | How to run. |');
    expect(md).toContain('| `--old` | string |  | **Deprecated:** use --name instead. An old option. |');
    expect(md.split('\n').filter((line) => line.startsWith('| `')).length).toBe(Object.keys(table).length);
  });

  it.each(flagPages.map((page) => [page.file, page] as const))('%s matches its table (regenerate: node --import tsx scripts/gen-flags-docs.ts)', (file, page) => {
    const onDisk = readFileSync(join(import.meta.dirname, '..', '..', file), 'utf8');
    expect(onDisk).toBe(renderMarkdown(page.doc, page.table, FLAG_PAGES_GENERATOR));
  });
});

describe('svc-apiserver flags', () => {
  function config(argv: string[]) {
    const result = parseFlags(apiServerFlags, argv);
    if (result.help) throw new Error('help');
    return apiServerConfig(result.values);
  }

  it('has the documented defaults', () => {
    expect(config([])).toEqual({
      dataDir: './.svc',
      storage: 'sqlite',
      etcdServers: [],
      etcdPrefix: '/registry/',
      bindAddress: '0.0.0.0',
      securePort: 6443,
      listenerCopies: 63,
      endpointReconcilerType: 'lease',
      serviceNetwork: { clusterIpRange: '10.0.0.0/24', nodePortRange: '30000-32767' },
      authorization: ['RBAC'],
      featureGates: {
        APIResponseCompression: true,
        AllowUnsafeMalformedObjectDeletion: false,
        CBORServingAndStorage: false,
        WatchList: true,
        ListFromCacheSnapshot: true,
      },
      maxRequestBodyBytes: 3145728,
      connectionTimeouts: { headerMs: 32_000, bodyMs: 60_000 },
      minRequestTimeoutSeconds: 1800,
      watchHistoryWindowMs: 300_000,
      bookmarkIntervalMs: 15_000,
      watchWriteIntervalMs: 10,
      watchBufferEvents: 1000,
      eventTtlSeconds: 3600,
      cacheEvents: true,
      verbosity: 0,
      flowControl: { maxRequestsInflight: 400, maxMutatingRequestsInflight: 200 },
      anonymousAuth: true,
      serviceAccountKeyFiles: [],
      serviceAccountIssuers: ['https://kubernetes.default.svc.cluster.local'],
      apiAudiences: [],
      serviceAccountMaxTokenExpirationSeconds: 0,
      admissionPlugins: { enable: [], disable: [] },
      nodeAgent: { timeoutMs: 5000 },
      metricResolutionMs: 15_000,
      corsAllowedOrigins: [],
      browserSessionTtlSeconds: 900,
      requestHeader: { usernameHeaders: ['X-Remote-User'], groupHeaders: ['X-Remote-Group'], extraHeadersPrefixes: ['X-Remote-Extra-'] },
    });
  });

  it('reads the front-proxy options, and wants both halves of the proxy client pair', () => {
    const parsed = config([
      '--requestheader-client-ca-file=fp-ca.crt',
      '--requestheader-allowed-names=front-proxy-client,aggregator',
      '--requestheader-username-headers=X-User',
      '--requestheader-group-headers=X-Group',
      '--requestheader-extra-headers-prefix=X-Extra-',
      '--proxy-client-cert-file=p.crt',
      '--proxy-client-key-file=p.key',
    ]);
    expect(parsed.requestHeader).toEqual({
      clientCaFile: 'fp-ca.crt',
      allowedNames: ['front-proxy-client', 'aggregator'],
      usernameHeaders: ['X-User'],
      groupHeaders: ['X-Group'],
      extraHeadersPrefixes: ['X-Extra-'],
    });
    expect(parsed.proxyClient).toEqual({ certFile: 'p.crt', keyFile: 'p.key' });
    expect(() => config(['--proxy-client-cert-file=p.crt'])).toThrow('--proxy-client-key-file is required');
  });

  it('reads --apiserver-count with the master-count reconciler only, and wants it positive', () => {
    expect(config(['--endpoint-reconciler-type=master-count', '--apiserver-count=3'])).toMatchObject({ endpointReconcilerType: 'master-count', apiserverCount: 3 });
    expect(config(['--endpoint-reconciler-type=master-count'])).toMatchObject({ apiserverCount: 1 });
    expect(config(['--apiserver-count=3'])).not.toHaveProperty('apiserverCount');
    expect(() => config(['--apiserver-count=0'])).toThrow(/positive/);
    expect(() => config(['--endpoint-reconciler-type=masters'])).toThrow();
  });

  it('reads the node agent client options', () => {
    expect(
      config(['--node-agent-client-certificate=c.crt', '--node-agent-client-key=c.key', '--node-agent-certificate-authority=ca.crt', '--node-agent-timeout=30s']).nodeAgent,
    ).toEqual({ clientCertificateFile: 'c.crt', clientKeyFile: 'c.key', certificateAuthorityFile: 'ca.crt', timeoutMs: 30_000 });
  });

  it('reads the listen backlog and listener copies, and rejects values out of range', () => {
    expect(config(['--listen-backlog=8192', '--listener-copies=0'])).toMatchObject({ listenBacklog: 8192, listenerCopies: 0 });
    expect(config([]).listenBacklog).toBeUndefined();
    expect(() => config(['--listen-backlog=-1'])).toThrow(/must be between 0 and 65535/);
    expect(() => config(['--listener-copies=5000'])).toThrow(/must be between 0 and 1024/);
  });

  it('reads the watch options', () => {
    expect(config(['--min-request-timeout=60', '--watch-history-window=10m', '--watch-bookmark-interval=2s', '--watch-buffer-events=50'])).toMatchObject({
      minRequestTimeoutSeconds: 60,
      watchHistoryWindowMs: 600_000,
      bookmarkIntervalMs: 2_000,
      watchBufferEvents: 50,
    });
  });

  it.each([['--min-request-timeout=0'], ['--watch-history-window=0s'], ['--watch-buffer-events=-1'], ['--watch-bookmark-interval=soon']])(
    'rejects %s',
    (arg) => {
      expect(() => config([arg])).toThrow();
    },
  );

  it('reads --event-ttl in whole seconds, 0 keeping Events for good, and svc up passes it on', () => {
    expect(config(['--event-ttl=30m']).eventTtlSeconds).toBe(1800);
    expect(config(['--event-ttl=0']).eventTtlSeconds).toBe(0);
    for (const bad of ['--event-ttl=500ms', '--event-ttl=1500ms', '--event-ttl=-1s']) expect(() => config([bad]), bad).toThrow();
    const up = parseFlags(upFlags, ['--event-ttl=2h']);
    if (up.help) throw new Error('help');
    expect(apiServerConfig(up.values).eventTtlSeconds).toBe(7200);
  });

  it('reads --watch-cache-events (true unless turned off)', () => {
    expect(config(['--watch-cache-events=false']).cacheEvents).toBe(false);
    expect(config(['--watch-cache-events']).cacheEvents).toBe(true);
  });

  it('svc up listens on loopback by default', () => {
    const result = parseFlags(upFlags, []);
    if (result.help) throw new Error('help');
    expect(result.values.bindAddress).toBe('127.0.0.1');
  });

  it('applies feature gates over the defaults', () => {
    const gates = config(['--feature-gates=WatchList=false,CBORServingAndStorage=true']).featureGates;
    expect(gates).toMatchObject({ WatchList: false, CBORServingAndStorage: true, APIResponseCompression: true });
  });

  it.each([
    [['--feature-gates=NoSuchGate=true'], '--feature-gates', 'unrecognized feature gate: NoSuchGate'],
    [['--feature-gates=WatchList=yes'], '--feature-gates', 'must be true or false'],
    [['--storage=postgres'], '--storage', 'must be one of sqlite, etcd, memory'],
    [['--secure-port=70000'], '--secure-port', 'between 0 and 65535'],
    [['--secure-port=https'], '--secure-port', 'not an integer'],
    [['--bind-address=localhost'], '--bind-address', 'not an IP address'],
    [['--max-request-body-bytes=0'], '--max-request-body-bytes', 'must be positive'],
    [['--etcd-servers=http://a:2379,not a url'], '--etcd-servers', 'is not a URL'],
    [['--etcd-prefix=registry'], '--etcd-prefix', 'must start with "/"'],
    [['-v=-1'], '-v', 'must not be negative'],
    [['--storage=etcd'], '--etcd-servers', 'required with --storage=etcd'],
    [['--tls-cert-file=a.crt'], '--tls-private-key-file', 'is required'],
    [['--tls-private-key-file=a.key'], '--tls-cert-file', 'is required'],
    [['--node-agent-client-certificate=a.crt'], '--node-agent-client-key', 'is required'],
    [['--node-agent-client-key=a.key'], '--node-agent-client-certificate', 'is required'],
    [['--node-agent-timeout=0s'], '--node-agent-timeout', 'must be positive'],
    [['--metric-resolution=500ms'], '--metric-resolution', 'must be at least 1s'],
  ])('rejects %j naming %s', (argv, name, problem) => {
    let error: unknown;
    try {
      config(argv);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(FlagError);
    expect((error as FlagError).flag).toBe(name);
    expect((error as FlagError).message).toContain(problem);
  });

  it('passes etcd settings and TLS files through', () => {
    expect(
      config(['--storage=etcd', '--etcd-servers=http://127.0.0.1:2379', '--etcd-prefix=/svc', '--tls-cert-file=c', '--tls-private-key-file=k']),
    ).toMatchObject({ storage: 'etcd', etcdServers: ['http://127.0.0.1:2379'], etcdPrefix: '/svc/', tls: { certFile: 'c', keyFile: 'k' } });
  });
});
