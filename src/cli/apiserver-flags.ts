import { isIP } from 'node:net';
import { ADMISSION_PLUGINS, AUTHORIZATION_MODES, DEFAULT_EVENT_TTL_SECONDS, isAdmissionPluginName, parseAllowedOrigins, parseAuthorizationModes, parseClusterIpRanges, parseNodePortRange, type ApiServerConfig } from '../apiserver/index.js';
import { describeFeatureGates, resolveFeatureGates, unknownFeatureGate } from './feature-gates.js';
import type { CommandDoc } from './flag-docs.js';
import { flag, type FlagValues } from './flag-spec.js';
import { defineFlags, FlagError } from './flags.js';

/** svc-apiserver's options: the one table its parser, `--help` and docs/flags/svc-apiserver.md use. */
export const apiServerFlags = defineFlags({
  'data-dir': flag.string({
    default: './.svc',
    valueName: 'path',
    meaning:
      'Directory for the server\'s state: the sqlite database (state.db), generated certificates (pki/), the admin token (admin-token), the service-account signing key (service-account.key) and the admin client config (admin.svcconfig). Created if missing.',
    validate: (dir) => (dir === '' ? 'must not be empty' : undefined),
  }),
  storage: flag.enum(['sqlite', 'etcd', 'memory'], {
    default: 'sqlite',
    meaning: 'Where objects are stored: sqlite (embedded, in the data dir), etcd (external, see --etcd-servers) or memory (lost on exit).',
  }),
  'etcd-servers': flag.stringSlice({
    valueName: 'urls',
    meaning: 'etcd client URLs (scheme://ip:port), comma-separated. Required with --storage=etcd.',
    validate: (urls) => {
      const badUrl = urls.find((url) => !URL.canParse(url));
      return badUrl === undefined ? undefined : `${JSON.stringify(badUrl)} is not a URL`;
    },
  }),
  'etcd-prefix': flag.string({
    default: '/registry',
    meaning: 'The prefix of every key the server writes to etcd.',
    validate: (prefix) => (/^\/[\x21-\x7e]*$/.test(prefix) ? undefined : 'must start with "/" and be printable ASCII without spaces'),
  }),
  'bind-address': flag.string({
    default: '0.0.0.0',
    valueName: 'ip',
    meaning: 'The IP address to listen on for HTTPS. 0.0.0.0 (or ::) listens on every interface.',
    validate: (ip) => (isIP(ip) ? undefined : 'not an IP address'),
  }),
  'secure-port': flag.int({
    default: 6443,
    valueName: 'port',
    meaning: 'The port to serve HTTPS on. 0 picks a free port; the server prints the one it got.',
    validate: (port) => (port >= 0 && port <= 65535 ? undefined : 'must be between 0 and 65535'),
  }),
  'listen-backlog': flag.int({
    default: 0,
    valueName: 'connections',
    meaning:
      'How many connections the kernel may hold for the server before it accepts them; a full queue drops the SYNs of new ones. 0 (the default) takes net.core.somaxconn, as kube-apiserver does; more than somaxconn is capped at it, and the server says so at start.',
    validate: (n) => (n >= 0 && n <= 65535 ? undefined : 'must be between 0 and 65535'),
  }),
  'listener-copies': flag.int({
    default: 63,
    valueName: 'n',
    meaning:
      'Extra handles on the listening socket, so a server whose event loop is busy accepts n+1 connections a loop turn instead of one (docs/apiserver.md#accepting-connections). Made at start by a helper process that exits at once; 0 turns them off.',
    validate: (n) => (n >= 0 && n <= 1024 ? undefined : 'must be between 0 and 1024'),
  }),
  'tls-cert-file': flag.string({
    valueName: 'path',
    meaning:
      'PEM file with the serving certificate (followed by any intermediates). Without it (and --tls-private-key-file) the server creates a CA and a serving certificate in <data-dir>/pki on first start and reuses them.',
  }),
  'tls-private-key-file': flag.string({
    valueName: 'path',
    meaning: 'PEM file with the private key of --tls-cert-file.',
  }),
  'token-auth-file': flag.string({
    valueName: 'path',
    meaning:
      'CSV file of bearer tokens, one per line: token,user,uid[,"group1,group2"]. The generated admin token (<data-dir>/admin-token) is accepted as well.',
  }),
  'client-ca-file': flag.string({
    valueName: 'path',
    meaning:
      'PEM bundle of CA certificates. Clients presenting a certificate signed by one of them authenticate as its CommonName, with its Organizations as groups. A certificate from another CA, expired or not yet valid is answered 401.',
  }),
  'anonymous-auth': flag.bool({
    default: true,
    meaning:
      'Requests without credentials are served as system:anonymous (group system:unauthenticated) instead of being answered 401, and meet authorization like anyone (the default roles let them read /version and /healthz, nothing else). As in Kubernetes, it never applies with the AlwaysAllow authorizer: then such requests are answered 401 and the server logs a warning.',
  }),
  'service-account-key-file': flag.stringSlice({
    valueName: 'paths',
    meaning:
      'PEM files of public keys (or certificates, or private keys) that service-account tokens are checked with; repeatable, each file may hold several keys. The signing key\'s public half is always accepted.',
  }),
  'service-account-signing-key-file': flag.string({
    valueName: 'path',
    meaning:
      'PEM private key (RSA, or ECDSA P-256/P-384/P-521) the server signs service-account tokens with. Default: <data-dir>/service-account.key, an RSA key generated on first start.',
  }),
  'service-account-issuer': flag.stringSlice({
    default: ['https://kubernetes.default.svc.cluster.local'],
    valueName: 'issuers',
    meaning: 'The iss claim of service-account tokens; repeatable. The first is written into new tokens; tokens naming any of them are accepted.',
    // Kubernetes' rule: an issuer with a ":" must be a URL (a bare name is allowed).
    validate: (issuers) => {
      if (issuers.length === 0 || issuers.some((i) => i === '')) return 'an issuer must not be empty';
      const bad = issuers.find((i) => i.includes(':') && !URL.canParse(i));
      return bad === undefined ? undefined : `${JSON.stringify(bad)} contains ":" but is not a URL`;
    },
  }),
  'api-audiences': flag.stringSlice({
    valueName: 'audiences',
    meaning: 'Audiences of the API: a service-account token must name one of them in its aud claim. Default: the service-account issuers.',
  }),
  'service-account-max-token-expiration': flag.duration({
    default: 0,
    meaning: 'The longest lifetime a TokenRequest is granted; longer requests get this much. 0 means no cap.',
    validate: (ms) => (ms === 0 || ms >= 600_000 ? undefined : 'must be 0 or at least 10m'),
  }),
  'authorization-mode': flag.stringSlice({
    default: ['RBAC'],
    valueName: 'modes',
    meaning: `Authorizers every request passes, in order, comma-separated: ${AUTHORIZATION_MODES.join(', ')}. The first that allows decides; a request none allows is answered 403. With RBAC, members of system:masters may do anything, and the default roles and bindings are created and reconciled at every start.`,
    validate: (modes) => {
      try {
        parseAuthorizationModes(modes.join(','));
        return undefined;
      } catch (error) {
        return (error as Error).message;
      }
    },
  }),
  'service-cluster-ip-range': flag.string({
    default: '10.0.0.0/24',
    valueName: 'cidr',
    meaning: 'The range Service cluster IPs are allocated from (an IPv4 and an IPv6 CIDR, comma-separated, for dual-stack Services). Must not overlap the node or pod networks.',
    validate: (text) => {
      try {
        parseClusterIpRanges(text);
        return undefined;
      } catch (error) {
        return (error as Error).message;
      }
    },
  }),
  'service-node-port-range': flag.string({
    default: '30000-32767',
    valueName: 'low-high',
    meaning: 'The ports NodePort (and LoadBalancer) Services get their node ports from, both ends included.',
    validate: (text) => {
      try {
        parseNodePortRange(text);
        return undefined;
      } catch (error) {
        return (error as Error).message;
      }
    },
  }),
  'feature-gates': flag.map('bool', {
    meaning: `Feature gates to turn on or off, as Name=true|false pairs. Known gates and defaults: ${describeFeatureGates()}.`,
    validate: unknownFeatureGate,
  }),
  'max-request-body-bytes': flag.int({
    default: 3 * 1024 * 1024,
    valueName: 'bytes',
    meaning: 'The largest request body accepted; larger requests are answered 413.',
    validate: (n) => (n > 0 ? undefined : 'must be positive'),
  }),
  'request-header-timeout': flag.duration({
    default: 32_000,
    meaning:
      "How long a client has to send a request's head: from the moment it connects (the TLS handshake included) for its first request, from the request's first byte on a kept-alive connection. A client still sending then is answered 408 and its connection closed (kube-apiserver's read-header timeout).",
    validate: (ms) => (ms > 0 ? undefined : 'must be positive'),
  }),
  'request-body-timeout': flag.duration({
    default: 60_000,
    meaning:
      'How long a client has to send a whole request, head and body, from its first byte (at least --request-header-timeout). A client still sending then is answered 408 and its connection closed. Once the request is in, its answer may take as long as it needs: watches, logs and upgraded streams (exec, attach, port-forward) are not cut.',
    validate: (ms) => (ms > 0 ? undefined : 'must be positive'),
  }),
  'min-request-timeout': flag.int({
    default: 1800,
    valueName: 'seconds',
    meaning:
      'Watches that do not set timeoutSeconds end after a random time between this many seconds and twice as many, so clients re-watch and spread out.',
    validate: (n) => (n > 0 ? undefined : 'must be positive'),
  }),
  'watch-history-window': flag.duration({
    default: 5 * 60_000,
    meaning:
      'How far back the watch caches keep events, so a watch can resume from a resourceVersion that old without a relist. Older starts are replayed from the store while it still holds them, else answered 410 Expired.',
    validate: (ms) => (ms > 0 ? undefined : 'must be positive'),
  }),
  'watch-bookmark-interval': flag.duration({
    default: 15_000,
    meaning: 'How often a watch that allows bookmarks gets a BOOKMARK event with the resourceVersion it has seen everything up to.',
    validate: (ms) => (ms > 0 ? undefined : 'must be positive'),
  }),
  'watch-write-interval': flag.duration({
    default: 10,
    meaning:
      'How long a busy watch holds its events to write them together: a watch that wrote less than this ago sends its next events this long after that write, in one write. An event after a quiet spell leaves at once. 0: the events of each loop turn leave at the end of that turn.',
    validate: (ms) => (ms >= 0 ? undefined : 'must not be negative'),
  }),
  'event-ttl': flag.duration({
    default: DEFAULT_EVENT_TTL_SECONDS * 1000,
    meaning:
      'How long an Event (core v1 and events.svc.io v1) is kept after its last write. Then the server deletes it: watchers see DELETED, as for any deletion. With etcd each Event is written under a lease (shared by the Events of up to a minute, so an Event may live up to 5 % or a minute longer); with sqlite and memory a sweep deletes the Events due every second. Whole seconds; 0 keeps Events for good.',
    validate: (ms) => (ms === 0 || (ms >= 1000 && ms % 1000 === 0) ? undefined : 'must be 0 or a whole number of seconds'),
  }),
  'watch-cache-events': flag.bool({
    default: true,
    meaning:
      'Whether the watch caches keep Events. false: as kube-apiserver, gets and lists of Events read the store and their watches start from it; the cache of Events keeps only the recent history (--watch-history-window) and the live stream, so the server\'s heap no longer grows with the Events the cluster keeps.',
  }),
  'watch-buffer-events': flag.int({
    default: 1000,
    valueName: 'events',
    meaning: 'Events a watch may have waiting for a slow client. One more and the server ends that watch; the client resumes from its last resourceVersion.',
    validate: (n) => (n > 0 ? undefined : 'must be positive'),
  }),
  'enable-admission-plugins': flag.stringSlice({
    valueName: 'names',
    meaning: `Admission plugins to run besides the default ones, comma-separated. Every plugin svc has is on by default and they always run in this order: ${ADMISSION_PLUGINS.join(', ')}.`,
    validate: unknownAdmissionPlugin,
  }),
  'disable-admission-plugins': flag.stringSlice({
    valueName: 'names',
    meaning: `Admission plugins to turn off, comma-separated, from: ${ADMISSION_PLUGINS.join(', ')}.`,
    validate: unknownAdmissionPlugin,
  }),
  'node-agent-client-certificate': flag.string({
    valueName: 'path',
    meaning:
      "PEM client certificate the API server presents to node agents when it forwards pods' log, exec, attach and portforward and nodes' proxy (kube-apiserver's --kubelet-client-certificate). The agents' --client-ca-file must trust its CA.",
  }),
  'node-agent-client-key': flag.string({ valueName: 'path', meaning: 'PEM private key of --node-agent-client-certificate (kube-apiserver\'s --kubelet-client-key).' }),
  'node-agent-certificate-authority': flag.string({
    valueName: 'path',
    meaning:
      "PEM CA bundle node agents' serving certificates must chain to (kube-apiserver's --kubelet-certificate-authority). Without it they are not verified, and the server logs that once.",
  }),
  'node-agent-timeout': flag.duration({
    default: 5000,
    meaning: "How long the API server waits to connect to a node agent and get its answer's head (kube-apiserver's --kubelet-timeout); a stream (logs -f, exec) may then run longer.",
    validate: (ms) => (ms > 0 ? undefined : 'must be positive'),
  }),
  'metric-resolution': flag.duration({
    default: 15_000,
    meaning:
      "How often the resource metrics API (metrics.k8s.io, for kubectl top and the horizontal pod autoscaler) reads every node agent's /stats/summary (metrics-server's --metric-resolution). CPU usage is the rate between the last two reads, so a pod shows usage one resolution after it starts. See docs/autoscaling.md.",
    validate: (ms) => (ms >= 1000 ? undefined : 'must be at least 1s'),
  }),
  'max-requests-inflight': flag.int({
    default: 400,
    valueName: 'n',
    meaning:
      'Read-only requests (GET, HEAD) served at once. More wait in a queue per user, served round robin across users so one busy client cannot starve the others; a full queue (50 per user) or 15 s of waiting is answered 429 TooManyRequests with Retry-After: 1. Watches, exec, attach, port-forward, logs and proxy are not counted; members of system:masters and the health checks are exempt. 0 means no limit.',
    validate: (n) => (n >= 0 ? undefined : 'must not be negative'),
  }),
  'max-mutating-requests-inflight': flag.int({
    default: 200,
    valueName: 'n',
    meaning: 'Mutating requests (POST, PUT, PATCH, DELETE) served at once, queued and refused as --max-requests-inflight says, with seats of their own. 0 means no limit.',
    validate: (n) => (n >= 0 ? undefined : 'must not be negative'),
  }),
  'audit-log-path': flag.string({
    valueName: 'path',
    meaning:
      'Write an audit.k8s.io/v1 Event per request stage, one JSON object a line, to this file ("-": standard output). Which requests and how much of them is logged: --audit-policy-file. Without this flag nothing is audited.',
  }),
  'audit-policy-file': flag.string({
    valueName: 'path',
    meaning:
      'YAML or JSON audit.k8s.io/v1 Policy: rules matched in order (users, userGroups, verbs, resources, namespaces, nonResourceURLs) giving a level (None, Metadata, Request, RequestResponse) and omitStages. Required with --audit-log-path.',
  }),
  'audit-log-maxsize': flag.int({
    default: 0,
    valueName: 'MB',
    meaning: 'Rotate the audit log file when it reaches this many megabytes: it is renamed with its rotation time (audit-2024-01-02T15-04-05.000.log) and a new one started. 0: never rotate.',
    validate: (n) => (n >= 0 ? undefined : 'must not be negative'),
  }),
  'audit-log-maxbackup': flag.int({
    default: 0,
    valueName: 'n',
    meaning: 'Rotated audit log files to keep (the oldest are removed). 0: keep them all (unless --audit-log-maxage removes them).',
    validate: (n) => (n >= 0 ? undefined : 'must not be negative'),
  }),
  'audit-log-maxage': flag.int({
    default: 0,
    valueName: 'days',
    meaning: 'Remove rotated audit log files older than this many days. 0: keep them whatever their age.',
    validate: (n) => (n >= 0 ? undefined : 'must not be negative'),
  }),
  'cors-allowed-origins': flag.stringSlice({
    valueName: 'patterns',
    meaning:
      'Regular expressions an Origin header is tested against; a match gets CORS headers (credentials allowed) and its preflights a 204, other origins\' preflights a 403. Empty (the default): no CORS. Anchor each pattern (^https://dash\\.example\\.com$): an unanchored one matches anywhere in the origin.',
  }),
  'browser-session-ttl': flag.duration({
    default: 15 * 60_000,
    meaning:
      'How long a browser session cookie from POST /browser-session lasts (it authenticates reads and watches only; docs/dashboard.md). 0 turns the exchange off.',
    validate: (ms) => (ms >= 0 ? undefined : 'must not be negative'),
  }),
  'requestheader-client-ca-file': flag.string({
    valueName: 'path',
    meaning:
      'PEM CA bundle a front proxy\'s client certificate must chain to before its --requestheader-username-headers are believed (the API server itself, in front of aggregated servers, is one). Default: the front-proxy CA generated in <data-dir>/pki/front-proxy-ca.crt.',
  }),
  'requestheader-allowed-names': flag.stringSlice({
    valueName: 'names',
    meaning:
      'Common names a front proxy\'s client certificate may have; empty allows any the CA signed. Default: front-proxy-client with the generated CA, empty with --requestheader-client-ca-file.',
  }),
  'requestheader-username-headers': flag.stringSlice({
    default: ['X-Remote-User'],
    valueName: 'headers',
    meaning: 'Headers a verified front proxy names the user in; the first one present wins.',
  }),
  'requestheader-group-headers': flag.stringSlice({
    default: ['X-Remote-Group'],
    valueName: 'headers',
    meaning: 'Headers a verified front proxy names the user\'s groups in; every value of each counts.',
  }),
  'requestheader-extra-headers-prefix': flag.stringSlice({
    default: ['X-Remote-Extra-'],
    valueName: 'prefixes',
    meaning: 'Header prefixes a verified front proxy passes the user\'s extra attributes in; the rest of the name (percent-decoded, lowercased) is the key.',
  }),
  'proxy-client-cert-file': flag.string({
    valueName: 'path',
    meaning:
      'PEM client certificate the API server presents to aggregated API servers when it proxies to them (their --requestheader-client-ca-file must trust its CA). Default: <data-dir>/pki/front-proxy-client.crt, signed by the generated front-proxy CA.',
  }),
  'proxy-client-key-file': flag.string({ valueName: 'path', meaning: 'PEM private key of --proxy-client-cert-file.' }),
  'advertise-address': flag.string({
    valueName: 'ip',
    meaning:
      'The address pods reach this server at: the endpoint of the `kubernetes` Service. Default --bind-address, or, when that is 0.0.0.0, :: or a loopback address, the first address of the host\'s interfaces.',
    validate: (ip) => (isIP(ip) ? undefined : 'not an IP address'),
  }),
  'endpoint-reconciler-type': flag.enum(['master-count', 'lease', 'none'], {
    default: 'lease',
    meaning:
      'How the `kubernetes` Service and its endpoints are kept: lease (each API server renews a Lease in svc-system and lists every live one), master-count (each server adds itself and trims the list to --apiserver-count; a dead server stays listed until another takes its place, as upstream) or none (not at all).',
  }),
  'apiserver-count': flag.int({
    default: 1,
    valueName: 'n',
    meaning: 'The number of API servers in the cluster, read with --endpoint-reconciler-type=master-count only (the lease reconciler counts live servers itself).',
    validate: (n) => (n >= 1 ? undefined : 'must be a positive number'),
  }),
  v: flag.int({
    short: 'v',
    default: 0,
    valueName: 'level',
    meaning: 'Log verbosity: 0 logs warnings and errors (every request answered 5xx, with its verb, path, user and error), 2 adds every request, 4 debug, 6 and above trace.',
    validate: (n) => (n >= 0 ? undefined : 'must not be negative'),
  }),
});

