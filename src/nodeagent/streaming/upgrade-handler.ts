/**
 * The agent's streaming endpoints as a handler of Node's `upgrade` event, so whichever HTTPS
 * server the agent runs (with its own authentication and authorization in front) can mount them:
 *
 *   server.on('upgrade', (req, socket, head) => {
 *     if (isStreamingPath(req.url ?? '')) streaming(req, socket, head); // after authn/authz
 *   });
 *
 * exec and attach: WebSocket (`v5.channel.k8s.io`, `v4.channel.k8s.io`, their base64 forms,
 * legacy `channel.k8s.io`), and SPDY (`v4`/`v3`/`v2.channel.k8s.io`) for clients without it. port-forward: WebSocket with SPDY tunneled in it
 * (`SPDY/3.1+portforward.k8s.io`, kubectl ≥ 1.30), WebSocket channels (`v4.channel.k8s.io`, the
 * ports in the query), and a plain `Upgrade: SPDY/3.1` with `X-Stream-Protocol-Version:
 * portforward.k8s.io`. Everything that can fail before the upgrade (bad query, pod or container
 * not here, runtime refusing) is answered as an HTTP error with a `Status` body.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type WebSocket from 'ws';
import type { WebSocketServer } from 'ws';
import { StatusError } from '../../api/index.js';
import type { CriClient } from '../cri/index.js';
import {
  STREAM_CHANNEL,
  PORT_FORWARD_PROTOCOL,
  RUNTIME_CHANNEL_PROTOCOL,
  SPDY_TUNNEL_PORT_FORWARD_PROTOCOL,
  negotiateExecProtocol,
  negotiatePortForwardProtocol,
  supportsClose,
  type ChannelProtocol,
} from './channel-protocol.js';
import { relayChannels } from './channel-relay.js';
import { MAX_STREAMING_CONNECTION_MS, connectionLimits, type ConnectionLimits } from './connection-limits.js';
import { writeStatusResponse } from './http-reply.js';
import { resolveContainer, resolveSandbox } from './pod-resolver.js';
import { MAX_MESSAGE_BYTES, openRuntimeChannel } from './runtime-channel.js';
import { loadWs } from './ws-module.js';
import { relayChannelsToSpdy } from './spdy-channel-relay.js';
import { SPDY_EXEC_PROTOCOLS, negotiateSpdyExecProtocol, serveSpdyExec } from './spdy-exec.js';
import { SpdyConnection } from './spdy-connection.js';
import { openRuntimeSpdy } from './runtime-spdy.js';
import { servePortForwardSession } from './spdy-port-forward.js';
import { parseStreamRequest, type StreamRequest } from './stream-request.js';

export interface StreamingOptions {
  readonly cri: CriClient;
  /** `--streaming-connection-idle-timeout` in milliseconds; 0 means none. */
  readonly idleTimeoutMs: number;
  /** Ceiling of one connection's life (default 4 hours, as the kubelet's). */
  readonly maxConnectionMs?: number;
  /** How long a port-forward stream pair may take to complete (default 30 s). */
  readonly streamCreationTimeoutMs?: number;
  /** Told about every request that failed (before the upgrade the client got the Status as well). */
  readonly onError?: (error: unknown, request: { readonly url: string }) => void;
}

export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

function offeredProtocols(req: IncomingMessage): string[] {
  const header = req.headers['sec-websocket-protocol'];
  if (!header) return [];
  return header.split(',').map((p) => p.trim()).filter((p) => p !== '');
}

function headerValues(req: IncomingMessage, name: string): string[] {
  const value = req.headers[name];
  const joined = Array.isArray(value) ? value.join(',') : (value ?? '');
  return joined.split(',').map((v) => v.trim()).filter((v) => v !== '');
}

function upgradeKind(req: IncomingMessage): 'websocket' | 'spdy' | undefined {
  const upgrade = (req.headers.upgrade ?? '').toLowerCase();
  if (upgrade === 'websocket') return 'websocket';
  if (upgrade.startsWith('spdy/3.1')) return 'spdy';
  return undefined;
}

function unnegotiable(offered: readonly string[], supported: readonly string[]): StatusError {
  return new StatusError({ reason: 'BadRequest', message: `unable to negotiate a streaming protocol: client supports [${offered.join(', ')}], server supports [${supported.join(', ')}]` });
}

