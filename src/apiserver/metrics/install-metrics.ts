import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ResourceRegistry } from '../../api/index.js';
import type { ResourceCaches } from '../resource-caches.js';
import { resourceRequestInfo } from '../request-info.js';
import { pathOf } from '../request-kind.js';
import type { ApiServerMetrics, WatchCacheSample } from './api-metrics.js';

/**
 * Wires the metrics into the app: every request is counted when its response ends, long-running
 * ones are gauged while they run, and `GET /metrics` renders the registry. `/metrics` is a
 * non-resource URL, authorized like the others (`get` on `/metrics`: cluster-admin, and the
 * group system:monitoring through the default role of that name).
 */
export function installMetrics(app: FastifyInstance, metrics: ApiServerMetrics): void {
  // Long-running requests this hook started gauging; they are counted when their socket closes
  // (a watch hijacks its reply, so onResponse never sees it).
  const gauged = new WeakSet<FastifyRequest>();
  app.addHook('onRequest', (request, reply, done) => {
    if (request.requestKind !== 'longRunning') return done();
    gauged.add(request);
    const path = pathOf(request);
    // The router has not run yet: long-running requests are few, so this one is parsed here.
    const info = resourceRequestInfo(request.method, path, request.query);
    const contentType = request.headers['content-type'];
    const ended = metrics.longRunning(request.method, path, info, contentType);
    reply.raw.once('close', () => {
      ended();
      metrics.request(request.method, path, info, contentType, reply.raw.statusCode);
    });
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    if (!gauged.has(request)) {
      metrics.request(request.method, pathOf(request), request.requestInfo, request.headers['content-type'], reply.statusCode, reply.elapsedTime / 1000);
    }
    done();
  });
  app.get('/metrics', async (_request, reply) => {
    const { body, contentType } = await metrics.render();
    return reply.type(contentType).send(body);
  });
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
