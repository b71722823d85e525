/**
 * Dials the runtime's streaming server at the URL CRI Exec/Attach/PortForward returned, as a
 * WebSocket client speaking `v4.channel.k8s.io` (what containerd 1.6 serves). The socket comes
 * back paused: nothing the runtime sends is read until the relay is ready for it.
 */
import type WebSocket from 'ws';
import { StatusError } from '../../api/index.js';
import { RUNTIME_CHANNEL_PROTOCOL } from './channel-protocol.js';
import { loadWs } from './ws-module.js';

/**
 * WebSocket messages larger than this close the connection, both from the runtime (it sends
 * ≤ 32 KiB) and from clients (kubectl writes ≤ 32 KiB of stdin or SPDY per message).
 */
export const MAX_MESSAGE_BYTES = 1024 * 1024;

export function webSocketUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.protocol === 'http:') parsed.protocol = 'ws:';
  else if (parsed.protocol === 'https:') parsed.protocol = 'wss:';
  return parsed.toString();
}

export async function openRuntimeChannel(url: string, options: { timeoutMs?: number } = {}): Promise<WebSocket> {
  const { default: WebSocketClient } = await loadWs();
  return new Promise<WebSocket>((resolve, reject) => {
    const socket = new WebSocketClient(webSocketUrl(url), [RUNTIME_CHANNEL_PROTOCOL], {
      perMessageDeflate: false,
      maxPayload: MAX_MESSAGE_BYTES,
      handshakeTimeout: options.timeoutMs ?? 30_000,
    });
    const fail = (message: string): void => {
      socket.removeAllListeners();
      socket.on('error', () => undefined);
      socket.terminate();
      reject(new StatusError({ reason: 'InternalError', message: `the runtime's streaming server: ${message}` }));
    };
    socket.once('open', () => {
      socket.removeAllListeners();
      socket.pause();
      resolve(socket);
    });
    socket.once('unexpected-response', (_req, res) => fail(`HTTP ${res.statusCode} instead of a WebSocket`));
    socket.once('error', (error) => fail(error.message));
  });
}
