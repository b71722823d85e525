import type { Server as TlsServer } from 'node:tls';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, type HookHandlerDoneFunction } from 'fastify';
import { badRequest, builtinRegistry, unauthorized, unsupportedMediaType, type ResourceRegistry, SVC_VERSION } from '../api/index.js';
import type { Store } from '../storage/index.js';
import { readPausedTlsConnectionsThroughStreams } from '../tls-connections/index.js';
import type { Authenticator, UserInfo } from './authn/user.js';
import { cachedBoundObjects, legacyTokenUseRecorder, type Authentication, type BootstrapTokens, type ServiceAccountTokens } from './authn/index.js';
import { chainAuthorizers, isApiPath, nonResourceAttributesOf, RbacState, reconcileBootstrapPolicy, requireAllowed, type AuthorizationMode } from './authz/index.js';
import { virtualResources } from './virtual/index.js';
import { cachedNodeEndpoints, ResourceMetrics, resourceMetricsHandlers } from './resource-metrics/index.js';
import { Admission } from './admission/index.js';
import { versionInfo } from './discovery.js';
import { ensureSystemNamespaces } from './namespaces.js';
import { ContinueTokens } from './continue-token.js';
import { WriteHold } from './watch/write-hold.js';
import { CBOR_BODY_TYPES, DEFAULT_WATCH_SETTINGS, JSON_BODY_TYPES, PROTOBUF_BODY_TYPES, YAML_BODY_TYPES, type WatchSettings } from './request/index.js';
import { ObjectReader } from './object-reader.js';
import { ResourceCaches } from './resource-caches.js';
import { CustomResourceDefinitions, serveCustomResourceDefinitions } from './crd/index.js';
import { openApiDocument, openApiRoot } from './openapi.js';
import { resourceRouter } from './resource-router.js';
import { jsonBody } from './json-newline.js';
import { pathNotFound, sendStatus, toStatusError } from './status.js';
import { installNodeAgentProxy, type NodeAgentProxyOptions } from './subresources/node-agent-proxy.js';
import { DEFAULT_CONNECTION_TIMEOUTS, serverTimeoutOptions, type ConnectionTimeouts } from './connection-timeouts.js';
import { requestGate } from './request-gate.js';
import { TurnBudget, TURN_BUDGET_MS } from './turn-budget.js';
import { FlowControl, type FlowControlOptions } from './flowcontrol/index.js';
import { ApiServerMetrics, installMetrics, longRunningTracker, MeteredStore, watchCacheSamples } from './metrics/index.js';
import { installAudit, type AuditOptions } from './audit/index.js';
import { DEFAULT_EVENT_TTL_SECONDS, withEventTtl } from './event-ttl-store.js';
import { Aggregator, serveApiServices, type AggregatorOptions } from './aggregation/index.js';
import { installCors } from './cors.js';
import { BROWSER_SESSION_PATH, BrowserSessions, hasCredentialInUrl, type BrowserSessionsOptions } from './authn/browser-sessions.js';
import { withWebSocketBearer } from './authn/websocket-bearer.js';
import { DEFAULT_SERVICE_CLUSTER_IP_RANGE, DEFAULT_SERVICE_NODE_PORT_RANGE, parseClusterIpRanges, parseNodePortRange, ServiceAllocator } from './services/index.js';

