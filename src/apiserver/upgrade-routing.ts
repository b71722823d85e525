import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** The raw connection of an HTTP upgrade request, for the handler that takes it over. */
export interface UpgradeConnection {
  readonly socket: Duplex;
  /** Bytes the client sent after the request head (often empty). */
  readonly head: Buffer;
}

const upgrades = new WeakMap<IncomingMessage, UpgradeConnection>();

/**
 * Sends HTTP upgrade requests (exec, attach, port-forward over WebSocket or SPDY) through the
 * app's router, so they pass authentication, authorization and the resource router like any
 * request. Node gives an upgrade to `server.on('upgrade')` with a bare socket; this listener
 * gives it a response object on that socket and routes it. A handler that accepts the upgrade
 * calls `reply.hijack()` and owns `upgradeOf(request)`; any other answer (a 401, 403 or 404
 * Status) is written on the socket, which then closes. (The node agent has the same listener in
 * src/nodeagent/server/upgrade.ts: the two layers share no code by design.)
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