export type ApiServerFlags = FlagValues<typeof apiServerFlags>;

function unknownAdmissionPlugin(names: readonly string[]): string | undefined {
  const unknown = names.find((name) => !isAdmissionPluginName(name));
  return unknown === undefined ? undefined : `unknown admission plugin ${JSON.stringify(unknown)}; known plugins: ${ADMISSION_PLUGINS.join(', ')}`;
}

export const apiServerDoc: CommandDoc = {
  name: 'svc-apiserver',
  usage: 'svc-apiserver [flags]',
  summary:
    'Serves the svc resource API over HTTPS, storing objects in sqlite (default), etcd or memory. Clients authenticate with bearer tokens, service-account tokens or client certificates; the admin client config is written to <data-dir>/admin.svcconfig.',
  source: 'src/cli/apiserver-flags.ts',
};

/**
 * The server's configuration from parsed flags, with the checks that involve more than one flag
 * (each flag's own checks ran while parsing). Throws `FlagError`.
 */
export function apiServerConfig(flags: ApiServerFlags): ApiServerConfig {
  if (flags.storage === 'etcd' && flags.etcdServers.length === 0) {
    throw new FlagError('--etcd-servers is required with --storage=etcd', '--etcd-servers');
  }
  if ((flags.tlsCertFile === undefined) !== (flags.tlsPrivateKeyFile === undefined)) {
    const missing = flags.tlsCertFile === undefined ? '--tls-cert-file' : '--tls-private-key-file';
    throw new FlagError(`${missing} is required when the other of --tls-cert-file/--tls-private-key-file is given`, missing);
  }
  if ((flags.nodeAgentClientCertificate === undefined) !== (flags.nodeAgentClientKey === undefined)) {
    const missing = flags.nodeAgentClientCertificate === undefined ? '--node-agent-client-certificate' : '--node-agent-client-key';
    throw new FlagError(`${missing} is required when the other of --node-agent-client-certificate/--node-agent-client-key is given`, missing);
  }
  if (flags.auditLogPath !== undefined && flags.auditPolicyFile === undefined) {
    throw new FlagError('--audit-policy-file is required with --audit-log-path: the policy says what is logged', '--audit-policy-file');
  }
  if ((flags.proxyClientCertFile === undefined) !== (flags.proxyClientKeyFile === undefined)) {
    const missing = flags.proxyClientCertFile === undefined ? '--proxy-client-cert-file' : '--proxy-client-key-file';
    throw new FlagError(`${missing} is required when the other of --proxy-client-cert-file/--proxy-client-key-file is given`, missing);
  }
  let corsAllowedOrigins: RegExp[];
  try {
    corsAllowedOrigins = parseAllowedOrigins(flags.corsAllowedOrigins);
  } catch (error) {
    throw new FlagError((error as Error).message, '--cors-allowed-origins');
  }
  const both = flags.enableAdmissionPlugins.find((name) => flags.disableAdmissionPlugins.includes(name));
  if (both !== undefined) {
    throw new FlagError(`${both} is both enabled and disabled: name it in only one of --enable-admission-plugins and --disable-admission-plugins`, '--disable-admission-plugins');
  }
  return {
    dataDir: flags.dataDir,
    storage: flags.storage,
    etcdServers: flags.etcdServers,
    // The store wants a prefix that ends with "/"; the flag is spelled like kube's, without.
    etcdPrefix: flags.etcdPrefix.endsWith('/') ? flags.etcdPrefix : `${flags.etcdPrefix}/`,
    bindAddress: flags.bindAddress,
    securePort: flags.securePort,
    ...(flags.listenBacklog !== 0 ? { listenBacklog: flags.listenBacklog } : {}),
    listenerCopies: flags.listenerCopies,
    ...(flags.advertiseAddress !== undefined ? { advertiseAddress: flags.advertiseAddress } : {}),
    endpointReconcilerType: flags.endpointReconcilerType,
    ...(flags.endpointReconcilerType === 'master-count' ? { apiserverCount: flags.apiserverCount } : {}),
    ...(flags.tlsCertFile !== undefined && flags.tlsPrivateKeyFile !== undefined
      ? { tls: { certFile: flags.tlsCertFile, keyFile: flags.tlsPrivateKeyFile } }
      : {}),
    ...(flags.tokenAuthFile !== undefined ? { tokenAuthFile: flags.tokenAuthFile } : {}),
    ...(flags.clientCaFile !== undefined ? { clientCaFile: flags.clientCaFile } : {}),
    anonymousAuth: flags.anonymousAuth,
    serviceAccountKeyFiles: flags.serviceAccountKeyFile,
    ...(flags.serviceAccountSigningKeyFile !== undefined ? { serviceAccountSigningKeyFile: flags.serviceAccountSigningKeyFile } : {}),
    serviceAccountIssuers: flags.serviceAccountIssuer,
    apiAudiences: flags.apiAudiences,
    serviceAccountMaxTokenExpirationSeconds: Math.floor(flags.serviceAccountMaxTokenExpiration / 1000),
    authorization: parseAuthorizationModes(flags.authorizationMode.join(',')),
    featureGates: resolveFeatureGates(flags.featureGates),
    serviceNetwork: { clusterIpRange: flags.serviceClusterIpRange, nodePortRange: flags.serviceNodePortRange },
    maxRequestBodyBytes: flags.maxRequestBodyBytes,
    connectionTimeouts: { headerMs: flags.requestHeaderTimeout, bodyMs: flags.requestBodyTimeout },
    minRequestTimeoutSeconds: flags.minRequestTimeout,
    watchHistoryWindowMs: flags.watchHistoryWindow,
    bookmarkIntervalMs: flags.watchBookmarkInterval,
    watchWriteIntervalMs: flags.watchWriteInterval,
    watchBufferEvents: flags.watchBufferEvents,
    eventTtlSeconds: flags.eventTtl / 1000,
    cacheEvents: flags.watchCacheEvents,
    verbosity: flags.v,
    corsAllowedOrigins,
    browserSessionTtlSeconds: Math.floor(flags.browserSessionTtl / 1000),
    flowControl: { maxRequestsInflight: flags.maxRequestsInflight, maxMutatingRequestsInflight: flags.maxMutatingRequestsInflight },
    ...(flags.auditLogPath !== undefined && flags.auditPolicyFile !== undefined
      ? {
          audit: {
            logPath: flags.auditLogPath,
            policyFile: flags.auditPolicyFile,
            maxSizeMegabytes: flags.auditLogMaxsize,
            maxBackups: flags.auditLogMaxbackup,
            maxAgeDays: flags.auditLogMaxage,
          },
        }
      : {}),
    admissionPlugins: { enable: flags.enableAdmissionPlugins, disable: flags.disableAdmissionPlugins },
    requestHeader: {
      clientCaFile: flags.requestheaderClientCaFile,
      ...(flags.requestheaderAllowedNames.length > 0 ? { allowedNames: flags.requestheaderAllowedNames } : {}),
      usernameHeaders: flags.requestheaderUsernameHeaders,
      groupHeaders: flags.requestheaderGroupHeaders,
      extraHeadersPrefixes: flags.requestheaderExtraHeadersPrefix,
    },
    ...(flags.proxyClientCertFile !== undefined && flags.proxyClientKeyFile !== undefined
      ? { proxyClient: { certFile: flags.proxyClientCertFile, keyFile: flags.proxyClientKeyFile } }
      : {}),
    metricResolutionMs: flags.metricResolution,
    nodeAgent: {
      clientCertificateFile: flags.nodeAgentClientCertificate,
      clientKeyFile: flags.nodeAgentClientKey,
      certificateAuthorityFile: flags.nodeAgentCertificateAuthority,
      timeoutMs: flags.nodeAgentTimeout,
    },
  };
}
