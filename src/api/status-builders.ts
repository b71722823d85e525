import { StatusError, type FieldCause } from './status-error.js';

/**
 * Constructors for each failure, with the message formats Kubernetes clients show to users and
 * sometimes match on. `gr.resource` is the plural resource name (`pods`), never the kind.
 */

export interface GroupResource {
  readonly group: string;
  readonly resource: string;
}

export interface GroupKind {
  readonly group: string;
  readonly kind: string;
}

/** The text of a Conflict after a stale resourceVersion; clients (kubectl edit) look for it. */
export const optimisticLockMessage =
  'the object has been modified; please apply your changes to the latest version and try again';

// Go's %q; JSON string escaping is the same for everything a name can hold.
const quote = (text: string) => JSON.stringify(text);

/** `pods` for the core group, `deployments.apps` otherwise. */
export const qualifiedResource = (gr: GroupResource) => (gr.group ? `${gr.resource}.${gr.group}` : gr.resource);

const qualifiedKind = (gk: GroupKind) => (gk.group ? `${gk.kind}.${gk.group}` : gk.kind);

const subject = (gr: GroupResource, name: string) => ({ name, group: gr.group, kind: gr.resource });

export function notFound(gr: GroupResource, name: string): StatusError {
  return new StatusError({
    reason: 'NotFound',
    message: `${qualifiedResource(gr)} ${quote(name)} not found`,
    details: subject(gr, name),
  });
}

export function alreadyExists(gr: GroupResource, name: string): StatusError {
  return new StatusError({
    reason: 'AlreadyExists',
    message: `${qualifiedResource(gr)} ${quote(name)} already exists`,
    details: subject(gr, name),
  });
}

/** 409 for a write that lost a race; pass `optimisticLockMessage` for a stale resourceVersion. */
export function conflict(gr: GroupResource, name: string, reasonText: string): StatusError {
  return new StatusError({
    reason: 'Conflict',
    message: `Operation cannot be fulfilled on ${qualifiedResource(gr)} ${quote(name)}: ${reasonText}`,
    details: subject(gr, name),
  });
}

/**
 * 422 with one cause per field. `kind` is a kind name (`Pod`) or a group and kind; the message
 * lists the causes as Kubernetes aggregates them (bracketed when there are several).
 */
export function invalid(kind: string | GroupKind, name: string, causes: readonly FieldCause[]): StatusError {
  const gk = typeof kind === 'string' ? { group: '', kind } : kind;
  const lines = causes.map((c) => (c.field ? `${c.field}: ${c.message}` : c.message));
  const summary = lines.length === 0 ? '' : lines.length === 1 ? `: ${lines[0]}` : `: [${lines.join(', ')}]`;
  return new StatusError({
    reason: 'Invalid',
    message: `${qualifiedKind(gk)} ${quote(name)} is invalid${summary}`,
    details: { name, group: gk.group, kind: gk.kind, causes: causes.map((c) => ({ ...c })) },
  });
}

export function badRequest(message: string): StatusError {
  return new StatusError({ reason: 'BadRequest', message });
}

/** 405. `kind` is what the client addressed (a kind or a resource); `why` is appended when given. */
export function methodNotAllowed(verb: string, kind: string, why?: string): StatusError {
  const base = `${verb} is not supported on resources of kind ${quote(kind)}`;
  return new StatusError({
    reason: 'MethodNotAllowed',
    message: why ? `${base}: ${why}` : base,
    details: { kind },
  });
}

export function notAcceptable(accepted: readonly string[]): StatusError {
  return new StatusError({
    reason: 'NotAcceptable',
    message: `only the following media types are accepted: ${accepted.join(', ')}`,
  });
}

export function unsupportedMediaType(type: string, supported: readonly string[]): StatusError {
  return new StatusError({
    reason: 'UnsupportedMediaType',
    message: `the body of the request was in an unsupported media type ${quote(type)}; accepted media types include: ${supported.join(', ')}`,
  });
}

/** 413. A number is the byte limit; a string is free text after the fixed prefix. */
export function requestEntityTooLarge(limit: number | string): StatusError {
  const detail = typeof limit === 'number' ? `limit is ${limit}` : limit;
  return new StatusError({ reason: 'RequestEntityTooLarge', message: `Request entity too large: ${detail}` });
}

export function unauthorized(message: string): StatusError {
  return new StatusError({ reason: 'Unauthorized', message: message || 'not authorized' });
}

export function forbidden(gr: GroupResource, name: string, message: string): StatusError {
  const what = !gr.resource ? 'forbidden' : name ? `${qualifiedResource(gr)} ${quote(name)} is forbidden` : `${qualifiedResource(gr)} is forbidden`;
  return new StatusError({ reason: 'Forbidden', message: `${what}: ${message}`, details: subject(gr, name) });
}

/**
 * 410 Expired: history or a continue token is gone. `continueToken` goes in Status.metadata so a
 * paging client can carry on from a fresh snapshot.
 */
export function expired(message: string, continueToken?: string): StatusError {
  return new StatusError({
    reason: 'Expired',
    message,
    ...(continueToken === undefined ? {} : { metadata: { continue: continueToken } }),
  });
}

/** The 410 a watch or list gets when its resourceVersion has been compacted away. */
export function tooOldResourceVersion(requested: string | number, oldest: string | number): StatusError {
  return expired(`too old resource version: ${requested} (${oldest})`);
}

export function gone(message: string): StatusError {
  return new StatusError({ reason: 'Gone', message });
}

export function timeout(message: string, retryAfterSeconds: number): StatusError {
  return new StatusError({ reason: 'Timeout', message: `Timeout: ${message}`, details: { retryAfterSeconds } });
}

/** 504 for a resourceVersion the server has not reached yet, with the cause clients look for. */
export function resourceVersionTooLarge(requested: string | number, current: string | number, retryAfterSeconds: number): StatusError {
  return new StatusError({
    reason: 'Timeout',
    message: `Timeout: Too large resource version: ${requested}, current: ${current}`,
    details: {
      retryAfterSeconds,
      causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }],
    },
  });
}

/** 500 ServerTimeout: the operation may still complete; the client should retry. */
export function serverTimeout(gr: GroupResource, operation: string, retryAfterSeconds: number): StatusError {
  return new StatusError({
    reason: 'ServerTimeout',
    message: `The ${operation} operation against ${qualifiedResource(gr)} could not be completed at this time, please try again.`,
    details: { group: gr.group, kind: gr.resource, retryAfterSeconds },
  });
}

export function tooManyRequests(message: string, retryAfterSeconds: number): StatusError {
  return new StatusError({ reason: 'TooManyRequests', message, details: { retryAfterSeconds } });
}

/** 500 for anything unexpected; the original error is kept as `cause` for logs. */
export function internal(error: unknown): StatusError {
  const text = error instanceof Error ? error.message : String(error);
  return new StatusError({
    reason: 'InternalError',
    message: `Internal error occurred: ${text}`,
    details: { causes: [{ message: text }] },
    cause: error,
  });
}

export function serviceUnavailable(message: string): StatusError {
  return new StatusError({ reason: 'ServiceUnavailable', message });
}

/** 500 for an object storage holds but cannot decode (the unsafe-delete flow keys off it). */
export function storageReadError(message: string, gr?: GroupResource, name?: string): StatusError {
  return new StatusError({ reason: 'StorageReadError', message, ...(gr && name !== undefined ? { details: subject(gr, name) } : {}) });
}
