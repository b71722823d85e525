import { forbidden, upstreamGroupAlias, type StatusError } from '../../api/index.js';
import type { UserInfo } from '../authn/user.js';

/**
 * What an authorizer decides on: who asks, and either a resource request (verb, group, resource,
 * subresource, namespace, name) or a non-resource request (verb, path). The same record comes from
 * a real request and from a SubjectAccessReview, so both get one decision.
 */
export interface ResourceAttributes {
  readonly kind: 'resource';
  readonly user: UserInfo;
  readonly verb: string;
  /** As the client named it (`coordination.k8s.io` or `coordination.svc.io`): errors echo it. */
  readonly apiGroup: string;
  readonly resource: string;
  readonly subresource: string;
  /** `''` at the cluster scope. */
  readonly namespace: string;
  /** `''` when the request names no object. */
  readonly name: string;
}

export interface NonResourceAttributes {
  readonly kind: 'nonResource';
  readonly user: UserInfo;
  /** The HTTP method lowercased (`get`, `post`, ...). */
  readonly verb: string;
  readonly path: string;
}

export type Attributes = ResourceAttributes | NonResourceAttributes;

/**
 * The key a decision is remembered under: every attribute a rule can look at. The group is svc's
 * name for it, so `apps` asked either way shares one entry.
 */
export function decisionKey(a: Attributes): string {
  const who = `${a.user.name}\u0000${a.user.groups.join('\u0001')}`;
  return a.kind === 'resource'
    ? `${who}\u0000r\u0000${a.verb}\u0000${upstreamGroupAlias(a.apiGroup)}\u0000${a.resource}\u0000${a.subresource}\u0000${a.namespace}\u0000${a.name}`
    : `${who}\u0000n\u0000${a.verb}\u0000${a.path}`;
}

/** Kubernetes' wording of a denial, which clients and people grep for. */
export function forbiddenMessage(a: Attributes): string {
  const user = JSON.stringify(a.user.name);
  if (a.kind === 'nonResource') return `User ${user} cannot ${a.verb} path ${JSON.stringify(a.path)}`;
  const resource = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const where = a.namespace ? `in the namespace ${JSON.stringify(a.namespace)}` : 'at the cluster scope';
  return `User ${user} cannot ${a.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(a.apiGroup)} ${where}`;
}

/** The 403 a denied request gets: `pods "x" is forbidden: User "u" cannot get resource ...`. */
export function forbiddenError(a: Attributes, reason: string): StatusError {
  const message = reason ? `${forbiddenMessage(a)}: ${reason}` : forbiddenMessage(a);
  return a.kind === 'resource'
    ? forbidden({ group: a.apiGroup, resource: a.resource }, a.name, message)
    : forbidden({ group: '', resource: '' }, '', message);
}