export interface ApiServerOptions {
  /** The store objects live in (bytes: each object's JSON). */
  store: Store;
  /** Resolves the caller of every request but the health checks. */
  authenticate: Authenticator;
  /** The resource types served (default: every built-in type). */
  registry?: ResourceRegistry;
  /** Largest accepted request body (default 3 MiB; larger → 413). */
  maxRequestBodyBytes?: number;
  /** How long a client may take to send a request's head, and all of it (`--request-header-timeout`, `--request-body-timeout`). */
  connectionTimeouts?: ConnectionTimeouts | undefined;
  /** Enabled feature gates (`--feature-gates`). */
  featureGates?: Readonly<Record<string, boolean>>;
  /** `--service-cluster-ip-range` and `--service-node-port-range` (default 10.0.0.0/24 and 30000-32767). */
  serviceNetwork?: { clusterIpRange?: string | undefined; nodePortRange?: string | undefined } | undefined;
  /** How often the Service allocations are repaired after the one at start (default 3 minutes, as kube). */
  serviceRepairIntervalMs?: number | undefined;
  /** pino logger options, or false for none. */
  logger?: boolean | object;
  /**
   * TLS material; without it the app serves plain HTTP (tests use `inject`). With `clientCa` the
   * server asks clients for a certificate (without requiring one) and verifies it against that CA.
   */
  https?: { key: string | Buffer; cert: string | Buffer; clientCa?: string | undefined };
  /** Service-account tokens: checked by `authenticate`, minted by the TokenRequest subresource. */
  serviceAccountTokens?: ServiceAccountTokens | undefined;
  /** Bootstrap tokens: their Secrets are looked up in the watch caches. */
  bootstrapTokens?: BootstrapTokens | undefined;
  /** Resolves a bare bearer token as a request carrying it would be (the TokenReview endpoint's). */
  authenticateToken?: Authentication['authenticateToken'] | undefined;
  /** svc's version, reported by `/version`. */
  version?: string;
  /** Events the watch caches keep for watches that start in the past (default 5 minutes). */
  watchHistoryWindowMs?: number | undefined;
  /** How often watches that allow bookmarks get one (default 15 s). */
  bookmarkIntervalMs?: number | undefined;
  /** How long a busy watch holds its frames to write them together (default 10 ms; 0: off). */
  watchWriteIntervalMs?: number | undefined;
  /** Events a watch may have waiting for a slow client before it is ended (default 1000). */
  watchBufferEvents?: number | undefined;
  /** Bytes a watch's response may hold unsent before its events wait (default 256 KiB; 0: the stream's high-water mark). */
  watchSocketBudgetBytes?: number | undefined;
  /**
   * How long one event-loop turn may spend starting requests before further ones wait for a
   * later turn (turn-budget.ts: so that watches send every turn). Default `TURN_BUDGET_MS` (10);
   * 0: no bound, every request starts in the turn it arrives.
   */
  turnBudgetMs?: number | undefined;
  /** Watches without timeoutSeconds end after [this, 2 × this] seconds (default 1800). */
  minRequestTimeoutSeconds?: number | undefined;
  /** How long a read waits for a resourceVersion the server has not reached before its 504 (default 3 s). */
  tooLargeResourceVersionWaitMs?: number | undefined;
  /**
   * Key of the continue tokens' MAC. Give one that survives restarts (the server derives it from
   * its admin token) so paged lists go on across them; default: random per process.
   */
  continueTokenKey?: Uint8Array | undefined;
  /**
   * `--authorization-mode`: the authorizers every request passes, in order (default RBAC, with
   * the default roles and bindings reconciled at start). See docs/authorization.md.
   */
  authorization?: readonly AuthorizationMode[] | undefined;
  /** `--enable-admission-plugins` / `--disable-admission-plugins` (default: every plugin on). */
  admissionPlugins?: { enable?: readonly string[] | undefined; disable?: readonly string[] | undefined } | undefined;
  /** How pods' log/exec/attach/portforward and nodes' proxy reach node agents (`--node-agent-*`). */
  nodeAgentProxy?: NodeAgentProxyOptions | undefined;
  /** In-flight limits and fair queuing (`--max-requests-inflight`, ...); default: upstream's limits. */
  flowControl?: FlowControlOptions | undefined;
  /** The audit policy and where its events go (`--audit-policy-file`, `--audit-log-path`); absent: no audit. */
  audit?: AuditOptions | undefined;
  /** The aggregation layer: the front-proxy client certificate, check interval and timeout (docs/aggregation.md). */
  aggregation?: Pick<AggregatorOptions, 'proxyClient' | 'checkIntervalMs' | 'timeoutMs'> | undefined;
  /** How often the resource metrics read the node agents (`--metric-resolution`, default 15 s; docs/autoscaling.md). */
  metricResolutionMs?: number | undefined;
  /** `--cors-allowed-origins`, compiled (cors.ts); none: no CORS answers, as upstream's default. */
  corsAllowedOrigins?: readonly RegExp[] | undefined;
  /** Browser session cookies (authn/browser-sessions.ts); `false` turns the exchange off. */
  browserSessions?: BrowserSessionsOptions | false | undefined;
  /**
   * `--event-ttl`: seconds an Event is kept after its last write, then deleted by the store
   * (default 3600, as kube-apiserver; 0: kept for good). The store deletes it: etcd by its lease,
   * sqlite and memory when their expiry sweep runs (`openStore` starts one; event-ttl-store.ts).
   */
  eventTtlSeconds?: number | undefined;
  /**
   * `--watch-cache-events`: whether the watch caches keep Events' objects (default true). false:
   * as kube-apiserver, Events' gets and lists read the store and their watches start from it;
   * their caches keep the history and the live stream only (docs/watch.md#which-types-are-cached).
   */
  cacheEvents?: boolean | undefined;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated caller (absent only on the health checks). */
    user?: UserInfo;
  }
}

