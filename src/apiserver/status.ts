import type { FastifyReply } from 'fastify';
import {
  StatusError,
  alreadyExists,
  badRequest,
  conflict,
  internal,
  isStatusError,
  notFound,
  optimisticLockMessage,
  requestEntityTooLarge,
  serviceUnavailable,
  storageReadError,
  tooOldResourceVersion,
  resourceVersionTooLarge,
  unsupportedMediaType,
} from '../api/index.js';
import { isStorageError } from '../storage/index.js';
import { logServerError } from './server-error-log.js';
import { jsonBody } from './json-newline.js';

/** The object a failing request was about, so a storage error can name it as Kubernetes does. */
export interface ErrorSubject {
  readonly group: string;
  readonly resource: string;
  readonly name?: string | undefined;
}

/**
 * Turns anything thrown while serving into the StatusError the client sees. Storage codes map to
 * Kubernetes' reasons; Fastify's own body errors keep their HTTP meaning; anything else is a 500.
 */
export function toStatusError(error: unknown, subject?: ErrorSubject): StatusError {
  if (isStatusError(error)) return error;
  if (isStorageError(error)) {
    const gr = { group: subject?.group ?? '', resource: subject?.resource ?? '' };
    const name = subject?.name ?? error.details.key ?? '';
    switch (error.code) {
      case 'NotFound':
        return notFound(gr, name);
      case 'AlreadyExists':
        return alreadyExists(gr, name);
      case 'Conflict':
        return conflict(gr, name, optimisticLockMessage);
      case 'Compacted':
        return tooOldResourceVersion(error.details.revision ?? 0, error.details.compactedRevision ?? 0);
      case 'FutureRevision':
        return resourceVersionTooLarge(error.details.revision ?? 0, error.details.currentRevision ?? 0, 1);
      case 'Corrupt':
        return storageReadError(`${error.message}`);
      case 'InvalidArgument':
        return badRequest(error.message);
      case 'Unavailable':
      case 'Closed':
        return serviceUnavailable(error.message);
    }
  }
  const fastifyError = error as { code?: string; statusCode?: number; message?: string };
  switch (fastifyError.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return requestEntityTooLarge(fastifyError.message ?? 'request body too large');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return unsupportedMediaType(fastifyError.message ?? 'unsupported media type', ['application/json']);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return badRequest(fastifyError.message ?? 'bad request body');
  }
  if (typeof fastifyError.statusCode === 'number' && fastifyError.statusCode >= 400 && fastifyError.statusCode < 500) {
    return badRequest(fastifyError.message ?? 'bad request');
  }
  return internal(error);
}

/** Sends a StatusError as its `Status` body, with `Retry-After` when it carries one; a 5xx is logged. */
export function sendStatus(reply: FastifyReply, error: StatusError): FastifyReply {
  const status = error.toStatus();
  const retry = status.details?.retryAfterSeconds;
  if (retry !== undefined && retry > 0) reply.header('retry-after', String(retry));
  if (status.code >= 500) logServerError(reply, error);
  return reply.code(status.code).type('application/json').send(jsonBody(status));
}

/** 404 for a path that names nothing the server serves. */
export function pathNotFound(): StatusError {
  return new StatusError({ reason: 'NotFound', code: 404, message: 'the server could not find the requested resource' });
}