export function streamingUpgradeHandler(options: StreamingOptions): UpgradeHandler {
  const chosen = new WeakMap<IncomingMessage, string>();
  // Sockets handed to the WebSocket server or a SPDY session: no HTTP error is written on them.
  const upgraded = new WeakSet<Duplex>();
  // Made by the first WebSocket upgrade, with ws itself (ws-module.ts says why).
  let webSocketServer: Promise<WebSocketServer> | undefined;
  const wss = (): Promise<WebSocketServer> =>
    (webSocketServer ??= loadWs().then(({ WebSocketServer }) => {
      const server = new WebSocketServer({
        noServer: true,
        clientTracking: false,
        perMessageDeflate: false,
        maxPayload: MAX_MESSAGE_BYTES,
      });
      // The protocol is negotiated before the upgrade and the header taken off the request: ws would
      // refuse `SPDY/3.1+portforward.k8s.io` (a '/' is no token character), which kubectl sends.
      server.on('headers', (headers, req) => {
        const protocol = chosen.get(req);
        if (protocol) headers.push(`Sec-WebSocket-Protocol: ${protocol}`);
      });
      return server;
    }));
  const maxDurationMs = options.maxConnectionMs ?? MAX_STREAMING_CONNECTION_MS;
  const limitsFor = (onExpire: () => void): ConnectionLimits => connectionLimits({ idleTimeoutMs: options.idleTimeoutMs, maxDurationMs, onExpire });
  const report = (error: unknown, req: IncomingMessage): void => options.onError?.(error, { url: req.url ?? '' });

  const upgradeWebSocket = async (req: IncomingMessage, socket: Duplex, head: Buffer, protocol: string | undefined): Promise<WebSocket> => {
    const server = await wss();
    return new Promise<WebSocket>((resolve, reject) => {
      if (socket.destroyed) {
        reject(new Error('the client went away before the upgrade'));
        return;
      }
      if (protocol && protocol !== 'channel.k8s.io') chosen.set(req, protocol);
      delete req.headers['sec-websocket-protocol'];
      upgraded.add(socket);
      // ws answers a malformed handshake itself (400) and never calls back: the socket's close
      // is then the only news, and what was dialled for it must not leak.
      const onClose = (): void => reject(new Error('the WebSocket handshake failed or the client went away'));
      socket.once('close', onClose);
      server.handleUpgrade(req, socket, head, (ws) => {
        socket.off('close', onClose);
        resolve(ws);
      });
    });
  };

  /** exec, attach, and port-forward over channels: one runtime WebSocket relayed as is. */
  const serveChannels = async (req: IncomingMessage, socket: Duplex, head: Buffer, request: StreamRequest, protocol: ChannelProtocol): Promise<void> => {
    let url: string;
    let acceptFromClient: (channel: number) => boolean;
    if (request.kind === 'portForward') {
      if (request.ports.length === 0) throw new StatusError({ reason: 'BadRequest', message: 'query parameter "port" is required for port-forward over WebSocket channels' });
      const sandbox = await resolveSandbox(options.cri, request.pod);
      url = (await options.cri.portForward({ podSandboxId: sandbox.id, port: [...request.ports] })).url;
      const channels = request.ports.length * 2;
      acceptFromClient = (channel) => channel % 2 === 0 && channel < channels;
    } else {
      const { container } = await resolveContainer(options.cri, request.pod, request.container);
      const streams = { containerId: container.id, stdin: request.stdin, stdout: request.stdout, stderr: request.stderr, tty: request.tty };
      url = (request.kind === 'exec' ? await options.cri.exec({ ...streams, cmd: [...request.command] }) : await options.cri.attach(streams)).url;
      acceptFromClient = (channel) => (channel === STREAM_CHANNEL.stdin && request.stdin) || (channel === STREAM_CHANNEL.resize && request.tty);
    }
    if (request.kind !== 'portForward' && request.stdin && supportsClose(protocol)) {
      // Only SPDY can pass the client's close of stdin on to the process.
      const session = await openRuntimeSpdy(url, RUNTIME_CHANNEL_PROTOCOL);
      let client: WebSocket;
      try {
        client = await upgradeWebSocket(req, socket, head, protocol);
      } catch (error) {
        session.destroy();
        throw error;
      }
      const limits = limitsFor(() => {
        client.close(1000, 'streaming connection timed out');
        setTimeout(() => client.terminate(), 5000).unref();
      });
      await relayChannelsToSpdy({ client, clientProtocol: protocol, session, streams: request, limits });
      return;
    }
    const runtime = await openRuntimeChannel(url);
    let client: WebSocket;
    try {
      client = await upgradeWebSocket(req, socket, head, protocol);
    } catch (error) {
      runtime.terminate();
      throw error;
    }
    const limits = limitsFor(() => {
      client.close(1000, 'streaming connection timed out');
      runtime.close(1000);
      setTimeout(() => client.terminate(), 5000).unref();
    });
    await relayChannels({ client, clientProtocol: protocol, runtime, limits, acceptFromClient, exec: request.kind !== 'portForward' });
  };

  const serveSpdy = (transport: Duplex, podSandboxId: string): void => {
    let session: SpdyConnection | undefined;
    const limits = limitsFor(() => {
      session?.close();
      setTimeout(() => transport.destroy(), 5000).unref();
    });
    session = new SpdyConnection(transport, { role: 'server', onActivity: limits.touch });
    session.on('close', () => limits.stop());
    servePortForwardSession({ session, cri: options.cri, podSandboxId, streamCreationTimeoutMs: options.streamCreationTimeoutMs ?? 30_000 });
  };

  /** exec/attach over SPDY: negotiated version, runtime session dialled, then the 101. */
  const serveSpdyExecRequest = async (req: IncomingMessage, socket: Duplex, head: Buffer, request: Exclude<StreamRequest, { kind: 'portForward' }>): Promise<void> => {
    const offered = headerValues(req, 'x-stream-protocol-version');
    const protocol = negotiateSpdyExecProtocol(offered);
    if (!protocol) {
      throw new StatusError({ reason: 'Forbidden', message: `unable to upgrade: unable to negotiate protocol: client supports [${offered.join(', ')}], server supports [${SPDY_EXEC_PROTOCOLS.join(', ')}]` });
    }
    const { container } = await resolveContainer(options.cri, request.pod, request.container);
    const streams = { containerId: container.id, stdin: request.stdin, stdout: request.stdout, stderr: request.stderr, tty: request.tty };
    const { url } = request.kind === 'exec' ? await options.cri.exec({ ...streams, cmd: [...request.command] }) : await options.cri.attach(streams);
    const runtime = await openRuntimeSpdy(url, protocol);
    if (socket.destroyed) {
      runtime.destroy();
      return;
    }
    upgraded.add(socket);
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\nX-Stream-Protocol-Version: ${protocol}\r\n\r\n`);
    if (head.length > 0) socket.unshift(head);
    let client: SpdyConnection | undefined;
    const limits = limitsFor(() => {
      client?.close();
      runtime.close();
      setTimeout(() => socket.destroy(), 5000).unref();
    });
    client = new SpdyConnection(socket, { role: 'server', onActivity: limits.touch });
    client.on('close', () => limits.stop());
    serveSpdyExec({ client, runtime, protocol, streams: request, streamCreationTimeoutMs: options.streamCreationTimeoutMs ?? 30_000 });
  };

  const handle = async (req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> => {
    const request = parseStreamRequest(req.method ?? 'GET', req.url ?? '/');
    const kind = upgradeKind(req);
    if (kind === 'spdy' && request.kind !== 'portForward') {
      await serveSpdyExecRequest(req, socket, head, request);
      return;
    }
    if (kind === 'spdy') {
      const versions = headerValues(req, 'x-stream-protocol-version');
      if (versions.length > 0 && !versions.includes(PORT_FORWARD_PROTOCOL)) {
        throw new StatusError({ reason: 'Forbidden', message: `unable to upgrade: unable to negotiate protocol: client supports [${versions.join(', ')}], server supports [${PORT_FORWARD_PROTOCOL}]` });
      }
      const sandbox = await resolveSandbox(options.cri, request.pod);
      if (socket.destroyed) return;
      upgraded.add(socket);
      socket.write(
        'HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n' +
          `X-Stream-Protocol-Version: ${PORT_FORWARD_PROTOCOL}\r\n\r\n`,
      );
      if (head.length > 0) socket.unshift(head);
      serveSpdy(socket, sandbox.id);
      return;
    }
    if (kind !== 'websocket') throw new StatusError({ reason: 'BadRequest', message: 'Upgrade request required: use WebSocket (or SPDY/3.1 for port-forward)' });
    const offered = offeredProtocols(req);
    if (request.kind === 'portForward') {
      const protocol = negotiatePortForwardProtocol(offered);
      if (!protocol) throw unnegotiable(offered, [SPDY_TUNNEL_PORT_FORWARD_PROTOCOL, 'v4.channel.k8s.io', 'v4.base64.channel.k8s.io']);
      if (protocol === SPDY_TUNNEL_PORT_FORWARD_PROTOCOL) {
        const sandbox = await resolveSandbox(options.cri, request.pod);
        const ws = await upgradeWebSocket(req, socket, head, protocol);
        const transport = (await loadWs()).createWebSocketStream(ws, { allowHalfOpen: false });
        transport.on('error', () => undefined);
        serveSpdy(transport, sandbox.id);
        return;
      }
      await serveChannels(req, socket, head, request, protocol);
      return;
    }
    const protocol = negotiateExecProtocol(offered);
    if (!protocol) throw unnegotiable(offered, ['v5.channel.k8s.io', 'v4.channel.k8s.io', 'v4.base64.channel.k8s.io']);
    await serveChannels(req, socket, head, request, protocol);
  };

  return (req, socket, head) => {
    socket.on('error', () => undefined);
    handle(req, socket, head).catch((error: unknown) => {
      // Before the upgrade the client gets the Status; after it, the socket is the relay's.
      if (!socket.destroyed && !upgraded.has(socket)) writeStatusResponse(socket, error);
      report(error, req);
    });
  };
}

/** For plain (non-upgrade) requests to the streaming paths: the kubelet's 400. */
export function streamingRequestHandler(): (req: IncomingMessage, res: ServerResponse) => void {
  return (_req, res) => {
    const status = new StatusError({ reason: 'BadRequest', message: 'Upgrade request required' }).toStatus();
    res.writeHead(400, { 'Content-Type': 'application/json' }).end(JSON.stringify(status));
  };
}
