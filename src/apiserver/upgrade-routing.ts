import { ServerResponse, type IncomingMessage } from 'node:http';
import { connect as tlsConnect, type ConnectionOptions, type TLSSocket } from 'node:tls';
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

/**
 * A TLS connection to the server an upgrade is passed on to (a node agent, an aggregated API
 * server), given up after `timeoutMs`. Errors are the caller's Statuses: `unreachable` for a
 * refused or failed connection, `late` when the handshake did not finish in time.
 */
export function dialTls(options: ConnectionOptions, timeoutMs: number, errors: { unreachable(error: Error): Error; late(): Error }): Promise<TLSSocket> {
  return new Promise<TLSSocket>((resolve, reject) => {
    let socket: TLSSocket;
    try {
      socket = tlsConnect(options);
    } catch (error) {
      return reject(errors.unreachable(error as Error));
    }
    let late: Error | undefined;
    const timer = setTimeout(() => socket.destroy((late = errors.late())), timeoutMs);
    socket.once('secureConnect', () => {
      clearTimeout(timer);
      socket.removeAllListeners('error');
      resolve(socket);
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(late ?? errors.unreachable(error));
    });
  });
}

/**
 * Joins an accepted upgrade to the connection it is passed on to: the rewritten request head,
 * then what the client sent after its head, then both sockets piped until either closes (an
 * error or close on one ends the other).
 */
export function spliceUpgrade(connection: UpgradeConnection, remote: Duplex, head: string): void {
  const client = connection.socket;
  remote.on('error', () => client.destroy());
  client.on('error', () => remote.destroy());
  remote.on('close', () => client.destroy());
  client.on('close', () => remote.destroy());
  remote.write(head);
  if (connection.head.length > 0) remote.write(connection.head);
  client.pipe(remote);
  remote.pipe(client);
}
