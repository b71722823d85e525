import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** The raw connection of an HTTP upgrade request, for the route that takes it over. */
export interface UpgradeConnection {
  readonly socket: Duplex;
  /** Bytes the client sent after the request head (the first frames, often empty). */
  readonly head: Buffer;
}

const upgrades = new WeakMap<IncomingMessage, UpgradeConnection>();

/**
 * Routes HTTP upgrade requests through the app like any other request, so they pass the same
 * authentication and authorization hooks: Node hands an upgrade to `server.on('upgrade')` with
 * a bare socket, and this listener gives it a response object on that socket and calls the
 * router. A route that accepts the upgrade calls `reply.hijack()` and owns `upgradeOf(request)`;
 * any other answer (401, 403, 404, a Status) is written on the socket, which then closes.
 */
export function routeUpgrades(app: FastifyInstance): void {
  app.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    upgrades.set(req, { socket, head });
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket as Socket);
    res.on('finish', () => socket.end());
    app.routing(req, res);
  });
}

/** The upgrade connection of a request that asked for one; undefined for a plain request. */
export function upgradeOf(request: FastifyRequest): UpgradeConnection | undefined {
  return upgrades.get(request.raw);
}
