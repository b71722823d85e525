import type { Attributes } from './attributes.js';

/**
 * An authorizer's answer. `allow` ends the evaluation; `noOpinion` lets the next authorizer
 * decide; `deny` ends it with a refusal. `reason` says why, for logs, 403 messages and
 * SubjectAccessReview.status.reason.
 */
export interface Decision {
  readonly decision: 'allow' | 'deny' | 'noOpinion';
  readonly reason: string;
}

/** Decides one request. Synchronous: it runs on every request and holds all it needs in memory. */
export interface Authorizer {
  authorize(attributes: Attributes): Decision;
}

export const ALLOW: Decision = Object.freeze({ decision: 'allow', reason: '' });
export const NO_OPINION: Decision = Object.freeze({ decision: 'noOpinion', reason: '' });
