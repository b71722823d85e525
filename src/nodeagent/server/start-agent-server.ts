import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { badRequest } from '../../api/index.js';
import { buildAgentApp, type AgentAppContext } from './agent-app.js';
import { AgentMetrics } from './agent-metrics.js';
import { AgentAuthenticator } from './authentication.js';
import { alwaysAllow, WebhookAuthorizer, type AgentAuthorizer } from './authorization.js';
import type { AgentServerOptions } from './options.js';
import { agentTls } from './serving-tls.js';

export interface RunningAgentServer {
  /** The HTTPS port (the one asked for, or the one picked for 0). */
  readonly port: number;
  /** The read-only port; undefined when disabled. */
  readonly readOnlyPort: number | undefined;
  /** The health port; undefined when disabled. */
  readonly healthzPort: number | undefined;
  /** The serving certificate (PEM): what a client that pins it trusts. */
  readonly certificate: string;
  readonly app: FastifyInstance;
  /** Serves `pair` from the next handshake on (a rotated serving certificate); open connections keep theirs. */
  setServingCertificate(pair: { readonly cert: string; readonly key: string }): void;
  close(): Promise<void>;
}

/**
 * The agent's server: HTTPS on `--address:--port` with authentication and authorization, the
 * read-only HTTP port and the health port (each off at 0). See docs/node-agent.md, "The agent's server".
 */
export async function startAgentServer(options: AgentServerOptions): Promise<RunningAgentServer> {
  const { flags } = options;
  const now = options.now ?? Date.now;
  const needsClient = flags.authenticationTokenWebhook || flags.authorizationMode === 'Webhook';
  if (needsClient && !options.client) {
    throw badRequest('--authentication-token-webhook and --authorization-mode=Webhook ask the API server: they need --svcconfig');
  }
  const tls = await agentTls(flags, options.nodeName, options.nodeIPs);
  const clientCa = flags.clientCaFile ? await readFile(flags.clientCaFile, 'utf8') : undefined;
  const authorizer: AgentAuthorizer =
    flags.authorizationMode === 'Webhook'
      ? new WebhookAuthorizer({ client: options.client!, authorizedTtlMs: flags.authorizationWebhookCacheAuthorizedTtl, unauthorizedTtlMs: flags.authorizationWebhookCacheUnauthorizedTtl, now })
      : alwaysAllow;
  const authenticator = new AgentAuthenticator({
    anonymous: flags.anonymousAuth,
    clientCertificates: clientCa !== undefined,
    tokenReviewClient: flags.authenticationTokenWebhook ? options.client : undefined,
    tokenCacheTtlMs: flags.authenticationTokenWebhookCacheTtl,
    now,
  });
  const pods = () => options.pods?.pods() ?? [];
  const metrics = new AgentMetrics({ cri: options.cri, pods, extra: options.metrics });
  const context: AgentAppContext = {
    flags,
    nodeName: options.nodeName,
    cri: options.cri,
    pods,
    config: options.config,
    metrics,
    routes: options.routes ?? [],
    logger: options.logger,
  };
  const https = {
    cert: tls.cert,
    key: tls.key,
    ...(tls.minVersion ? { minVersion: tls.minVersion } : {}),
    ...(tls.ciphers ? { ciphers: tls.ciphers } : {}),
    // Certificates are asked for, not required: a request without one may still carry a token or
    // be anonymous, and a bad one gets a readable 401 Status rather than a failed handshake.
    ...(clientCa ? { ca: clientCa, requestCert: true, rejectUnauthorized: false } : {}),
  };

  const started: FastifyInstance[] = [];
  const close = async () => {
    await Promise.all(started.map((app) => app.close()));
  };
  try {
    const secure = await buildAgentApp('readwrite', { ...context, authenticator, authorizer, https });
    const port = await listen(secure, flags.address, flags.port, started);
    let readOnlyPort: number | undefined;
    if (flags.readOnlyPort !== 0) readOnlyPort = await listen(await buildAgentApp('readonly', context), flags.address, flags.readOnlyPort, started);
    let healthzPort: number | undefined;
    if (flags.healthzPort !== 0) healthzPort = await listen(await buildAgentApp('healthz', context), flags.healthzBindAddress, flags.healthzPort, started);
    const setServingCertificate = (pair: { readonly cert: string; readonly key: string }) => {
      (secure.server as import('node:https').Server).setSecureContext({ ...https, cert: pair.cert, key: pair.key });
    };
    return { port, readOnlyPort, healthzPort, certificate: tls.cert, app: secure, setServingCertificate, close };
  } catch (error) {
    await close();
    throw error;
  }
}

async function listen(app: FastifyInstance, host: string, port: number, started: FastifyInstance[]): Promise<number> {
  await app.listen({ host, port });
  started.push(app);
  return (app.server.address() as AddressInfo).port;
}
