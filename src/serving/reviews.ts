import { createHash } from 'node:crypto';
import type { Client } from '../client/index.js';
import { TtlCache } from './ttl-cache.js';

/**
 * The client side of delegated authentication and authorization, for every daemon that serves
 * (the controller manager's and scheduler's secure ports, the node agent's server): asking the API
 * server, through `authentication.svc.io/v1` TokenReview and `authorization.svc.io/v1`
 * SubjectAccessReview, who a bearer token is and whether a user may make a request. Answers are
 * cached for the TTLs of the `--authentication-token-webhook-cache-ttl` and
 * `--authorization-webhook-cache-*-ttl` options; a failed review is not cached (the next request
 * asks again once the API server is back) and rejects with the client's error for the caller to
 * turn into its Status.
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
  readonly #cache: TtlCache<RequestUser | null>;

  constructor(
    private readonly client: Client,
    private readonly ttlMs: number,
    now: () => number = Date.now,
  ) {
    this.#cache = new TtlCache(undefined, now);
  }

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

/** What a SubjectAccessReview asks about: a resource (the node agent's `nodes/<subresource>`) or a non-resource path. */
export type AccessAttributes =
  | { readonly resourceAttributes: Readonly<Record<string, string>> }
  | { readonly nonResourceAttributes: { readonly path: string; readonly verb: string } };

/** The API server's answer: allowed (and not explicitly denied), with its reason. */
export interface AccessAnswer {
  readonly allowed: boolean;
  readonly reason: string;
}

/** Whether a user may make a request, by a SubjectAccessReview; allowed and denied answers are cached for their own TTLs. */
export class AccessReviewer {
  readonly #cache: TtlCache<AccessAnswer>;

  constructor(
    private readonly client: Client,
    private readonly allowedTtlMs: number,
    private readonly deniedTtlMs: number,
    now: () => number = Date.now,
  ) {
    this.#cache = new TtlCache(undefined, now);
  }

  /** Whether `user` may `verb` the non-resource `path`. */
  async allowed(user: RequestUser, verb: string, path: string): Promise<boolean> {
    return (await this.review(user, { nonResourceAttributes: { path, verb } })).allowed;
  }

  async review(user: RequestUser, attributes: AccessAttributes): Promise<AccessAnswer> {
    const spec = {
      user: user.name,
      ...(user.uid !== undefined ? { uid: user.uid } : {}),
      groups: [...user.groups],
      ...(user.extra !== undefined ? { extra: user.extra } : {}),
      ...attributes,
    };
    const key = JSON.stringify(spec);
    const cached = this.#cache.get(key);
    if (cached !== undefined) return cached;
    const response = (await this.client.transport.request({
      method: 'POST',
      path: SUBJECT_ACCESS_REVIEWS_PATH,
      body: { apiVersion: 'authorization.svc.io/v1', kind: 'SubjectAccessReview', spec },
    })) as { status?: { allowed?: boolean; denied?: boolean; reason?: string } } | undefined;
    const status = response?.status;
    const answer = { allowed: status?.allowed === true && status.denied !== true, reason: status?.reason ?? '' };
    this.#cache.set(key, answer, answer.allowed ? this.allowedTtlMs : this.deniedTtlMs);
    return answer;
  }
}
