/**
 * Dials the runtime's streaming server over SPDY/3.1, the transport that can half-close a
 * stream: the client's end of stdin (v5's close of channel 0) and a forwarded connection's FIN
 * reach the process or the pod's socket, which a v4 WebSocket cannot say.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { StatusError } from '../../api/index.js';
import { SpdyConnection } from './spdy-connection.js';

export function openRuntimeSpdy(url: string, protocol: string, options: { timeoutMs?: number } = {}): Promise<SpdyConnection> {
  return new Promise<SpdyConnection>((resolve, reject) => {
    const fail = (message: string): void => reject(new StatusError({ reason: 'InternalError', message: `the runtime's streaming server: ${message}` }));
    const req = httpRequest(url, {
      method: 'POST',
      headers: { Connection: 'Upgrade', Upgrade: 'SPDY/3.1', 'X-Stream-Protocol-Version': protocol, 'Content-Length': '0' },
      timeout: options.timeoutMs ?? 30_000,
    });
    req.on('timeout', () => req.destroy(new Error('no upgrade in time')));
    req.on('error', (error) => fail(error.message));
    req.on('response', (res: IncomingMessage) => {
      res.resume();
      fail(`HTTP ${res.statusCode} instead of a SPDY upgrade`);
    });
    req.on('upgrade', (res: IncomingMessage, socket: Socket, head: Buffer) => {
      const agreed = res.headers['x-stream-protocol-version'];
      if (agreed !== undefined && agreed !== protocol) {
        socket.destroy();
        fail(`it agreed to ${String(agreed)}, not ${protocol}`);
        return;
      }
      socket.setTimeout(0);
      if (head.length > 0) socket.unshift(head);
      resolve(new SpdyConnection(socket, { role: 'client' }));
    });
    req.end();
  });
}