const UNAUTHENTICATED = new Set(['/healthz', '/livez', '/readyz']);

/**
 * Request bodies the server decodes (JSON, YAML, protobuf, the patch types, and CBOR when its
 * gate is on); others are answered 415.
 */
const bodyTypes = (cbor: boolean): string[] => [...JSON_BODY_TYPES, ...YAML_BODY_TYPES, ...PROTOBUF_BODY_TYPES, ...(cbor ? CBOR_BODY_TYPES : [])];

/** Node's TLS options: with a client CA, certificates are requested, and checked by authentication, not the handshake. */
function httpsOptions({ key, cert, clientCa }: NonNullable<ApiServerOptions['https']>, timeouts: ConnectionTimeouts) {
  // A TLS handshake is part of reading the request head.
  const base = { key, cert, ...serverTimeoutOptions(timeouts), handshakeTimeout: timeouts.headerMs };
  // rejectUnauthorized: false keeps the handshake going with a bad certificate, so the client gets
  // a 401 Status it can read rather than a reset connection; `socket.authorized` says what OpenSSL found.
  return clientCa ? { ...base, ca: clientCa, requestCert: true, rejectUnauthorized: false } : base;
}

/** Builds the API server without listening: the entry point calls `listen`, tests call `inject`. */
export async function buildApp(options: ApiServerOptions): Promise<FastifyInstance> {
  const metrics = new ApiServerMetrics();
  const meteredStore = new MeteredStore(options.store, (operation, key, seconds) => metrics.storage(operation, key, options.store.prefix, seconds));
  const registry = options.registry ?? builtinRegistry();
  options = { ...options, store: withEventTtl(meteredStore, registry, options.eventTtlSeconds ?? DEFAULT_EVENT_TTL_SECONDS) };
  serveCustomResourceDefinitions(registry);
  const timeouts = options.connectionTimeouts ?? DEFAULT_CONNECTION_TIMEOUTS;
  serveApiServices(registry);
  const app = Fastify({
    logger: options.logger ?? false,
    bodyLimit: options.maxRequestBodyBytes ?? 3 * 1024 * 1024,
    requestTimeout: serverTimeoutOptions(timeouts).requestTimeout,
    ...(options.https ? { https: httpsOptions(options.https, timeouts) } : { http: serverTimeoutOptions(timeouts) }),
    // A URL Fastify cannot decode (`%zz`) is a 400 Status too, not Fastify's own error shape.
    frameworkErrors: (error, _request, reply) => void sendStatus(reply, badRequest(`the request URL is not valid: ${error.message}`)),
  }) as unknown as FastifyInstance;
  // A TLS connection Node pauses must keep its bytes, not be closed (src/tls-connections/paused-tls-reads.ts).
  if (options.https) readPausedTlsConnectionsThroughStreams(app.server as unknown as TlsServer);

  const BODY_TYPES = bodyTypes(options.featureGates?.['CBORServingAndStorage'] === true);
  app.removeAllContentTypeParsers();
  // Bodies arrive as bytes; handlers decode them so that a malformed body is their 400, not Fastify's.
  app.addContentTypeParser(BODY_TYPES, { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
  // A body without a Content-Type is JSON, as kube-apiserver reads it (client-go's scale client sends none).
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (req, body, done) =>
    req.headers['content-type'] === undefined ? done(null, body) : done(unsupportedMediaType(String(req.headers['content-type']), BODY_TYPES), undefined),
  );

  app.setErrorHandler((error, _request, reply) => sendStatus(reply, toStatusError(error)));
  installNodeAgentProxy(app, options.nodeAgentProxy);
  app.setNotFoundHandler((_request, reply) => sendStatus(reply, pathNotFound()));

  const modes = options.authorization ?? ['RBAC'];
  const rbac = modes.includes('RBAC') ? new RbacState() : undefined;
  const authorizer = chainAuthorizers(modes, rbac);

  app.decorateRequest('user', undefined);
  // Overload protection and the long-running gauge, applied once the user is known (request-gate.ts).
  const flowControl = new FlowControl(options.flowControl);
  flowControl.onReject = (kind, reason) => metrics.rejected(kind, reason);
  const gate = requestGate(app, flowControl, longRunningTracker(metrics, registry), new TurnBudget(options.turnBudgetMs ?? TURN_BUDGET_MS));
  // A callback hook, not an async one: token authentication is synchronous, and on the hot path
  // an await per request is a measurable share of a GET.
  // Defined once rather than as a closure per request: a GET allocates as little as it can.
  const accept = (request: FastifyRequest, reply: FastifyReply, path: string, user: UserInfo | undefined, done: HookHandlerDoneFunction): void => {
    if (!user) return done(unauthorized('Unauthorized'));
    request.user = user;
    // Paths outside /api and /apis are non-resource requests (/version, /openapi/v3/...). The
    // session exchange is open to every authenticated caller: it grants no more than their credential.
    if (!isApiPath(path) && path !== BROWSER_SESSION_PATH) {
      try {
        requireAllowed(authorizer, nonResourceAttributesOf(user, request.method, path));
      } catch (error) {
        return done(error as Error);
      }
    }
    gate(request, reply, path, done);
  };
  // CORS answers preflights before authentication (a preflight carries no credentials).
  installCors(app, options.corsAllowedOrigins ?? []);
  const sessions = options.browserSessions === false ? undefined : new BrowserSessions(options.browserSessions);
  const authenticate = withWebSocketBearer(options.authenticate);
  app.addHook('onRequest', (request, reply, done) => {
    const query = request.url.indexOf('?');
    const path = query < 0 ? request.url : request.url.slice(0, query);
    if (UNAUTHENTICATED.has(path)) return done();
    if (query >= 0 && hasCredentialInUrl(request.url)) {
      return done(unauthorized('a credential in the URL is refused (URLs are logged and kept): send it in the Authorization header, a WebSocket bearer protocol, or exchange it for a session cookie at ' + BROWSER_SESSION_PATH));
    }
    // A session cookie authenticates reads and watches only (authn/browser-sessions.ts says why),
    // and the session's own end.
    if (sessions && request.headers.authorization === undefined && request.headers.cookie !== undefined) {
      const method = request.method;
      if (method === 'GET' || method === 'HEAD' || (method === 'DELETE' && path === BROWSER_SESSION_PATH)) {
        const user = sessions.userOf(request.headers);
        if (user) return accept(request, reply, path, user, done);
      }
    }
    let result: ReturnType<Authenticator>;
    try {
      result = authenticate(request.headers, request.raw.socket);
    } catch (error) {
      return done(error as Error);
    }
    if (result instanceof Promise) result.then((user) => accept(request, reply, path, user, done), (error: Error) => done(error));
    else accept(request, reply, path, result, done);
  });

  if (options.audit) installAudit(app, options.audit);
  installMetrics(app, metrics, registry);

  for (const path of UNAUTHENTICATED) app.get(path, async (_req, reply) => reply.type('text/plain').send('ok'));
  if (sessions) {
    app.post(BROWSER_SESSION_PATH, async (request, reply) => {
      const user = request.user!;
      const session = sessions.open(user);
      return reply
        .code(201)
        .header('set-cookie', session.cookie)
        .header('cache-control', 'no-store')
        .type('application/json')
        .send(jsonBody({ kind: 'BrowserSession', apiVersion: 'v1', user: { username: user.name, groups: user.groups }, expiresAt: session.expiresAt.toISOString() }));
    });
    app.delete(BROWSER_SESSION_PATH, async (request, reply) => reply.code(204).header('set-cookie', sessions.close(request.headers)).send());
  }
  app.get('/version', async (_req, reply) => reply.type('application/json').send(jsonBody(versionInfo(options.version ?? SVC_VERSION))));
  app.get('/openapi/v3', async (_req, reply) => reply.type('application/json').send(jsonBody(openApiRoot(registry))));
  app.get('/openapi/v3/*', async (request, reply) => {
    const rest = (request.params as { '*': string })['*'].split('/');
    const [prefix, a, b] = rest;
    const doc =
      prefix === 'api' && a && !b ? openApiDocument(registry, '', a) : prefix === 'apis' && a && b ? openApiDocument(registry, a, b) : undefined;
    if (!doc) throw pathNotFound();
    return reply.type('application/json').send(jsonBody(doc));
  });

  const caches = new ResourceCaches({
    store: options.store,
    registry,
    historyWindowMs: options.watchHistoryWindowMs,
    // ListFromCacheSnapshot=false: Exact and continued lists are read from the store.
    ...(options.featureGates?.['ListFromCacheSnapshot'] === false ? { snapshotWindowMs: 0 } : {}),
    tooLargeWaitMs: options.tooLargeResourceVersionWaitMs,
    cacheEvents: options.cacheEvents,
  });
  const watch: WatchSettings = {
    bufferEvents: options.watchBufferEvents ?? DEFAULT_WATCH_SETTINGS.bufferEvents,
    socketBudgetBytes: options.watchSocketBudgetBytes,
    bookmarkIntervalMs: options.bookmarkIntervalMs ?? DEFAULT_WATCH_SETTINGS.bookmarkIntervalMs,
    writeHold: new WriteHold(options.watchWriteIntervalMs ?? DEFAULT_WATCH_SETTINGS.writeIntervalMs),
    minRequestTimeoutSeconds: options.minRequestTimeoutSeconds ?? DEFAULT_WATCH_SETTINGS.minRequestTimeoutSeconds,
    watchList: options.featureGates?.['WatchList'] !== false,
    open: new Set(),
    events: (type) => metrics.watchEvents(type.group, type.version, type.kind),
  };
  metrics.readFrom({ inflight: (kind) => flowControl.inflight(kind), watchCaches: watchCacheSamples(registry, caches) });
  // Requests for aggregated group-versions leave here, after authentication (its hook came first).
  // Made before CRDs are served: the groups served now are the built-in ones.
  const aggregator = new Aggregator({ store: options.store, registry, caches, authorizer, ...options.aggregation });
  app.addHook('onRequest', aggregator.onRequest);
  // Watches never end by themselves: closing the server ends them, or it would wait for them.
  const customResources = new CustomResourceDefinitions({ store: options.store, registry, caches });
  app.addHook('preClose', async () => {
    aggregator.stop();
    customResources.stop();
    caches.stop();
    rbac?.stop();
    for (const res of watch.open) res.end();
  });
  const reader = new ObjectReader(options.store);
  // The resource metrics API is served in process (no APIService to a metrics-server): docs/autoscaling.md.
  const nodeType = registry.lookup('', 'v1', 'nodes');
  const resourceMetrics = new ResourceMetrics({
    nodes: nodeType ? cachedNodeEndpoints(caches, nodeType, reader) : async () => [],
    proxy: app.nodeAgentProxy,
    resolutionMs: options.metricResolutionMs ?? 15_000,
    warn: (message) => app.log.warn(message),
  });
  app.addHook('onClose', () => resourceMetrics.stop());
  const boundObjects = cachedBoundObjects(caches, registry, reader);
  options.serviceAccountTokens?.bind(boundObjects);
  options.bootstrapTokens?.bind(boundObjects);
  options.serviceAccountTokens?.trackLegacyUse(legacyTokenUseRecorder(options.store, registry, reader));
  const admission = new Admission({ store: options.store, reader, registry, caches, authorizer, ...options.admissionPlugins });
  app.addHook('onClose', () => admission.stop());
  const serviceType = registry.byKind('', 'Service');
  const services = serviceType
    ? new ServiceAllocator({
        store: options.store,
        reader,
        serviceType,
        clusterIpRanges: parseClusterIpRanges(options.serviceNetwork?.clusterIpRange ?? DEFAULT_SERVICE_CLUSTER_IP_RANGE),
        nodePortRange: parseNodePortRange(options.serviceNetwork?.nodePortRange ?? DEFAULT_SERVICE_NODE_PORT_RANGE),
      })
    : undefined;
  const route = resourceRouter({
    services,
    store: options.store,
    reader,
    admission,
    registry,
    caches,
    tokens: new ContinueTokens(options.continueTokenKey),
    watch,
    featureGates: options.featureGates ?? {},
    serviceAccountTokens: options.serviceAccountTokens,
    authorizer,
    virtual: new Map([...virtualResources(registry, { authorizer, rbac, authenticate: options.authenticate }), ...resourceMetricsHandlers(registry, resourceMetrics)]),
    aggregatedGroups: () => aggregator.remoteGroups(),
  });
  const methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
  for (const url of ['/api', '/api/*', '/apis', '/apis/*']) app.route({ method: [...methods], url, handler: route });

  await ensureSystemNamespaces(options.store, registry);
  // Before the first request: no write is between its reservation and its store write, so every key no Service holds goes.
  await services?.repair();
  const repairs = setInterval(() => void services?.repair(60_000).catch((error: unknown) => app.log.error({ err: error }, 'service allocation repair failed')), options.serviceRepairIntervalMs ?? 180_000);
  repairs.unref();
  app.addHook('onClose', () => clearInterval(repairs));
  if (rbac) await reconcileBootstrapPolicy(options.store, registry);
  await customResources.start();
  await aggregator.prepare();
  await caches.start();
  aggregator.start();
  rbac?.follow(caches, registry);
  await admission.start();
  resourceMetrics.start();
  return app;
}
