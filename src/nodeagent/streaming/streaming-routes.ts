import type { AgentRouteModule } from '../server/index.js';
import { upgradeOf } from '../server/index.js';
import { streamingRequestHandler, streamingUpgradeHandler } from './upgrade-handler.js';

/** The agent's streaming paths, each with its rest (namespace, pod, optional UID, container). */
const PATHS = ['/exec/*', '/attach/*', '/portForward/*'] as const;

/**
 * exec, attach and port-forward as a route module of the agent's HTTPS server: the server has
 * authenticated and authorized the request (an upgrade included) before these routes see it;
 * an upgrade is taken over and handed to the streaming handler, a plain request is told it must
 * upgrade. `--streaming-connection-idle-timeout` comes from the server's flags.
 */
export function streamingRoutes(options: { readonly onError?: (error: unknown, request: { readonly url: string }) => void } = {}): AgentRouteModule {
  return {
    name: 'streaming',
    debugging: true,
    register(app, context) {
      const upgrade = streamingUpgradeHandler({
        cri: context.cri,
        idleTimeoutMs: context.flags.streamingConnectionIdleTimeout,
        ...(options.onError ? { onError: options.onError } : {}),
      });
      const plain = streamingRequestHandler();
      for (const url of PATHS) {
        app.route({
          method: ['GET', 'POST'],
          url,
          handler: (request, reply) => {
            const connection = upgradeOf(request);
            reply.hijack();
            if (connection) upgrade(request.raw, connection.socket, connection.head);
            else plain(request.raw, reply.raw);
          },
        });
      }
    },
  };
}
