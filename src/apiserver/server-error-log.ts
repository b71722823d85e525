import type { FastifyReply } from 'fastify';
import type { StatusError } from '../api/index.js';
import { pathOf } from './request-kind.js';

/**
 * Logs a request answered 5xx at the error level, which every verbosity shows (`-v 0` logs
 * warnings and errors): the operator must hear of a failing server without turning on request
 * logs. The line names what was asked (verb, path), who asked (user) and what went wrong (the
 * Status' reason and message, and the underlying exception with its stack when there was one).
 * 4xx answers are the caller's mistake and are not logged here.
 */
export function logServerError(reply: FastifyReply, error: StatusError): void {
  const request = reply.request;
  const cause = error.cause;
  reply.log.error(
    {
      verb: request.requestInfo?.verb ?? request.method,
      path: pathOf(request),
      user: request.user?.name ?? '',
      code: error.code,
      reason: error.reason,
      ...(cause instanceof Error ? { err: cause } : {}),
    },
    `${request.method} ${request.url} failed with ${error.code} ${error.reason}: ${error.message}`,
  );
}
