import { badRequest, parseBool } from '../api/index.js';

/**
 * What a resource request addresses, read from its path and method before anything else runs
 * (authorization and the handlers branch on it).
 */
export interface RequestInfo {
  /** `api` for the core group, `apis` for the others. */
  readonly prefix: 'api' | 'apis';
  readonly group: string;
  readonly version: string;
  readonly namespace: string | undefined;
  readonly resource: string;
  readonly name: string | undefined;
  readonly subresource: string | undefined;
  readonly verb: 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete' | 'deletecollection';
}

/** A path under `/api` or `/apis` that names a group or version rather than a resource. */
export type DiscoveryPath =
  | { readonly kind: 'versions' } // /api
  | { readonly kind: 'groups' } // /apis
  | { readonly kind: 'group'; readonly group: string } // /apis/<g>
  | { readonly kind: 'resources'; readonly group: string; readonly version: string }; // /api/v1, /apis/<g>/<v>

// Subresources of a namespace itself, which would otherwise read as a resource type inside it.
const NAMESPACE_SUBRESOURCES = new Set(['status', 'finalize']);

// `watch` as strconv.ParseBool reads it; a text it cannot read is refused by the router (400).
const isTrue = (value: unknown): boolean => {
  const text = Array.isArray(value) ? value[value.length - 1] : value;
  return typeof text === 'string' && parseBool(text) === true;
};

/** Parses `/api/...` and `/apis/...`; undefined when the path is neither a resource nor discovery. */
export function parseRequestPath(
  method: string,
  path: string,
  query: Readonly<Record<string, unknown>>,
): RequestInfo | DiscoveryPath | undefined {
  // Index arithmetic rather than shift/splice/destructuring: this runs on every request.
  // parts[0] is the empty text before the leading `/`.
  const split = path.split('/');
  const parts = path.includes('%') ? decodeSegments(split) : split;
  // A discovery path may end in `/` (`/apis/`); a resource path may not (below).
  const trailing = parts.length > 2 && parts[parts.length - 1] === '';
  const end = trailing ? parts.length - 1 : parts.length;
  let at = 1;
  const prefix = parts[at++];
  let group = '';
  if (prefix === 'api') {
    if (end === at) return { kind: 'versions' };
  } else if (prefix === 'apis') {
    if (end === at) return { kind: 'groups' };
    group = parts[at++]!;
    if (group === '') return undefined;
    if (end === at) return { kind: 'group', group };
  } else {
    return undefined;
  }
  const version = parts[at++]!;
  if (version === '') return undefined;
  if (end === at) return { kind: 'resources', group, version };

  let namespace: string | undefined;
  if (parts[at] === 'namespaces' && end - at >= 3 && !NAMESPACE_SUBRESOURCES.has(parts[at + 2]!)) {
    namespace = parts[at + 1];
    at += 2;
  }
  // Only a proxy carries a path of its own after the subresource (`pods/x/proxy/healthz`).
  if (end - at > 3 && parts[at + 2] !== 'proxy') return undefined;
  // Read within `end`: a trailing `/` is not an empty name.
  const resource = at < end ? parts[at] : undefined;
  const name = at + 1 < end ? parts[at + 1] : undefined;
  const subresource = at + 2 < end ? parts[at + 2] : undefined;
  if (resource === undefined) return undefined;
  // An empty namespace, resource, name or subresource (`…/configmaps/`, `…/namespaces//pods`) is
  // no address at all: never the collection, which would turn a DELETE into a deletecollection
  // (issue #29). Only a proxy's own path (`pods/x/proxy/`, `…/proxy/a//b`) may hold empty segments.
  for (let i = 1, last = Math.min(end, at + 3); i < last; i++) if (parts[i] === '') return undefined;
  if (trailing && subresource !== 'proxy') return undefined;

  let verb: RequestInfo['verb'];
  switch (method) {
    case 'GET':
    case 'HEAD':
      // A GET to exec, attach or portforward is a WebSocket upgrade that runs something: it is
      // authorized as `create`, as Kubernetes does since 1.30, so `get` on pods/exec grants nothing.
      verb = name === undefined ? (isTrue(query['watch']) ? 'watch' : 'list') : subresource !== undefined && STREAMING.has(subresource) ? 'create' : 'get';
      break;
    case 'POST':
      verb = 'create';
      break;
    case 'PUT':
      verb = 'update';
      break;
    case 'PATCH':
      verb = 'patch';
      break;
    case 'DELETE':
      verb = name === undefined ? 'deletecollection' : 'delete';
      break;
    default:
      return undefined;
  }
  return { prefix, group, version, namespace, resource, name, subresource, verb };
}

const STREAMING = new Set(['exec', 'attach', 'portforward']);

/** Percent-decoded path segments; an escape that decodes to no UTF-8 text is a 400. */
function decodeSegments(segments: readonly string[]): string[] {
  try {
    return segments.map(decodeURIComponent);
  } catch {
    throw badRequest('the request path holds a percent-escape that is not valid UTF-8');
  }
}

export const isRequestInfo = (value: RequestInfo | DiscoveryPath): value is RequestInfo => 'verb' in value;

/**
 * `parseRequestPath` for a hook that runs before the router: the resource request's info, or
 * undefined for anything else, including a path the router will refuse.
 */
export function resourceRequestInfo(method: string, path: string, query: unknown): RequestInfo | undefined {
  try {
    const parsed = parseRequestPath(method, path, (query ?? {}) as Record<string, unknown>);
    return parsed !== undefined && isRequestInfo(parsed) ? parsed : undefined;
  } catch {
    return undefined; // a malformed escape: the router answers it 400
  }
}
