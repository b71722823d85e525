import type { FastifyRequest } from 'fastify';
import type { RequestInfo } from './request-info.js';

/**
 * What kind of load a request is, decided once when it arrives (before routing, by the request
 * gate) and read by flow control, the metrics and the audit log:
 * - `longRunning`: watches and the streaming subresources (exec, attach, portforward, log, proxy),
 *   kube-apiserver's long-running check. They hold a connection for minutes, so they take no
 *   seat in the in-flight limits; `apiserver_longrunning_requests` counts them instead.
 * - `mutating`: any other method than GET, HEAD and OPTIONS.
 * - `readOnly`: the rest.
 */
export type RequestKind = 'readOnly' | 'mutating' | 'longRunning';

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the request gate's onRequest hook (request-gate.ts). */
    requestKind: RequestKind;
    /** What a resource request addresses, set by the resource router once it parsed the path. */
    requestInfo: RequestInfo | undefined;
  }
}

// `<prefix>/<version>[/namespaces/<ns>]/<resource>/<name>/<streaming subresource>[/...]`.
const STREAMING = /^\/(?:api\/[^/]+|apis\/[^/]+\/[^/]+)(?:\/namespaces\/[^/]+)?\/[^/]+\/[^/]+\/(?:exec|attach|portforward|log|proxy)(?:\/|$)/;

/** A cheap test first: most paths end in none of the words and name no proxy, and skip the pattern. */
function mayStream(path: string): boolean {
  return path.endsWith('/log') || path.endsWith('/exec') || path.endsWith('/attach') || path.endsWith('/portforward') || path.includes('/proxy');
}

function isWatch(query: unknown): boolean {
  const watch = (query as Record<string, unknown> | undefined)?.['watch'];
  return watch === '1' || watch === 'true';
}

/** The kind of a request, from its method, path (without the query) and parsed query. */
export function requestKindOf(method: string, path: string, query: unknown): RequestKind {
  if ((method === 'GET' && isWatch(query)) || (mayStream(path) && STREAMING.test(path))) return 'longRunning';
  return method === 'GET' || method === 'HEAD' || method === 'OPTIONS' ? 'readOnly' : 'mutating';
}

/** The request's path without its query string. */
export function pathOf(request: FastifyRequest): string {
  const url = request.url;
  const query = url.indexOf('?');
  return query < 0 ? url : url.slice(0, query);
}
