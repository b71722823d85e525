import type { Socket } from 'node:net';

/** Who a request is from, as the authenticators establish it. */
export interface UserInfo {
  readonly name: string;
  readonly uid: string;
  readonly groups: readonly string[];
  /**
   * Further facts about the caller that authorization may use (Kubernetes' `extra`), such as
   * `authentication.kubernetes.io/pod-name` for a token bound to a pod. Absent when there are none.
   */
  readonly extra?: Readonly<Record<string, readonly string[]>>;
}

/** Request headers as an authenticator sees them. */
export type RequestHeaders = Readonly<Record<string, string | string[] | undefined>>;

/**
 * Resolves the caller of a request. `undefined` means "no credentials this authenticator knows";
 * a `StatusError` (Unauthorized) means credentials were presented and are wrong. `connection` is
 * the request's socket (a TLS socket over HTTPS: client certificates live there); tests that
 * `inject` have none worth reading.
 */
export type Authenticator = (
  headers: RequestHeaders,
  connection?: Socket,
) => UserInfo | undefined | Promise<UserInfo | undefined>;

export const AUTHENTICATED_GROUP = 'system:authenticated';
export const UNAUTHENTICATED_GROUP = 'system:unauthenticated';
export const ANONYMOUS_USER: UserInfo = Object.freeze({
  name: 'system:anonymous',
  uid: '',
  groups: Object.freeze([UNAUTHENTICATED_GROUP]),
});

/** `user` with `system:authenticated` among its groups (added once, never twice). */
export function withAuthenticatedGroup<U extends UserInfo>(user: U): U {
  return user.groups.includes(AUTHENTICATED_GROUP) ? user : { ...user, groups: [...user.groups, AUTHENTICATED_GROUP] };
}
