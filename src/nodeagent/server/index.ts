/**
 * The node agent's server: HTTPS with authentication and authorization (anonymous, client
 * certificates, TokenReview; AlwaysAllow or SubjectAccessReview), the read-only and health ports,
 * /pods, /metrics, /stats/summary, /configz, container logs, and container log rotation.
 */
export { startAgentServer, type RunningAgentServer } from './start-agent-server.js';
export type { AgentServerFlags, AgentServerOptions } from './options.js';
export type { AgentRouteContext, AgentRouteModule } from './route-module.js';
export { upgradeOf, routeUpgrades, type UpgradeConnection } from './upgrade.js';
export { agentUserOf, buildAgentApp, type AgentAppContext, type AgentServerType } from './agent-app.js';
export { ANONYMOUS, AgentAuthenticator, type AgentAuthenticationOptions, type AgentUser } from './authentication.js';
export { agentRequestAttributes, alwaysAllow, WebhookAuthorizer, type AgentAuthorizer, type AgentRequestAttributes } from './authorization.js';
export { AgentMetrics } from './agent-metrics.js';
export { agentTls, opensslCiphers, SELF_SIGNED_CERT, SELF_SIGNED_KEY, type AgentTls } from './serving-tls.js';
export { containerLog, findLogTarget, parseLogOptions, type LogOptions, type LogStreamOptions, type LogTarget } from './container-logs.js';
export { EntryJoiner, formatEntry, parseLogRecord, rfc3339Nanos, type LogEntry, type LogRecord } from './cri-log-format.js';
export { fileLines, rotatedFiles, rotatedName } from './log-files.js';
export { LogRotator, parseLogMaxSize, type LogRotatorOptions } from './log-rotation.js';
export { statsSummary, type StatsSummary } from './stats-summary.js';
