import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { acceptsGzip, compressBuffer, compressLarge, renderObject, renderValue, type JsonObject } from '../../encoding/index.js';
import { endingWithNewline, jsonBody, withNewline } from '../json-newline.js';
import { renameText, type Renamer } from '../upstream-names.js';
import type { HandlerContext } from './context.js';
import { answerTextOf } from '../answer-text.js';
import { isPretty } from './query.js';
import { renderOptionsOf, representationOf } from './representation.js';

/** Get and list answers are gzipped for clients that accept it, past 128 KiB (APIResponseCompression). */
function compressible(ctx: HandlerContext): boolean {
  return ctx.featureGates['APIResponseCompression'] !== false && acceptsGzip(ctx.request.headers['accept-encoding']);
}

/** A read's answer of one buffer (gzipped when large and accepted). */
export function sendReadBytes(ctx: HandlerContext, contentType: string, bytes: Uint8Array): FastifyReply {
  const reply = ctx.reply.code(200).type(contentType);
  // A JSON body ends with a newline: a GET's shared bytes bring theirs (bodyOf), rendered ones get it here.
  const json = contentType === 'application/json' ? withNewline(bytes) : bytes;
  const body = ctx.rename ? ctx.rename(json) : json;
  if (body.length <= GZIP_MIN || !compressible(ctx)) return reply.send(body);
  const out = compressBuffer(body);
  if (out.gzip) reply.header('content-encoding', 'gzip').header('vary', 'Accept-Encoding');
  return reply.send(out.body);
}
const GZIP_MIN = 128 * 1024;

/** A read's answer written chunk by chunk (gzipped once it grows large, when accepted). */
export function sendReadChunks(ctx: HandlerContext, contentType: string, parts: Iterable<Uint8Array>): FastifyReply {
  const reply = ctx.reply.code(200).type(contentType);
  // Chunks end between items, so no group name is ever split across two of them.
  const renamed = ctx.rename ? mapChunks(parts, ctx.rename) : parts;
  const chunks = contentType === 'application/json' ? endingWithNewline(renamed) : renamed;
  if (!compressible(ctx)) return reply.send(Readable.from(chunks, { objectMode: false }));
  const out = compressLarge(chunks);
  if (out.gzip) reply.header('content-encoding', 'gzip').header('vary', 'Accept-Encoding');
  return reply.send(out.body);
}

/**
 * A write's answer (the object, or a Status) in the codec the client accepts. Only the type's own
 * objects take another codec; a Status is always JSON. `json` is the object's JSON text when the
 * caller has it already (a create's stored text): a plain JSON answer sends it as it is.
 */
export function sendObject(ctx: HandlerContext, code: number, object: unknown, json?: string): FastifyReply {
  const value = object as JsonObject;
  if (value === null || typeof value !== 'object' || value['kind'] !== ctx.type.kind) {
    return ctx.reply.code(code).type('application/json').send(jsonBody(object));
  }
  const rep = representationOf(ctx, 'object', false);
  const pretty = isPretty(ctx);
  const rename = ctx.rename;
  if (rep.codec === 'json' && !pretty) {
    const given = json ?? answerTextOf(object);
    const text = given === undefined ? jsonBody(object) : `${given}\n`;
    return ctx.reply.code(code).type('application/json').send(rename ? renameText(rename, text) : text);
  }
  // A protobuf answer of a version the watch cache holds: its message bytes, encoded once for
  // the answer and the type's protobuf watches alike (served-texts.ts: this server's table).
  const text = rep.codec === 'protobuf' && rep.view === 'Object' ? answerTextOf(object) : undefined;
  const served = text === undefined ? undefined : ctx.caches.servedTexts.bytesOf(text);
  const options = renderOptionsOf(ctx, rep);
  const rendered = served === undefined ? renderValue(options, value) : renderObject(options, served);
  // A view of the rendered bytes, not a copy of them: nothing writes to either.
  const body = rep.codec === 'json' ? withNewline(rendered) : rendered;
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return ctx.reply.code(code).type(rep.contentType).send(rename ? rename(bytes) : bytes);
}

function* mapChunks(chunks: Iterable<Uint8Array>, rename: Renamer): Generator<Uint8Array> {
  for (const chunk of chunks) yield rename(chunk);
}
