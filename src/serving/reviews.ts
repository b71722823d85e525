import { createHash } from 'node:crypto';
import type { Client } from '../client/index.js';
import { TtlCache } from './ttl-cache.js';

/**
 * The client side of delegated authentication and authorization: asking the API server, through
 * `authentication.svc.io/v1` TokenReview and `authorization.svc.io/v1` SubjectAccessReview,
 * who a bearer token is and whether a user may reach a path. Answers are cached for the TTLs of
 * the `--authentication-token-webhook-cache-ttl` and `--authorization-webhook-cache-*-ttl` options.
 */

export interface RequestUser {
  readonly name: string;
  readonly uid?: string | undefined;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>> | undefined;
}

export const TOKEN_REVIEWS_PATH = '/apis/authentication.svc.io/v1/tokenreviews';
export const SUBJECT_ACCESS_REVIEWS_PATH = '/apis/authorization.svc.io/v1/subjectaccessreviews';

interface TokenReviewStatus {
  authenticated?: boolean;
  user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
  error?: string;
}

/** Who a bearer token is: the user, or `undefined` when the API server says it is not valid. */
export class TokenReviewer {
  readonly #cache = new TtlCache<RequestUser | null>();

  constructor(
    private readonly client: Client,
    private readonly ttlMs: number,
  ) {}

  async review(token: string): Promise<RequestUser | undefined> {
    // Tokens are secrets: the cache is keyed by their hash.
    const key = createHash('sha256').update(token).digest('base64');
    const cached = this.#cache.get(key);
    if (cached !== undefined) return cached ?? undefined;
    const answer = (await this.client.transport.request({
      method: 'POST',
      path: TOKEN_REVIEWS_PATH,
      body: { apiVersion: 'authentication.svc.io/v1', kind: 'TokenReview', spec: { token } },
    })) as { status?: TokenReviewStatus } | undefined;
    const status = answer?.status ?? {};
    const user =
      status.authenticated === true && status.user?.username
        ? { name: status.user.username, uid: status.user.uid, groups: status.user.groups ?? [], extra: status.user.extra }
        : null;
    this.#cache.set(key, user, this.ttlMs);
    return user ?? undefined;
  }
}

/** Whether `user` may `verb` the non-resource `path`, by a SubjectAccessReview. */
export class AccessReviewer {
  readonly #cache = new TtlCache<boolean>();

  constructor(
    private readonly client: Client,
    private readonly allowedTtlMs: number,
    private readonly deniedTtlMs: number,
  ) {}

  async allowed(user: RequestUser, verb: string, path: string): Promise<boolean> {
    const spec = {
      user: user.name,
      ...(user.uid !== undefined ? { uid: user.uid } : {}),
      groups: [...user.groups],
      ...(user.extra !== undefined ? { extra: user.extra } : {}),
      nonResourceAttributes: { path, verb },
    };
    const key = JSON.stringify(spec);
    const cached = this.#cache.get(key);
    if (cached !== undefined) return cached;
    const answer = (await this.client.transport.request({
      method: 'POST',
      path: SUBJECT_ACCESS_REVIEWS_PATH,
      body: { apiVersion: 'authorization.svc.io/v1', kind: 'SubjectAccessReview', spec },
    })) as { status?: { allowed?: boolean } } | undefined;
    const allowed = answer?.status?.allowed === true;
    this.#cache.set(key, allowed, allowed ? this.allowedTtlMs : this.deniedTtlMs);
    return allowed;
  }
}
