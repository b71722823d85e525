import { STATUS_REASONS, StatusError, type StatusDetails, type StatusListMeta, type StatusReason } from '../api/index.js';

/**
 * Turns a failed response (any non-2xx) or a watch ERROR event into a StatusError. A `Status`
 * body keeps its reason, code, message, details and list metadata; anything else (a proxy's HTML
 * page, an empty body, a reason svc does not know) gets the reason Kubernetes pairs with the code.
 */
export function statusErrorFrom(code: number, body: unknown): StatusError {
  const status = isRecord(body) && body['kind'] === 'Status' ? body : undefined;
  const statusCode = typeof status?.['code'] === 'number' && status['code'] > 0 ? status['code'] : code;
  const reasonText = status?.['reason'];
  const reason = typeof reasonText === 'string' && reasonText in STATUS_REASONS ? (reasonText as StatusReason) : reasonForCode(statusCode);
  const message =
    typeof status?.['message'] === 'string'
      ? status['message']
      : typeof body === 'string' && body.length > 0
        ? body.slice(0, 1024)
        : `the server answered ${statusCode} without a Status`;
  const details = isRecord(status?.['details']) ? (status['details'] as StatusDetails) : undefined;
  const metadata = isRecord(status?.['metadata']) ? (status['metadata'] as StatusListMeta) : undefined;
  return new StatusError({ reason, message, code: statusCode, ...(details ? { details } : {}), ...(metadata ? { metadata } : {}) });
}

const BY_CODE: ReadonlyMap<number, StatusReason> = new Map([
  [400, 'BadRequest'],
  [401, 'Unauthorized'],
  [403, 'Forbidden'],
  [404, 'NotFound'],
  [405, 'MethodNotAllowed'],
  [406, 'NotAcceptable'],
  [409, 'Conflict'],
  [410, 'Gone'],
  [413, 'RequestEntityTooLarge'],
  [415, 'UnsupportedMediaType'],
  [422, 'Invalid'],
  [429, 'TooManyRequests'],
  [503, 'ServiceUnavailable'],
  [504, 'Timeout'],
]);

function reasonForCode(code: number): StatusReason {
  return BY_CODE.get(code) ?? (code >= 500 ? 'InternalError' : 'BadRequest');
}

/** 410 Expired or Gone: the version asked for is compacted; a fresh list is the way on. */
export function isExpired(error: unknown): error is StatusError {
  return error instanceof StatusError && (error.reason === 'Expired' || error.reason === 'Gone' || error.code === 410);
}

/**
 * 504 "Too large resource version" (a cause with reason `ResourceVersionTooLarge`): the server has
 * not reached the version asked for — it lags, or it restarted without its history (a memory
 * store). Waiting for it may never end; a fresh list of the newest state is the way on.
 */
export function isTooLargeResourceVersion(error: unknown): error is StatusError {
  return error instanceof StatusError && (error.details?.causes ?? []).some((cause) => cause.reason === 'ResourceVersionTooLarge');
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
