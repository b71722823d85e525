import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ResourceRegistry, ResourceType } from '../../api/index.js';
import type { Store } from '../../storage/index.js';
import type { ContinueTokens } from '../continue-token.js';
import type { ObjectReader } from '../objects.js';
import type { ResourceCaches } from '../resource-caches.js';
import type { RequestInfo } from '../request-info.js';
import type { WatchSettings } from './watch.js';

/** Everything a verb handler needs, resolved once per request by the resource router. */
export interface HandlerContext {
  readonly store: Store;
  readonly reader: ObjectReader;
  readonly registry: ResourceRegistry;
  readonly caches: ResourceCaches;
  readonly tokens: ContinueTokens;
  readonly watch: WatchSettings;
  /** Enabled feature gates (absent: the gate's default). */
  readonly featureGates: Readonly<Record<string, boolean>>;
  readonly type: ResourceType;
  readonly info: RequestInfo;
  readonly request: FastifyRequest;
  readonly reply: FastifyReply;
}

export type Handler = (ctx: HandlerContext) => Promise<unknown>;

/** A query parameter as one string (the last value wins when it is repeated). */
export function queryParam(ctx: HandlerContext, name: string): string | undefined {
  const value = (ctx.request.query as Record<string, unknown>)[name];
  if (Array.isArray(value)) return value.length ? String(value[value.length - 1]) : undefined;
  return value === undefined ? undefined : String(value);
}

export function sendObject(ctx: HandlerContext, code: number, object: unknown): FastifyReply {
  return ctx.reply.code(code).type('application/json').send(JSON.stringify(object));
}
