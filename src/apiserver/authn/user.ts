/** Who a request is from, as the authenticators establish it. */
export interface UserInfo {
  readonly name: string;
  readonly uid: string;
  readonly groups: readonly string[];
}

/** Request headers as an authenticator sees them. */
export type RequestHeaders = Readonly<Record<string, string | string[] | undefined>>;

/**
 * Resolves the caller of a request. `undefined` means "no credentials this authenticator knows";
 * a `StatusError` (Unauthorized) means credentials were presented and are wrong.
 */
export type Authenticator = (headers: RequestHeaders) => UserInfo | undefined | Promise<UserInfo | undefined>;
