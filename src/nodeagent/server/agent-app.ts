import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { isStatusError, StatusError, internal, type Pod } from '../../api/index.js';
import { runChecks, type HealthCheck } from '../../serving/index.js';
import { readPausedTlsConnectionsThroughStreams } from '../../tls-connections/index.js';
import type { CriClient } from '../cri/index.js';
import type { AgentMetrics } from './agent-metrics.js';
import type { AgentAuthenticator, AgentUser } from './authentication.js';
import { agentRequestAttributes, type AgentAuthorizer } from './authorization.js';
import { containerLog, findLogTarget, parseLogOptions } from './container-logs.js';
import type { AgentServerFlags } from './options.js';
import type { AgentRouteModule } from './route-module.js';
import { statsSummary } from './stats-summary.js';
import { resourceMetricsText } from './resource-metrics-text.js';
import { routeUpgrades } from './upgrade.js';

/** Which of the agent's three listeners an app is. */
export type AgentServerType = 'readwrite' | 'readonly' | 'healthz';

export interface AgentAppContext {
  readonly flags: AgentServerFlags;
  readonly nodeName: string;
  readonly cri: CriClient;
  readonly pods: () => readonly Pod[];
  readonly config: unknown;
  readonly metrics: AgentMetrics;
  readonly routes: readonly AgentRouteModule[];
  /** The HTTPS port's checks; the read-only and health ports have none. */
  readonly authenticator?: AgentAuthenticator | undefined;
  readonly authorizer?: AgentAuthorizer | undefined;
  readonly logger?: boolean | object | undefined;
  readonly https?: object | undefined;
}

const users = new WeakMap<FastifyRequest, AgentUser>();

// The agent answers while its process runs; the pod workers report through the Node's conditions.
const HEALTH_CHECKS: ReadonlyMap<string, HealthCheck> = new Map([['ping', () => undefined]]);

/**
 * No agent route declares a JSON schema (queries are parsed by hand, bodies by zod), yet Fastify's
 * default compilers load ajv and fast-json-stringify when an app is created: ~3 MB of the agent's
 * heap. These stand in for them and refuse a schema if a route ever declares one.
 */
const refuseSchema = (): never => {
  throw internal(new Error('the node agent compiles no route schemas: validate with zod in the handler'));
};
const NO_SCHEMA_COMPILERS = { buildValidator: () => refuseSchema, buildSerializer: () => refuseSchema };

/** Who sent a request the HTTPS port accepted (for route modules that log or audit it). */
export const agentUserOf = (request: FastifyRequest): AgentUser | undefined => users.get(request);

function sendStatus(reply: FastifyReply, error: StatusError): FastifyReply {
  return reply.code(error.code).type('application/json').send(JSON.stringify(error.toStatus()));
}

function toStatus(error: unknown): StatusError {
  if (isStatusError(error)) return error;
  const e = error as { statusCode?: number; message?: string };
  if (e.statusCode === 404) return new StatusError({ reason: 'NotFound', message: e.message ?? 'not found' });
  if (e.statusCode !== undefined && e.statusCode >= 400 && e.statusCode < 500) return new StatusError({ reason: 'BadRequest', message: e.message ?? 'bad request' });
  return internal(error);
}

const pathOf = (url: string) => {
  const q = url.indexOf('?');
  return q < 0 ? url : url.slice(0, q);
};

/**
 * One of the agent's listeners, without listening. `readwrite` is the HTTPS port (authenticated
 * and authorized, every endpoint); `readonly` serves /pods, /healthz, /stats/summary and /metrics
 * to anyone; `healthz` only /healthz.
 */
