import type { FastifyInstance } from 'fastify';
import type { CriClient } from '../cri/index.js';
import type { AgentServerFlags } from './server-flags.js';

/**
 * Routes another part of the agent adds to its HTTPS server (the streaming routes: exec, attach,
 * port-forward). They are registered after the server's authentication and authorization hook,
 * so every request they see is already allowed; an HTTP upgrade reaches them as an ordinary
 * request whose raw socket `upgradeOf(request)` hands over (see upgrade.ts).
 */
export interface AgentRouteModule {
  /** For logs and errors. */
  readonly name: string;
  /** Debugging handlers are left out when `--enable-debugging-handlers=false`. */
  readonly debugging: boolean;
  register(app: FastifyInstance, context: AgentRouteContext): void | Promise<void>;
}

export interface AgentRouteContext {
  readonly flags: AgentServerFlags;
  readonly nodeName: string;
  readonly cri: CriClient;
}
