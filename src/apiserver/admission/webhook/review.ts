import { randomUUID } from 'node:crypto';
import type { AdmissionAttributes } from '../attributes.js';

export const ADMISSION_REVIEW_API_VERSION = 'admission.k8s.io/v1';

/** AdmissionReview v1 `request`, as a webhook receives it. */
export interface AdmissionRequest {
  readonly uid: string;
  readonly kind: { group: string; version: string; kind: string };
  readonly resource: { group: string; version: string; resource: string };
  readonly subResource?: string;
  readonly requestKind: { group: string; version: string; kind: string };
  readonly requestResource: { group: string; version: string; resource: string };
  readonly requestSubResource?: string;
  readonly name?: string;
  readonly namespace?: string;
  readonly operation: string;
  readonly userInfo: { username: string; uid: string; groups: readonly string[] };
  readonly object: unknown;
  readonly oldObject: unknown;
  readonly dryRun: boolean;
  readonly options: unknown;
}

/**
 * The review of one request, for one webhook call. Each call has its own uid (the response must
 * echo it). Groups are svc's (`apps`, `*.svc.io`), as the objects' own apiVersions are.
 */
export function admissionReview(attrs: AdmissionAttributes): { apiVersion: string; kind: 'AdmissionReview'; request: AdmissionRequest } {
  const { type } = attrs;
  const kind = { group: type.group, version: type.version, kind: type.kind };
  const resource = { group: type.group, version: type.version, resource: type.resource };
  return {
    apiVersion: ADMISSION_REVIEW_API_VERSION,
    kind: 'AdmissionReview',
    request: {
      uid: randomUUID(),
      kind,
      resource,
      ...(attrs.subresource ? { subResource: attrs.subresource, requestSubResource: attrs.subresource } : {}),
      requestKind: kind,
      requestResource: resource,
      ...(attrs.name ? { name: attrs.name } : {}),
      ...(attrs.namespace ? { namespace: attrs.namespace } : {}),
      operation: attrs.operation,
      userInfo: { username: attrs.user?.name ?? '', uid: attrs.user?.uid ?? '', groups: attrs.user?.groups ?? [] },
      object: attrs.object ?? null,
      oldObject: attrs.oldObject ?? null,
      dryRun: attrs.dryRun,
      options: attrs.options ?? null,
    },
  };
}

/** A webhook's verdict, checked. */
export interface AdmissionVerdict {
  readonly allowed: boolean;
  readonly status?: { code?: number; message?: string; reason?: string };
  /** Decoded JSON patch operations (mutating webhooks only). */
  readonly patch?: unknown;
  readonly warnings: readonly string[];
}

/** Why a webhook's reply cannot be used; the message becomes part of the `failed calling webhook` error. */
export class BadWebhookResponse extends Error {}

const isObject = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);

/** Checks a reply body against the review it answers: JSON, AdmissionReview v1, the same uid, a well-formed response. */
export function parseVerdict(body: string, uid: string): AdmissionVerdict {
  let review: unknown;
  try {
    review = JSON.parse(body);
  } catch {
    throw new BadWebhookResponse('the response is not JSON');
  }
  if (!isObject(review) || review['apiVersion'] !== ADMISSION_REVIEW_API_VERSION || review['kind'] !== 'AdmissionReview') {
    const got = isObject(review) ? `${String(review['apiVersion'])}, Kind=${String(review['kind'])}` : typeof review;
    throw new BadWebhookResponse(`expected webhook response of ${ADMISSION_REVIEW_API_VERSION}, Kind=AdmissionReview, got ${got}`);
  }
  const response = review['response'];
  if (!isObject(response)) throw new BadWebhookResponse('webhook response was absent');
  if (response['uid'] !== uid) throw new BadWebhookResponse(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(response['uid'])}`);
  if (typeof response['allowed'] !== 'boolean') throw new BadWebhookResponse('response.allowed must be a boolean');
  const status = response['status'];
  if (status !== undefined && status !== null && !isObject(status)) throw new BadWebhookResponse('response.status must be an object');
  const warnings = response['warnings'] ?? [];
  if (!Array.isArray(warnings) || !warnings.every((w) => typeof w === 'string')) throw new BadWebhookResponse('response.warnings must be a list of strings');

  let patch: unknown;
  if (response['patch'] !== undefined && response['patch'] !== null) {
    if (response['patchType'] !== 'JSONPatch') throw new BadWebhookResponse(`unsupported patch type ${JSON.stringify(response['patchType'] ?? '')}`);
    if (typeof response['patch'] !== 'string') throw new BadWebhookResponse('response.patch must be base64 text');
    try {
      patch = JSON.parse(Buffer.from(response['patch'], 'base64').toString('utf8'));
    } catch {
      throw new BadWebhookResponse('response.patch is not a base64-encoded JSON patch');
    }
    if (!Array.isArray(patch)) throw new BadWebhookResponse('response.patch is not a list of JSON patch operations');
  } else if (response['patchType'] !== undefined && response['patchType'] !== null && response['patchType'] !== 'JSONPatch') {
    throw new BadWebhookResponse(`unsupported patch type ${JSON.stringify(response['patchType'])}`);
  }
  return {
    allowed: response['allowed'],
    ...(isObject(status) ? { status: status as AdmissionVerdict['status'] & object } : {}),
    ...(patch !== undefined ? { patch } : {}),
    warnings: warnings as string[],
  };
}
