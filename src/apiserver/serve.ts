import { createHash } from 'node:crypto';
import { mkdir, readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { isIPv6 } from 'node:net';
import { join } from 'node:path';
import { openStore, type BackendName, type Store } from '../storage/index.js';
import { buildApp } from './app.js';
import type { NodeAgentProxyOptions } from './subresources/node-agent-proxy.js';
import type { ConnectionTimeouts } from './connection-timeouts.js';
import {
  ADMIN_USER,
  anonymousAllowed,
  BootstrapTokens,
  ensureAdminToken,
  ensureSigningKey,
  readClientCa,
  readSigningKey,
  readTokenFile,
  readVerificationKeys,
  ServiceAccountTokens,
  unionAuthenticator,
} from './authn/index.js';

import type { AuthorizationMode } from './authz/index.js';
import { AuditLogFile, parseAuditPolicy } from './audit/index.js';
import type { FlowControlOptions } from './flowcontrol/index.js';
import { copyListener, listenBacklog } from '../listening/index.js';
import { ensureFrontProxyPki, ensurePki, FRONT_PROXY_CLIENT, loadServingCertificate, servingNames, type ServingNames } from '../pki/index.js';
import { firstServiceIp } from '../api/index.js';
import type { RequestHeaderOptions } from './authn/index.js';
import type { ProxyClientCertificate } from './aggregation/index.js';

/**
 * Running the API server for real: TLS material, tokens, the store and `listen`. `buildApp`
 * stays free of all of it so tests can `inject` without any of this. (The admin svcconfig is
 * written by the CLI layer: the apiserver layer does not import the client.)
 */

export interface ApiServerConfig {
  /** Holds state.db (sqlite), pki/, admin-token, service-account.key and admin.svcconfig; created if missing. */
  readonly dataDir: string;
  readonly storage: BackendName;
  readonly etcdServers?: readonly string[] | undefined;
  /** etcd key prefix, ending with `/`. */
  readonly etcdPrefix?: string | undefined;
  readonly bindAddress: string;
  /** 0 picks a free port (see `RunningApiServer.port`). */
  readonly securePort: number;
  /** `--listen-backlog`: the accept queue's length; default `net.core.somaxconn` (more is capped at it, and logged). */
  readonly listenBacklog?: number | undefined;
  /** `--listener-copies`: extra handles on the listening socket, each one more accept a loop turn (default 63; src/listening). */
  readonly listenerCopies?: number | undefined;
  /** `--advertise-address`: the `kubernetes` Service's endpoint, in the serving certificate. */
  readonly advertiseAddress?: string | undefined;
  /** `--endpoint-reconciler-type` (default lease; the CLI layer runs the loop). */
  readonly endpointReconcilerType?: 'master-count' | 'lease' | 'none' | undefined;
  /** `--apiserver-count`: how many servers the master-count reconciler keeps listed (default 1). */
  readonly apiserverCount?: number | undefined;
  /** The serving certificate and key; without them the server uses its own CA in `<dataDir>/pki`. */
  readonly tls?: { readonly certFile: string; readonly keyFile: string } | undefined;
  readonly tokenAuthFile?: string | undefined;
  /** PEM bundle of the CAs whose client certificates authenticate (user = CN, groups = O). */
  readonly clientCaFile?: string | undefined;
  /** Whether requests without credentials are `system:anonymous` (default true; see `anonymousAllowed`). */
  readonly anonymousAuth?: boolean | undefined;
  /** PEM files of public keys service-account tokens are checked with (the signing key's is always included). */
  readonly serviceAccountKeyFiles?: readonly string[] | undefined;
  /** The private key tokens are signed with; default `<dataDir>/service-account.key`, generated on first start. */
  readonly serviceAccountSigningKeyFile?: string | undefined;
  /** Token issuers: the first signs, all are accepted. */
  readonly serviceAccountIssuers?: readonly string[] | undefined;
  /** Audiences a token must name one of (default: the issuers). */
  readonly apiAudiences?: readonly string[] | undefined;
  /** Longest token TokenRequest grants, in seconds (0: no cap). */
  readonly serviceAccountMaxTokenExpirationSeconds?: number | undefined;
  readonly featureGates?: Readonly<Record<string, boolean>> | undefined;
  /** `--service-cluster-ip-range`, `--service-node-port-range`. */
  readonly serviceNetwork?: { readonly clusterIpRange?: string | undefined; readonly nodePortRange?: string | undefined } | undefined;
  /** `--authorization-mode` (default RBAC). */
  readonly authorization?: readonly AuthorizationMode[] | undefined;
  readonly maxRequestBodyBytes?: number | undefined;
  /** `--request-header-timeout` and `--request-body-timeout`. */
  readonly connectionTimeouts?: ConnectionTimeouts | undefined;
  readonly minRequestTimeoutSeconds?: number | undefined;
  readonly watchHistoryWindowMs?: number | undefined;
  readonly bookmarkIntervalMs?: number | undefined;
  readonly watchWriteIntervalMs?: number | undefined;
  readonly watchBufferEvents?: number | undefined;
  /** `--event-ttl`, in seconds (default 3600; 0: Events are kept for good). */
  readonly eventTtlSeconds?: number | undefined;
  /** `--watch-cache-events` (default true). */
  readonly cacheEvents?: boolean | undefined;
  /** Admission plugins turned on and off beyond the defaults. */
  readonly admissionPlugins?: { readonly enable?: readonly string[]; readonly disable?: readonly string[] } | undefined;
  /** `-v`: 0 warnings and errors, 2 requests, 4 debug, 6 trace. */
  readonly verbosity?: number | undefined;
  /** Where logs go (default stderr, so stdout carries only what the command prints). */
  readonly logStream?: NodeJS.WritableStream | undefined;
  /** `--max-requests-inflight`, `--max-mutating-requests-inflight` (default 400 and 200). */
  readonly flowControl?: FlowControlOptions | undefined;
  /** `--audit-log-path` (`-`: stdout), `--audit-policy-file` and the rotation flags; absent: no audit. */
  readonly audit?: AuditConfig | undefined;
  /** `--node-agent-client-certificate`, `--node-agent-client-key`, `--node-agent-certificate-authority` (PEM files), `--node-agent-timeout`. */
  readonly nodeAgent?: NodeAgentClientConfig | undefined;
  /** `--requestheader-*`: which front proxies may name the user in headers (docs/aggregation.md). */
  readonly requestHeader?: RequestHeaderConfig | undefined;
  /** `--proxy-client-cert-file` / `--proxy-client-key-file`: the certificate presented to aggregated servers. */
  readonly proxyClient?: { readonly certFile: string; readonly keyFile: string } | undefined;
  /** How often remote APIServices are checked (default 10 s; no flag: tests set it). */
  readonly aggregatorCheckIntervalMs?: number | undefined;
  /** `--metric-resolution`: how often the resource metrics read the node agents (default 15 s). */
  readonly metricResolutionMs?: number | undefined;
  /** `--cors-allowed-origins`, compiled. */
  readonly corsAllowedOrigins?: readonly RegExp[] | undefined;
  /** `--browser-session-ttl` in seconds; 0 turns browser sessions off. */
  readonly browserSessionTtlSeconds?: number | undefined;
}

/**
 * Requestheader authentication. Without `clientCaFile` the generated front-proxy CA
 * (`<data-dir>/pki/front-proxy-ca.crt`) is trusted, for the names in `allowedNames`, default
 * its client certificate's `front-proxy-client`.
 */
export interface RequestHeaderConfig {
  readonly clientCaFile?: string | undefined;
  readonly allowedNames?: readonly string[] | undefined;
  readonly usernameHeaders?: readonly string[] | undefined;
  readonly groupHeaders?: readonly string[] | undefined;
  readonly extraHeadersPrefixes?: readonly string[] | undefined;
}

export interface AuditConfig {
  readonly logPath: string;
  readonly policyFile: string;
  readonly maxSizeMegabytes?: number | undefined;
  readonly maxBackups?: number | undefined;
  readonly maxAgeDays?: number | undefined;
}

/** How the API server connects to node agents (kube-apiserver's `--kubelet-client-*`). */
export interface NodeAgentClientConfig {
  readonly clientCertificateFile?: string | undefined;
  readonly clientKeyFile?: string | undefined;
  readonly certificateAuthorityFile?: string | undefined;
  readonly timeoutMs?: number | undefined;
}

async function nodeAgentProxyOptions(config: NodeAgentClientConfig | undefined): Promise<NodeAgentProxyOptions> {
  const read = (file: string | undefined) => (file === undefined ? undefined : readFile(file, 'utf8'));
  return {
    clientCertificate: await read(config?.clientCertificateFile),
    clientKey: await read(config?.clientKeyFile),
    certificateAuthority: await read(config?.certificateAuthorityFile),
    timeoutMs: config?.timeoutMs,
  };
}

/**
 * The front proxy's two halves: who may name users in headers here, and the certificate this
 * server presents to aggregated servers. When the server is its own CA (no --tls-cert-file),
 * what the flags do not give comes from a generated front-proxy CA in `<data-dir>/pki`, as
 * kubeadm sets a cluster up; with a given serving certificate, only the flags count.
 */
async function frontProxyOptions(config: ApiServerConfig): Promise<{ requestHeader?: RequestHeaderOptions; proxyClient?: ProxyClientCertificate }> {
  const given = config.requestHeader ?? {};
  const needGenerated = config.tls === undefined && (given.clientCaFile === undefined || config.proxyClient === undefined);
  const generated = needGenerated ? await ensureFrontProxyPki(join(config.dataDir, 'pki')) : undefined;
  const clientCa = given.clientCaFile !== undefined ? await readClientCa(given.clientCaFile, '--requestheader-client-ca-file') : generated?.caPem;
  const requestHeader: RequestHeaderOptions | undefined = clientCa
    ? {
        clientCa,
        allowedNames: given.allowedNames ?? (given.clientCaFile === undefined ? [FRONT_PROXY_CLIENT] : []),
        usernameHeaders: given.usernameHeaders,
        groupHeaders: given.groupHeaders,
        extraHeaderPrefixes: given.extraHeadersPrefixes,
      }
    : undefined;
  const proxyClient = config.proxyClient
    ? { cert: await readFile(config.proxyClient.certFile, 'utf8'), key: await readFile(config.proxyClient.keyFile, 'utf8') }
    : generated && { cert: generated.cert, key: generated.key };
  return { ...(requestHeader ? { requestHeader } : {}), ...(proxyClient ? { proxyClient } : {}) };
}

export interface ServingApiServer {
  /** The URL clients use: loopback when bound to every interface. */
  readonly url: string;
  /** The address listened on: `https://<bind-address>:<port>`. */
  readonly listenUrl: string;
  readonly port: number;
  /** PEM of the CA clients must trust; `undefined` when a given certificate chains to no root in its file. */
  readonly caPem: string | undefined;
  readonly adminToken: string;
  /**
   * The store the server serves from. A write made here reaches watchers as any write does (the
   * watch cache follows the store), without the API's admission and validation: for benchmarks
   * and tests that need writes the HTTP path cannot make fast enough.
   */
  readonly store: Store;
  /** Extra handles on the listening socket (`--listener-copies`): the server accepts this many + 1 connections a loop turn. */
  readonly listenerCopies: number;
  /** Stops listening (open requests and watches end), then closes the store. Idempotent. */
  close(): Promise<void>;
}

const UNSPECIFIED = new Set(['0.0.0.0', '::']);
/** `--listener-copies`' default: 64 accepts a loop turn (src/listening/listener-copies.ts). */
export const DEFAULT_LISTENER_COPIES = 63;
/** `--service-account-issuer`'s default, k3s's: the in-cluster name of the API server. */
export const DEFAULT_ISSUER = 'https://kubernetes.default.svc.cluster.local';

/** The generated service-account signing key, beside admin-token (pki/ exists only when the server is its own CA). */
const SIGNING_KEY_FILE = 'service-account.key';

function logLevel(verbosity: number): string {
  if (verbosity >= 6) return 'trace';
  if (verbosity >= 4) return 'debug';
  if (verbosity >= 2) return 'info';
  return 'warn';
}

/** `host:port` in a URL, with IPv6 literals bracketed. */
function urlFor(host: string, port: number): string {
  return `https://${isIPv6(host) ? `[${host}]` : host}:${port}`;
}

/**
 * The names a pod reaches the server by, beside the host's: the `kubernetes` Service's cluster IP
 * and DNS names, and the advertised address (client libraries verify them in-cluster).
 */
function inClusterNames(names: ServingNames, config: ApiServerConfig): ServingNames {
  const ips = [...names.ips, firstServiceIp(config.serviceNetwork?.clusterIpRange ?? DEFAULT_SERVICE_CIDR)];
  if (config.advertiseAddress !== undefined) ips.push(config.advertiseAddress);
  const dns = [...names.dns, 'kubernetes', 'kubernetes.default', 'kubernetes.default.svc', 'kubernetes.default.svc.cluster.local'];
  return { dns: [...new Set(dns)], ips: [...new Set(ips)] };
}

/** Kubernetes' default `--service-cluster-ip-range`. */
export const DEFAULT_SERVICE_CIDR = '10.0.0.0/24';

/** Starts serving; resolves once the port is bound. */
export async function serveApiServer(config: ApiServerConfig): Promise<ServingApiServer> {
  await mkdir(config.dataDir, { recursive: true, mode: 0o700 });

  // Everything that can fail on bad input is checked before the store is opened and the port bound.
  const serving = config.tls
    ? await loadServingCertificate(config.tls.certFile, config.tls.keyFile)
    : await ensurePki(join(config.dataDir, 'pki'), inClusterNames(servingNames(config.bindAddress), config));
  const adminToken = await ensureAdminToken(config.dataDir);
  const fileTokens = config.tokenAuthFile !== undefined ? await readTokenFile(config.tokenAuthFile) : [];
  const clientCa = config.clientCaFile !== undefined ? await readClientCa(config.clientCaFile) : undefined;
  const frontProxy = await frontProxyOptions(config);
  const nodeAgentProxy = await nodeAgentProxyOptions(config.nodeAgent);
  const auditPolicy = config.audit ? parseAuditPolicy(await readFile(config.audit.policyFile, 'utf8'), config.audit.policyFile) : undefined;
  const signingKey =
    config.serviceAccountSigningKeyFile !== undefined
      ? await readSigningKey(config.serviceAccountSigningKeyFile)
      : await ensureSigningKey(join(config.dataDir, SIGNING_KEY_FILE));
  const serviceAccountTokens = new ServiceAccountTokens({
    issuers: config.serviceAccountIssuers?.length ? config.serviceAccountIssuers : [DEFAULT_ISSUER],
    audiences: config.apiAudiences,
    signingKey,
    verificationKeys: await readVerificationKeys(config.serviceAccountKeyFiles ?? []),
    maxExpirationSeconds: config.serviceAccountMaxTokenExpirationSeconds,
  });
  // Bootstrap tokens authenticate the nodes that join with one (docs/authentication.md#bootstrap-tokens).
  const bootstrapTokens = new BootstrapTokens();
  // Anonymous requests are let in only under an authorizer that can refuse them (RBAC).
  const anonymous = anonymousAllowed(config.anonymousAuth ?? true, config.authorization ?? ['RBAC']);
  const authentication = unionAuthenticator({
    clientCertificates: clientCa !== undefined,
    clientCa,
    requestHeader: frontProxy.requestHeader,
    tokens: [...fileTokens, { token: adminToken, user: ADMIN_USER }],
    serviceAccounts: serviceAccountTokens,
    bootstrapTokens,
    anonymous: anonymous.allowed,
  });

  const opened = await openStore({
    backend: config.storage,
    dataDir: config.dataDir,
    ...(config.storage === 'etcd' ? { etcdServers: [...(config.etcdServers ?? [])], prefix: config.etcdPrefix } : {}),
  });
  let app: Awaited<ReturnType<typeof buildApp>>;
  let auditLog: AuditLogFile | undefined;
  try {
    if (config.audit && auditPolicy) {
      const logStream = config.logStream ?? process.stderr;
      auditLog = new AuditLogFile({
        path: config.audit.logPath,
        maxSizeMegabytes: config.audit.maxSizeMegabytes,
        maxBackups: config.audit.maxBackups,
        maxAgeDays: config.audit.maxAgeDays,
        onDrop: () => logStream.write(`${JSON.stringify({ level: 40, time: Date.now(), msg: 'audit events are being dropped: the audit log cannot keep up' })}\n`),
      });
    }
    app = await buildApp({
      store: opened.store,
      authenticate: authentication.authenticate,
      authenticateToken: authentication.authenticateToken,
      serviceAccountTokens,
      bootstrapTokens,
      maxRequestBodyBytes: config.maxRequestBodyBytes,
      connectionTimeouts: config.connectionTimeouts,
      minRequestTimeoutSeconds: config.minRequestTimeoutSeconds,
      watchHistoryWindowMs: config.watchHistoryWindowMs,
      bookmarkIntervalMs: config.bookmarkIntervalMs,
      watchWriteIntervalMs: config.watchWriteIntervalMs,
      watchBufferEvents: config.watchBufferEvents,
      eventTtlSeconds: config.eventTtlSeconds,
      cacheEvents: config.cacheEvents,
      featureGates: config.featureGates,
      serviceNetwork: config.serviceNetwork,
      authorization: config.authorization,
      admissionPlugins: config.admissionPlugins,
      nodeAgentProxy,
      metricResolutionMs: config.metricResolutionMs,
      flowControl: config.flowControl,
      corsAllowedOrigins: config.corsAllowedOrigins,
      browserSessions: config.browserSessionTtlSeconds === 0 ? false : { ttlSeconds: config.browserSessionTtlSeconds },
      ...(auditLog && auditPolicy ? { audit: { policy: auditPolicy, sink: auditLog } } : {}),
      logger: { level: logLevel(config.verbosity ?? 0), stream: config.logStream ?? process.stderr },
      // The handshake trusts both client CAs; authentication tells which one signed (authn/issued-by.ts).
      https: { cert: serving.cert, key: serving.key, clientCa: [clientCa, frontProxy.requestHeader?.clientCa].filter((pem) => pem !== undefined).join('\n') || undefined },
      aggregation: { proxyClient: frontProxy.proxyClient, checkIntervalMs: config.aggregatorCheckIntervalMs },
      // Derived from persisted state, so continue tokens stay good across a restart.
      continueTokenKey: createHash('sha256').update('svc continue tokens\n').update(adminToken).digest(),
    });
  } catch (error) {
    auditLog?.close();
    await opened.close();
    throw error;
  }

  const { backlog, capped } = listenBacklog(config.listenBacklog);
  try {
    await app.listen({ host: config.bindAddress, port: config.securePort, backlog });
  } catch (error) {
    await app.close();
    await opened.close();
    const code = (error as NodeJS.ErrnoException).code;
    const reason = code === 'EADDRINUSE' ? 'the address is in use' : code === 'EADDRNOTAVAIL' ? 'no such local address' : (error as Error).message;
    throw new Error(`cannot listen on ${urlFor(config.bindAddress, config.securePort)}: ${reason}`);
  }

  // Said once the logger exists, and only when the flag asked for anonymous requests.
  if (config.anonymousAuth !== false && anonymous.warning) app.log.info(anonymous.warning);
  if (capped !== undefined) app.log.warn(capped);
  // A loop made slow by load must still take connections faster than one a turn (docs/apiserver.md#accepting-connections).
  const copies = await copyListener(app.server, config.listenerCopies ?? DEFAULT_LISTENER_COPIES, backlog);
  if (copies.shortfall !== undefined) app.log.warn(copies.shortfall);
  const port = (app.server.address() as AddressInfo).port;
  const clientHost = UNSPECIFIED.has(config.bindAddress) ? '127.0.0.1' : config.bindAddress;
  const url = urlFor(clientHost, port);
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      try {
        // The copies stop accepting at once; their connections are the server's, closed with its own.
        await Promise.all([copies.close(), app.close()]);
      } finally {
        await opened.close();
      }
    })());
  return { url, listenUrl: urlFor(config.bindAddress, port), port, caPem: serving.caPem, adminToken, store: opened.store, listenerCopies: copies.count, close };
}
