import type { FastifyReply, FastifyRequest } from 'fastify';
import { badRequest, booleanParam, methodNotAllowed, StatusError, upstreamGroupAlias, type ApiGroupVersions, type ResourceRegistry, type ResourceType } from '../api/index.js';
import { authorizeApiRequest, type Authorizer } from './authz/index.js';
import type { Store } from '../storage/index.js';
import { apiGroup, apiGroupList, apiResourceList, apiVersions } from './discovery.js';
import { type Handler, type HandlerContext, type WatchSettings } from './request/index.js';
import { create } from './handlers/create.js';
import { deleteCollection, deleteObject } from './handlers/delete.js';
import { patch } from './handlers/patch.js';
import { getObject, listObjects } from './handlers/read.js';
import { update } from './handlers/update.js';
import { namespaceSubresource } from './handlers/namespace-subresources.js';
import { watchObjects } from './handlers/watch.js';
import { serveTokenRequest } from './authn/token-request-route.js';
import type { ServiceAccountTokens } from './authn/index.js';
import type { Admission } from './admission/index.js';
import type { ContinueTokens } from './continue-token.js';
import type { ResourceCaches } from './resource-caches.js';
import type { ObjectReader } from './object-reader.js';
import { isRequestInfo, parseRequestPath, type RequestInfo } from './request-info.js';
import { pathNotFound, sendStatus, toStatusError } from './status.js';
import { upstreamRenamer } from './upstream-names.js';
import { subresourceHandler, virtualEndpoint } from './subresources/index.js';
import { jsonBody } from './json-newline.js';
import type { ServiceAllocator } from './services/index.js';

const HANDLERS: Partial<Record<RequestInfo['verb'], Handler>> = {
  get: getObject,
  list: listObjects,
  watch: watchObjects,
  create,
  update,
  patch,
  delete: deleteObject,
  deletecollection: deleteCollection,
};

export interface ResourceRouterOptions {
  store: Store;
  services?: ServiceAllocator | undefined;
  reader: ObjectReader;
  registry: ResourceRegistry;
  caches: ResourceCaches;
  tokens: ContinueTokens;
  watch: WatchSettings;
  admission: Admission;
  featureGates: Readonly<Record<string, boolean>>;
  /** Mints TokenRequests (authn); absent: the token subresource answers 503. */
  serviceAccountTokens?: ServiceAccountTokens | undefined;
  /** Decides every request after its path is parsed; absent: everything is allowed. */
  authorizer?: Authorizer | undefined;
  /** The create handlers of the virtual types (access and token reviews). */
  virtual?: ReadonlyMap<ResourceType, Handler> | undefined;
  /** The groups aggregated servers serve, listed in `/apis` after the local ones (aggregation/). */
  aggregatedGroups?: (() => readonly ApiGroupVersions[]) | undefined;
}

/**
 * One handler for everything under `/api` and `/apis`: discovery documents, then resource
 * requests resolved to their type and dispatched by verb.
 */
export function resourceRouter(options: ResourceRouterOptions) {
  const { registry, store, reader, caches, tokens, watch, admission, featureGates, services } = options;
  // Not async: a thrown StatusError reaches Fastify's error handler all the same, and a GET is
  // one promise (the handler's) rather than two.
  return function route(request: FastifyRequest, reply: FastifyReply): unknown {
    const q = request.url.indexOf('?');
    const url = q < 0 ? request.url : request.url.slice(0, q);
    const parsed = parseRequestPath(request.method, url, request.query as Record<string, unknown>);
    if (!parsed) throw pathNotFound();
    // For the metrics, the audit log and the error log, under the group name the request used.
    if (isRequestInfo(parsed)) request.requestInfo = parsed;
    if (options.authorizer) authorizeApiRequest(options.authorizer, request, parsed, url);
    if (!isRequestInfo(parsed)) {
      if (request.method !== 'GET' && request.method !== 'HEAD') throw methodNotAllowed(request.method, 'discovery');
      const host = request.headers.host ?? 'localhost';
      const doc =
        parsed.kind === 'versions'
          ? apiVersions(host)
          : parsed.kind === 'groups'
            ? apiGroupList(registry, options.aggregatedGroups?.())
            : parsed.kind === 'group'
              ? apiGroup(registry, parsed.group)
              : apiResourceList(registry, parsed.group, parsed.version);
      if (!doc) throw pathNotFound();
      return reply.type('application/json').send(jsonBody(doc));
    }

    // Options every verb reads, checked before anything is done: a `watch` that is no boolean is
    // a 400 rather than a silent list, a bad `pretty` a 400 rather than a write answered with one.
    const query = request.query as Record<string, unknown>;
    booleanParam('watch', query['watch'], false);
    booleanParam('pretty', query['pretty'], false);
    const info: RequestInfo = parsed.group.endsWith('.k8s.io') ? { ...parsed, group: upstreamGroupAlias(parsed.group) } : parsed;
    // A request under an upstream group name is answered under that name (upstream-names.ts).
    const rename = info === parsed ? undefined : upstreamRenamer(info.group);
    const run = (type: ResourceType, handler: Handler): unknown => {
      // Every field named, not `...options`: spreading the options object was a tenth of a GET's CPU.
      const ctx: HandlerContext = { store, reader, registry, caches, tokens, watch, admission, featureGates, services, type, info, request, reply, rename };
      return handler(ctx).catch((error: unknown) => {
        if (error instanceof StatusError) throw error;
        return sendStatus(reply, toStatusError(error, { group: type.group, resource: type.resource, name: info.name }));
      });
    };
    const type = registry.lookup(info.group, info.version, info.resource);
    if (!type) {
      // Resources that are operations on another type (the legacy `bindings`).
      const virtual = virtualEndpoint(registry, info);
      if (!virtual) throw pathNotFound();
      return run(virtual.type, virtual.handler);
    }
    // serviceaccounts/<name>/token (TokenRequest) needs the token issuer, which handlers do not carry.
    if (info.subresource === 'token' && type.group === '' && type.resource === 'serviceaccounts' && info.namespace !== undefined && info.name !== undefined) {
      const { serviceAccountTokens, ...rest } = options;
      return serveTokenRequest({ ...rest, type, info, request, reply, rename }, serviceAccountTokens);
    }
    // A namespace's finalize also removes a Terminating namespace left without finalizers (the
    // namespace controller's last step); the generic subresources do the rest.
    if (info.subresource === 'finalize') {
      const finalize = namespaceSubresource(registry, type, info);
      if (finalize) return run(type, finalize);
    }
    if (type.namespaced && info.namespace === undefined && info.name !== undefined) throw pathNotFound();
    if (!type.namespaced && info.namespace !== undefined) throw pathNotFound();
    if (info.subresource !== undefined) return run(type, subresourceHandler(type, info));
    if (type.namespaced && info.namespace === undefined && (info.verb === 'create' || info.verb === 'deletecollection')) {
      throw methodNotAllowed(info.verb, type.kind, 'it needs a namespace in the path');
    }
    if (info.verb === 'create' && info.name !== undefined) throw methodNotAllowed('create', type.kind, 'POST goes to the collection, not to an object');
    const handler = type.virtual ? options.virtual?.get(type) : HANDLERS[info.verb];
    if (!type.verbs.includes(info.verb) || !handler) throw methodNotAllowed(info.verb, type.kind);
    return run(type, handler);
  };
}
