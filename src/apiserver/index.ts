export { buildApp } from './app.js';
export type { ApiServerOptions } from './app.js';
export type { Authenticator, RequestHeaders, UserInfo } from './authn/user.js';
// Legacy service-account tokens are signed by the controller manager's serviceaccount-token loop.
export { algorithmForKey, LEGACY_ISSUER, serviceAccountUserName, signingKeyFromPem, signJws } from './authn/index.js';
export type { SigningKey } from './authn/index.js';
export { parseRequestPath } from './request-info.js';
export type { RequestInfo } from './request-info.js';
export { SVC_VERSION } from '../api/index.js';
export {
  AUTHORIZATION_MODES,
  BOOTSTRAP_CLUSTER_ROLE_BINDINGS,
  BOOTSTRAP_CLUSTER_ROLES,
  CONTROLLER_MANAGER_USER,
  NODES_GROUP,
  nodeUser,
  parseAuthorizationModes,
  PRIVILEGED_GROUP,
  SCHEDULER_USER,
  serviceAccountUser,
} from './authz/index.js';
export type { Attributes, AuthorizationMode, Authorizer, Decision } from './authz/index.js';
// The daemon itself, for src/cli (svc-apiserver, svc up).
export { DEFAULT_SERVICE_CIDR, serveApiServer } from './serve.js';
export { DEFAULT_EVENT_TTL_SECONDS, EventTtlStore, eventPrefixes, withEventTtl } from './event-ttl-store.js';
export type { ApiServerConfig, AuditConfig, NodeAgentClientConfig, RequestHeaderConfig, ServingApiServer } from './serve.js';
export { ADMISSION_PLUGINS, isAdmissionPluginName } from './admission/index.js';
// Service cluster IPs and NodePorts (src/apiserver/services).
export { DEFAULT_SERVICE_CLUSTER_IP_RANGE, DEFAULT_SERVICE_NODE_PORT_RANGE, ServiceAllocator, parseClusterIpRanges, parseNodePortRange } from './services/index.js';
export type { ClusterIpRange, NodePortRange } from './services/index.js';
export { installCors, isAnchored, parseAllowedOrigins } from './cors.js';
export { BROWSER_SESSION_PATH, BrowserSessions, SESSION_COOKIE } from './authn/browser-sessions.js';
export type { BrowserSessionsOptions } from './authn/browser-sessions.js';
export { WATCH_PROTOCOLS } from './watch/websocket-watch.js';
export { boundedSink, WatcherTooSlowError } from './watch/bounded-sink.js';
export type { BoundedSinkOptions } from './watch/bounded-sink.js';
export { routeUpgrades, upgradeOf } from './upgrade-routing.js';
export type { UpgradeConnection } from './upgrade-routing.js';
// RFC 7386 merge patch, for answers made outside a request (svc/bench answering a replayed loop's writes).
export { applyMergePatch } from './writes/merge-patch.js';
