import { badRequest, internal, STATUS_REASONS, StatusError, type StatusReason } from '../../../api/index.js';
import type { AdmissionVerdict } from './review.js';

const BY_CODE: Readonly<Record<number, StatusReason>> = {
  400: 'BadRequest', 401: 'Unauthorized', 403: 'Forbidden', 404: 'NotFound', 409: 'Conflict', 410: 'Gone',
  422: 'Invalid', 429: 'TooManyRequests', 500: 'InternalError', 503: 'ServiceUnavailable', 504: 'Timeout',
};

/**
 * A webhook's refusal as the client sees it: `admission webhook "<name>" denied the request: <message>`,
 * with the webhook's code (403 Forbidden when it gives none, or one below 400) and reason.
 */
export function denied(webhook: string, status: AdmissionVerdict['status']): StatusError {
  const by = `admission webhook ${JSON.stringify(webhook)} denied the request`;
  const code = status?.code !== undefined && status.code >= 400 && status.code <= 599 ? Math.trunc(status.code) : 403;
  const given = status?.reason;
  const reason: StatusReason =
    given !== undefined && given in STATUS_REASONS ? (given as StatusReason) : (BY_CODE[code] ?? (code >= 500 ? 'InternalError' : 'BadRequest'));
  const message = status?.message ? `${by}: ${status.message}` : given ? `${by}: ${given}` : `${by} without explanation`;
  return new StatusError({ reason, code, message });
}

/** A webhook that could not be called, or answered with something unusable, under failurePolicy Fail. */
export function failedCalling(webhook: string, why: string): StatusError {
  return internal(new Error(`failed calling webhook ${JSON.stringify(webhook)}: ${why}`));
}

/** A dry run that would reach a webhook that may have side effects. */
export function dryRunUnsupported(webhook: string): StatusError {
  return badRequest(`admission webhook ${JSON.stringify(webhook)} does not support dry run`);
}
