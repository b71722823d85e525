import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';

/**
 * Kubernetes' JSON bodies (objects, lists, `Status` errors, discovery) end with a newline, as Go's
 * `json.Encoder` writes them, and clients that print a body verbatim show it (the Python client's
 * `create_from_yaml` prints the Status of a failed create). svc's bodies end the same way.
 *
 * Strings gain the newline in place. Buffers are an object version's shared bytes on a GET (or
 * bytes rendered for the request): they are never copied to add one byte, the newline goes out as
 * a second small write. Streamed bodies (lists) get theirs from `endingWithNewline`, gzipped
 * bodies before compression (context.ts); a body that already ends with one is left as it is.
 */

const NEWLINE_BYTE = 0x0a;
export const NEWLINE = Buffer.from('\n');

const isJson = (reply: FastifyReply): boolean => {
  const type = reply.getHeader('content-type');
  return typeof type === 'string' && type.startsWith('application/json');
};

/** The `onSend` hook that ends every JSON body with a newline. */
export function jsonNewlineHook(_request: FastifyRequest, reply: FastifyReply, payload: unknown, done: (error: null, payload: unknown) => void): void {
  if (reply.hasHeader('content-encoding') || !isJson(reply)) return done(null, payload);
  if (typeof payload === 'string') return done(null, payload.endsWith('\n') ? payload : `${payload}\n`);
  if (payload instanceof Uint8Array && payload[payload.length - 1] !== NEWLINE_BYTE) {
    reply.header('content-length', String(payload.length + 1));
    return done(null, Readable.from([payload, NEWLINE], { objectMode: false }));
  }
  done(null, payload);
}

/** `chunks`, then a newline unless the last of them ends with one. */
export function* endingWithNewline(chunks: Iterable<Uint8Array>): Generator<Uint8Array> {
  let last = -1;
  for (const chunk of chunks) {
    if (chunk.length > 0) last = chunk[chunk.length - 1]!;
    yield chunk;
  }
  if (last !== NEWLINE_BYTE) yield NEWLINE;
}
