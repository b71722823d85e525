/**
 * The agent server's options, named and typed as the parsed nodeagent flags are (a subset of
 * `NodeAgentFlags`), so the daemon passes its resolved values as they are. Durations are ms.
 */
export interface AgentServerFlags {
  readonly address: string;
  /** HTTPS port; 0 picks a free one (tests). */
  readonly port: number;
  /** Read-only HTTP port; 0 disables it. */
  readonly readOnlyPort: number;
  readonly healthzBindAddress: string;
  /** Health HTTP port; 0 disables it. */
  readonly healthzPort: number;
  readonly enableDebuggingHandlers: boolean;
  readonly streamingConnectionIdleTimeout: number;
  readonly tlsCertFile?: string | undefined;
  readonly tlsPrivateKeyFile?: string | undefined;
  readonly tlsCipherSuites: readonly string[];
  readonly tlsMinVersion?: 'VersionTLS10' | 'VersionTLS11' | 'VersionTLS12' | 'VersionTLS13' | undefined;
  readonly certDir: string;
  readonly anonymousAuth: boolean;
  readonly clientCaFile?: string | undefined;
  readonly authenticationTokenWebhook: boolean;
  readonly authenticationTokenWebhookCacheTtl: number;
  readonly authorizationMode: 'AlwaysAllow' | 'Webhook';
  readonly authorizationWebhookCacheAuthorizedTtl: number;
  readonly authorizationWebhookCacheUnauthorizedTtl: number;
  /** Its filesystem is the node's in /stats/summary. */
  readonly rootDir: string;
}
