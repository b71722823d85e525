import { unauthorized } from '../../api/index.js';
import type { UserInfo } from '../authn/user.js';
import { isRequestInfo, type DiscoveryPath, type RequestInfo } from '../request-info.js';
import { forbiddenError, type NonResourceAttributes, type ResourceAttributes } from './attributes.js';
import type { Authorizer } from './decision.js';

const NAME_FIELD = 'metadata.name=';

/**
 * The attributes of a resource request. A list or watch narrowed to one object by the field
 * selector `metadata.name=<x>` names that object, as in Kubernetes, so a rule with
 * `resourceNames` can grant watching the objects it names. The group stays as the client wrote
 * it (messages echo it); rule matching folds `*.k8s.io` into `*.svc.io`. A dry run asks for the
 * same verb as the real request: nothing here looks at `dryRun`.
 */
export function resourceAttributesOf(user: UserInfo, info: RequestInfo, query: Readonly<Record<string, unknown>>): ResourceAttributes {
  let name = info.name ?? '';
  if (name === '' && (info.verb === 'list' || info.verb === 'watch')) name = nameFromFieldSelector(query['fieldSelector']);
  return {
    kind: 'resource',
    user,
    verb: info.verb,
    apiGroup: info.group,
    resource: info.resource,
    subresource: info.subresource ?? '',
    namespace: info.namespace ?? '',
    name,
  };
}

function nameFromFieldSelector(selector: unknown): string {
  if (typeof selector !== 'string' || !selector.includes(NAME_FIELD)) return '';
  for (const term of selector.split(',')) {
    const t = term.trim();
    if (t.startsWith(NAME_FIELD)) return t.slice(NAME_FIELD.length);
    if (t.startsWith('metadata.name==')) return t.slice('metadata.name=='.length);
  }
  return '';
}

export function nonResourceAttributesOf(user: UserInfo, method: string, path: string): NonResourceAttributes {
  return { kind: 'nonResource', user, verb: method === 'HEAD' ? 'get' : method.toLowerCase(), path };
}

/** Throws the 403 a request gets when the authorizer does not allow it. */
export function requireAllowed(authorizer: Authorizer, attributes: ResourceAttributes | NonResourceAttributes): void {
  const decision = authorizer.authorize(attributes);
  if (decision.decision !== 'allow') throw forbiddenError(attributes, decision.reason);
}

/** The request's user; every path the authorizer guards is authenticated first. */
export function userOf(request: { user?: UserInfo | undefined }): UserInfo {
  if (!request.user) throw unauthorized('Unauthorized');
  return request.user;
}

/**
 * Authorizes a request under `/api` or `/apis` once its path is parsed: a resource request by its
 * attributes, a discovery document as the non-resource path it is (`/apis/apps/v1`).
 */
export function authorizeApiRequest(
  authorizer: Authorizer,
  request: { user?: UserInfo | undefined; method: string; query: unknown },
  parsed: RequestInfo | DiscoveryPath,
  path: string,
): void {
  const user = userOf(request);
  requireAllowed(
    authorizer,
    isRequestInfo(parsed)
      ? resourceAttributesOf(user, parsed, request.query as Record<string, unknown>)
      : nonResourceAttributesOf(user, request.method, path),
  );
}

/** Paths the resource router authorizes itself (it knows which are resources). */
export const isApiPath = (path: string) => path === '/api' || path === '/apis' || path.startsWith('/api/') || path.startsWith('/apis/');
