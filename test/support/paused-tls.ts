/**
 * The client side of the paused-TLS-connection regression tests (src/tls-connections/paused-tls-reads.ts),
 * one per HTTPS server of svc: on one keep-alive TLS connection, a request whose answer the client
 * does not read, then, once the server holds that answer undrained, a request larger than one TLS
 * record; Node pauses the connection, and without the fix closes it (HPE_PAUSED).
 */
import { once } from 'node:events';
import { connect, type TLSSocket } from 'node:tls';
import { setTimeout as sleep } from 'node:timers/promises';

export interface HttpAnswer {
  readonly status: number;
  readonly body: Buffer;
}

/** The complete HTTP/1.1 answers at the start of `bytes`, in order: status and body (Content-Length or chunked). */
export function answersIn(bytes: Buffer): HttpAnswer[] {
  const answers: HttpAnswer[] = [];
  let at = 0;
  for (;;) {
    const headEnd = bytes.indexOf('\r\n\r\n', at);
    if (headEnd < 0) return answers;
    const head = bytes.subarray(at, headEnd).toString('latin1');
    const status = Number(head.split(' ')[1]);
    let next = headEnd + 4;
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (length) {
      if (bytes.length < next + Number(length[1])) return answers;
      answers.push({ status, body: bytes.subarray(next, next + Number(length[1])) });
      at = next + Number(length[1]);
      continue;
    }
    const chunks: Buffer[] = [];
    for (;;) {
      const lineEnd = bytes.indexOf('\r\n', next);
      if (lineEnd < 0) return answers;
      const size = parseInt(bytes.subarray(next, lineEnd).toString('latin1'), 16);
      next = lineEnd + 2;
      if (bytes.length < next + size + 2) return answers;
      if (size === 0) break;
      chunks.push(bytes.subarray(next, next + size));
      next += size + 2;
    }
    answers.push({ status, body: Buffer.concat(chunks) });
    at = next + 2;
  }
}

/**
 * Resolves once the server's `socket` holds an answer undrained and makes no progress over ten
 * checks: the kernel's buffers are full, and stay so while the client reads nothing. (A wait for a
 * state, not a figure under test: the checks only have to be apart.)
 */
export async function untilAnswerStuck(socket: () => TLSSocket | undefined): Promise<void> {
  let written = -1;
  let unchanged = 0;
  while (unchanged < 10) {
    await sleep(5);
    const current = socket();
    const stuck = current !== undefined && current.writableNeedDrain && current.bytesWritten === written;
    unchanged = stuck ? unchanged + 1 : 0;
    written = current?.bytesWritten ?? -1;
  }
}

/** `METHOD path` with `headers` and `body` (Content-Length set), as HTTP/1.1 bytes. */
export function httpRequest(method: string, path: string, headers: Readonly<Record<string, string>> = {}, body?: Buffer): Buffer {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: localhost', ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
  if (body !== undefined) lines.push(`Content-Length: ${body.length}`);
  return Buffer.concat([Buffer.from(`${lines.join('\r\n')}\r\n\r\n`), body ?? Buffer.alloc(0)]);
}

export interface PipelineOptions {
  readonly port: number;
  /** Asks for an answer larger than the loopback connection's kernel buffers hold unread (megabytes). */
  readonly first: Buffer;
  /** Sent once `answerStuck` resolves: larger than one TLS record (16 KiB of plaintext). */
  readonly second: Buffer;
  /** Resolves once the server holds the first answer undrained (`untilAnswerStuck`). */
  readonly answerStuck: () => Promise<void>;
}

/**
 * `first`, unread until the server's answer is stuck, then `second` on the same connection, then
 * every answer read: both answers, or `closed` when the server closed the connection first.
 */
export async function pipelineBehindUnreadAnswer(options: PipelineOptions): Promise<{ readonly closed: boolean; readonly answers: HttpAnswer[] }> {
  const client = connect({ port: options.port, host: '127.0.0.1', rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] });
  try {
    await once(client, 'secureConnect');
    const received: Buffer[] = [];
    client.pause();
    client.write(options.first);
    await options.answerStuck();
    let closed = false;
    client.once('close', () => (closed = true));
    client.on('error', () => {}); // a reset after the server destroyed the connection: `closed` says so
    client.write(options.second);
    client.on('data', (chunk: Buffer) => received.push(chunk));
    client.resume();
    // (Parsed every few checks rather than per chunk: the first answer is megabytes.)
    while (!closed && answersIn(Buffer.concat(received)).length < 2) await sleep(50);
    return { closed, answers: answersIn(Buffer.concat(received)) };
  } finally {
    client.destroy();
  }
}
