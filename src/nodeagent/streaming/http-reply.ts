/**
 * Answers on a raw socket from Node's `upgrade` event, where there is no response object: a
 * refused upgrade still gets a proper HTTP response with a `Status` body, so clients print the
 * reason rather than a reset connection.
 */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { StatusError, isStatusError } from '../../api/index.js';

export function toStatusError(error: unknown): StatusError {
  if (isStatusError(error)) return error;
  return new StatusError({ reason: 'InternalError', message: error instanceof Error ? error.message : String(error), cause: error });
}

export function writeStatusResponse(socket: Duplex, error: unknown): void {
  const status = toStatusError(error);
  const body = Buffer.from(JSON.stringify(status.toStatus()));
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(
    `HTTP/1.1 ${status.code} ${STATUS_CODES[status.code] ?? 'Error'}\r\n` +
      'Content-Type: application/json\r\n' +
      `Content-Length: ${body.length}\r\n` +
      'Connection: close\r\n\r\n' +
      body.toString('utf8'),
  );
}
