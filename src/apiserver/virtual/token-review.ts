import { badRequest, isStatusError, type ResourceType, type TokenReview } from '../../api/index.js';
import type { Authenticator, UserInfo } from '../authn/user.js';
import type { ApiObject } from '../api-object.js';
import type { VirtualResource } from './virtual-resource.js';

/**
 * The audiences a token the server accepts is good for, when it carries none of its own (static
 * tokens): Kubernetes' default `--api-audiences`, the service-account issuer.
 */
export const DEFAULT_API_AUDIENCES: readonly string[] = ['https://kubernetes.default.svc.cluster.local'];

export interface TokenReviewOptions {
  /** The server's own authenticator: a token reviewed is judged as a request bearing it would be. */
  readonly authenticate: Authenticator;
  readonly apiAudiences?: readonly string[];
}

/**
 * TokenReview: who does this bearer token belong to? The token is run through the server's own
 * authenticator. Tokens that name no audience are good for the server's audiences: a review that
 * asks for others gets `authenticated: false`.
 */
export function tokenReview(type: ResourceType, options: TokenReviewOptions): VirtualResource<TokenReview> {
  const apiAudiences = options.apiAudiences ?? DEFAULT_API_AUDIENCES;
  return {
    type,
    async answer({ body }) {
      const token = body.spec.token ?? '';
      if (token === '') throw badRequest('token is required for TokenReview in authentication.k8s.io');
      let user: UserInfo | undefined;
      let error: string | undefined;
      try {
        user = await options.authenticate({ authorization: `Bearer ${token}` });
      } catch (e) {
        if (!isStatusError(e)) throw e;
        error = 'invalid bearer token';
      }
      const wanted = body.spec.audiences ?? [];
      const audiences = wanted.length === 0 ? [...apiAudiences] : wanted.filter((a) => apiAudiences.includes(a));
      if (user && audiences.length === 0) {
        user = undefined;
        error = `token audiences ${JSON.stringify(apiAudiences)} is invalid for the target audiences ${JSON.stringify(wanted)}`;
      }
      const status = user
        ? { authenticated: true, user: { username: user.name, uid: user.uid, groups: [...user.groups] }, audiences }
        : { authenticated: false, ...(error ? { error } : {}) };
      return { ...(body as ApiObject), status };
    },
  };
}
