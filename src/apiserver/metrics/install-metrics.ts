import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ResourceRegistry } from '../../api/index.js';
import type { ResourceCaches } from '../resource-caches.js';
import { resourceRequestInfo, type RequestInfo } from '../request-info.js';
import { pathOf } from '../request-kind.js';
import type { ApiServerMetrics, WatchCacheSample } from './api-metrics.js';

/** Gauges a long-running request from its start until its response closes, then counts it. */
export type LongRunningTracker = (request: FastifyRequest, reply: FastifyReply) => void;

export function longRunningTracker(metrics: ApiServerMetrics, registry: ResourceRegistry): LongRunningTracker {
  return (request, reply) => {
    const path = pathOf(request);
    // The router has not run yet: long-running requests are few, so this one is parsed here.
    const info = servedInfo(registry, resourceRequestInfo(request.method, path, request.query));
    const contentType = request.headers['content-type'];
    const ended = metrics.longRunning(request.method, path, info, contentType);
    // A watch hijacks its reply, so onResponse never sees it: the socket's close does.
    reply.raw.once('close', () => {
      ended();
      metrics.request(request.method, path, info, contentType, reply.raw.statusCode);
    });
  };
}

/**
 * Counts every request but the long-running ones when its response ends (those are counted by
 * `longRunningTracker`), and serves `GET /metrics`. `/metrics` is a non-resource URL, authorized
 * like the others (`get` on `/metrics`: cluster-admin, and the group system:monitoring through
 * the default role of that name).
 */
export function installMetrics(app: FastifyInstance, metrics: ApiServerMetrics, registry: ResourceRegistry): void {
  app.addHook('onResponse', (request, reply, done) => {
    if (request.requestKind !== 'longRunning') {
      const info = servedInfo(registry, request.requestInfo);
      // The path names a series only for non-resource requests, the content type only for a patch (APPLY).
      const path = info === undefined ? pathOf(request) : '';
      const contentType = info?.verb === 'patch' ? request.headers['content-type'] : undefined;
      metrics.request(request.method, path, info, contentType, reply.statusCode, reply.elapsedTime / 1000);
    }
    done();
  });
  app.get('/metrics', async (_request, reply) => {
    const { body, contentType } = await metrics.render();
    return reply.type(contentType).send(body);
  });
}

/**
 * The request's info when it names a type the server serves, else undefined (then it is counted
 * under its path's `/api` or `/apis`): label values come from the path, and a client must not be
 * able to mint a series per made-up resource name.
 */
function servedInfo(registry: ResourceRegistry, info: RequestInfo | undefined): RequestInfo | undefined {
  return info !== undefined && registry.lookup(info.group, info.version, info.resource) !== undefined ? info : undefined;
}

/** The watch caches as the scrape reads them: one sample per cache, labelled with the first type it serves. */
export function watchCacheSamples(registry: ResourceRegistry, caches: ResourceCaches): () => Iterable<WatchCacheSample> {
  return function* samples() {
    const seen = new Set<unknown>();
    for (const type of registry.all()) {
      if (type.virtual) continue;
      let cache;
      try {
        cache = caches.of(type);
      } catch {
        continue; // a type whose cache is gone (a custom resource being removed)
      }
      if (seen.has(cache)) continue;
      seen.add(cache);
      const stats = cache.stats();
      yield { group: type.group, version: type.version, kind: type.kind, resource: type.resource, watchers: stats.watchers, eventsReceived: stats.eventsReceived, history: stats.history };
    }
  };
}