export async function buildAgentApp(type: AgentServerType, ctx: AgentAppContext): Promise<FastifyInstance> {
  // Closing ends open streams (logs -f, exec) too: a stopping agent does not wait for its clients.
  const app = Fastify({
    logger: ctx.logger ?? false,
    forceCloseConnections: true,
    schemaController: { compilersFactory: NO_SCHEMA_COMPILERS },
    ...(ctx.https ? { https: ctx.https } : {}),
  }) as unknown as FastifyInstance;
  // A client's request pipelined behind an answer it has not read (a log, /metrics) must wait, not close the connection.
  if (ctx.https) readPausedTlsConnectionsThroughStreams(app.server as unknown as import('node:tls').Server);
  app.setErrorHandler((error, _request, reply) => sendStatus(reply, toStatus(error)));
  app.setNotFoundHandler((request, reply) => sendStatus(reply, new StatusError({ reason: 'NotFound', message: `the node agent does not serve ${pathOf(request.url)}${type === 'readwrite' ? '' : ` on its ${type} port`}` })));
  app.addHook('onResponse', async (request, reply) => {
    const segment = pathOf(request.url).split('/')[1] ?? '';
    ctx.metrics.requests.inc({ method: request.method, path: segment, server_type: type, code: String(reply.statusCode) });
  });

  // The daemons' one health answer (src/serving): `ok`, `?verbose`, `?exclude=`, `/healthz/<check>`.
  const healthz = async (request: FastifyRequest, reply: FastifyReply) => {
    const url = new URL(request.url, 'http://agent');
    const answer = runChecks('healthz', HEALTH_CHECKS, url.pathname.slice('/healthz/'.length), url.searchParams);
    return reply.code(answer.status).type('text/plain').send(answer.body);
  };
  app.get('/healthz', healthz);
  if (type === 'healthz') return app;
  app.get('/healthz/ping', healthz);

  if (type === 'readwrite') {
    const { authenticator, authorizer } = ctx;
    if (!authenticator || !authorizer) throw new Error('the HTTPS port needs an authenticator and an authorizer');
    app.addHook('onRequest', async (request) => {
      const user = await authenticator.authenticate(request);
      users.set(request, user);
      await authorizer.authorize(user, agentRequestAttributes(request.method, pathOf(request.url), ctx.nodeName));
    });
    routeUpgrades(app);
  }

  app.get('/pods', async (_req, reply) => reply.type('application/json').send(JSON.stringify({ kind: 'PodList', apiVersion: 'v1', metadata: {}, items: ctx.pods() })));
  app.get('/stats/summary', async (_req, reply) =>
    reply.type('application/json').send(JSON.stringify(await statsSummary({ cri: ctx.cri, nodeName: ctx.nodeName, rootDir: ctx.flags.rootDir, pods: ctx.pods() }))),
  );
  app.get('/metrics/resource', async (_req, reply) =>
    reply
      .type('text/plain; version=0.0.4; charset=utf-8')
      .send(resourceMetricsText(await statsSummary({ cri: ctx.cri, nodeName: ctx.nodeName, rootDir: ctx.flags.rootDir, pods: ctx.pods() }))),
  );
  app.get('/metrics', async (_req, reply) => {
    const { contentType, text } = await ctx.metrics.scrape();
    return reply.type(contentType).send(text);
  });
  if (type === 'readonly') return app;

  app.get('/configz', async (_req, reply) => reply.type('application/json').send(JSON.stringify({ nodeagentconfig: ctx.config ?? {} })));
  if (ctx.flags.enableDebuggingHandlers) {
    app.get('/containerLogs/:namespace/:pod/:container', async (request, reply) => {
      const { namespace, pod, container } = request.params as { namespace: string; pod: string; container: string };
      const options = parseLogOptions(request.query as Record<string, string | undefined>);
      const target = await findLogTarget(ctx.cri, namespace, pod, container, options.previous);
      const abort = new AbortController();
      reply.raw.on('close', () => abort.abort());
      const body = Readable.from(containerLog({ ...options, cri: ctx.cri, target, signal: abort.signal }), { objectMode: false });
      // Headers go out at once: a follow of a quiet container must not leave the client waiting for them.
      reply.hijack();
      reply.raw.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-cache' });
      reply.raw.flushHeaders();
      await pipeline(body, reply.raw).catch(() => reply.raw.destroy());
    });
  }
  for (const module of ctx.routes) {
    if (module.debugging && !ctx.flags.enableDebuggingHandlers) continue;
    await module.register(app, { flags: ctx.flags, nodeName: ctx.nodeName, cri: ctx.cri });
  }
  return app;
}
