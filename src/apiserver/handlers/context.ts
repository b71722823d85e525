import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { booleanParam, builtinTypes, type ResourceRegistry, type ResourceType } from '../../api/index.js';
import {
  acceptsGzip,
  compressBuffer,
  compressLarge,
  hasProtobufMessage,
  negotiate,
  parseIncludeObject,
  renderOptions,
  renderValue,
  viewOptions,
  type JsonObject,
  type RenderOptions,
  type Representation,
  type Target,
} from '../../encoding/index.js';
import { apiVersionOf } from '../objects.js';
import type { Store } from '../../storage/index.js';
import type { ContinueTokens } from '../continue-token.js';
import type { ObjectReader } from '../objects.js';
import type { ResourceCaches } from '../resource-caches.js';
import type { RequestInfo } from '../request-info.js';
import type { WatchSettings } from './watch.js';
import { renameText, type Renamer } from '../upstream-names.js';
import { endingWithNewline, jsonBody, withNewline } from '../json-newline.js';
import type { Admission } from '../admission/index.js';

/** Everything a verb handler needs, resolved once per request by the resource router. */
export interface HandlerContext {
  readonly store: Store;
  readonly reader: ObjectReader;
  readonly registry: ResourceRegistry;
  readonly caches: ResourceCaches;
  readonly tokens: ContinueTokens;
  readonly watch: WatchSettings;
  /** The admission chain every write passes before storage. */
  readonly admission: Admission;
  /** Enabled feature gates (absent: the gate's default). */
  readonly featureGates: Readonly<Record<string, boolean>>;
  readonly type: ResourceType;
  readonly info: RequestInfo;
  readonly request: FastifyRequest;
  readonly reply: FastifyReply;
  /**
   * Set when the request named its group the upstream way (`*.k8s.io`): stamps the answer's
   * apiVersions with that name (src/apiserver/upstream-names.ts).
   */
  readonly rename?: Renamer | undefined;
}

export type Handler = (ctx: HandlerContext) => Promise<unknown>;

/** A query parameter as one string (the last value wins when it is repeated). */
export function queryParam(ctx: HandlerContext, name: string): string | undefined {
  const value = (ctx.request.query as Record<string, unknown>)[name];
  if (Array.isArray(value)) return value.length ? String(value[value.length - 1]) : undefined;
  return value === undefined ? undefined : String(value);
}

const BUILTIN = new Set(builtinTypes.map((type) => `${type.group}/${type.version}/${type.resource}/${type.kind}`));

/** True for the types svc defines itself (they have per-kind table columns and protobuf messages). */
export function isBuiltin(type: ResourceType): boolean {
  return BUILTIN.has(`${type.group}/${type.version}/${type.resource}/${type.kind}`);
}

// Per type object, so a read does not build the lookup strings on every request. A type's
// fields never change (a changed CRD is a new ResourceType), so the answer is fixed per object.
const PROTOBUF_SERVED = new WeakMap<ResourceType, boolean>();

/** Whether `type` has a protobuf message to be served in. */
function servesProtobuf(type: ResourceType): boolean {
  let served = PROTOBUF_SERVED.get(type);
  if (served === undefined) {
    served = isBuiltin(type) && hasProtobufMessage(apiVersionOf(type), type.kind);
    PROTOBUF_SERVED.set(type, served);
  }
  return served;
}

/**
 * The representation the request's `Accept` asks for (406 when none can be served). `views`:
 * whether Table and metadata-only views are served (reads only).
 */
export function representationOf(ctx: HandlerContext, target: Target, views: boolean): Representation {
  return negotiate(ctx.request.headers.accept, {
    target,
    protobuf: servesProtobuf(ctx.type),
    cbor: ctx.featureGates['CBORServingAndStorage'] === true,
    views,
  });
}

/** `pretty=true`: indented JSON. */
export function isPretty(ctx: HandlerContext): boolean {
  return booleanParam('pretty', queryParam(ctx, 'pretty'), false) === true;
}

/** Everything the encoders need to write this request's answer in `rep`. */
export function renderOptionsOf(ctx: HandlerContext, rep: Representation): RenderOptions {
  const includeObject = rep.view === 'Table' ? parseIncludeObject(queryParam(ctx, 'includeObject')) : 'Metadata';
  return renderOptions(rep, ctx.type, apiVersionOf(ctx.type), viewOptions(rep, ctx.type, isBuiltin(ctx.type), includeObject), isPretty(ctx));
}

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
 * objects take another codec; a Status is always JSON.
 */
export function sendObject(ctx: HandlerContext, code: number, object: unknown): FastifyReply {
  const value = object as JsonObject;
  if (value === null || typeof value !== 'object' || value['kind'] !== ctx.type.kind) {
    return ctx.reply.code(code).type('application/json').send(jsonBody(object));
  }
  const rep = representationOf(ctx, 'object', false);
  const pretty = isPretty(ctx);
  const rename = ctx.rename;
  if (rep.codec === 'json' && !pretty) {
    const text = jsonBody(object);
    return ctx.reply.code(code).type('application/json').send(rename ? renameText(rename, text) : text);
  }
  const rendered = renderValue(renderOptionsOf(ctx, rep), value);
  const bytes = Buffer.from(rep.codec === 'json' ? withNewline(rendered) : rendered);
  return ctx.reply.code(code).type(rep.contentType).send(rename ? rename(bytes) : bytes);
}

function* mapChunks(chunks: Iterable<Uint8Array>, rename: Renamer): Generator<Uint8Array> {
  for (const chunk of chunks) yield rename(chunk);
}
