import type { Socket } from 'node:net';
import { StatusError } from '../../api/index.js';
import { BootstrapTokens } from './bootstrap-tokens.js';
import { clientCertificateAuthenticator } from './client-certificates.js';
import { parseCaBundle } from './issued-by.js';
import { requestHeaderAuthenticator, type RequestHeaderOptions } from './request-header.js';
import { ServiceAccountTokens } from './service-account-tokens.js';
import { bearerToken, rejected, staticTokens, type TokenEntry } from './tokens.js';
import { ANONYMOUS_USER, type Authenticator, type RequestHeaders, type UserInfo } from './user.js';

/**
 * The server's authenticator: each method in turn, the first that recognises the request's
 * credentials decides.
 *
 *   front proxy (--requestheader-*) ─► client certificate (--client-ca-file) ─► bearer token: token file, then service-account JWT or bootstrap token
 *                                          ─► anonymous (--anonymous-auth) ─► 401
 *
 * Credentials that are presented but wrong (a refused certificate, an unknown token, a forged or
 * expired JWT, a malformed Authorization header) are a 401 on the spot: they never fall through
 * to a later method, and never to anonymous.
 */

export interface AuthenticationOptions {
  /** Whether connections' client certificates are read (the TLS server verified them against the client CA). */
  readonly clientCertificates?: boolean | undefined;
  /**
   * PEM of `--client-ca-file`, when the TLS server also trusts other CAs (the requestheader CA):
   * a client certificate is then a user's only if it chains to this bundle.
   */
  readonly clientCa?: string | undefined;
  /** Requestheader authentication of a front proxy (docs/aggregation.md). */
  readonly requestHeader?: RequestHeaderOptions | undefined;
  /** The token file's entries and the admin token. */
  readonly tokens?: Iterable<TokenEntry> | undefined;
  /** Service-account tokens; without them a JWT is an unknown token. */
  readonly serviceAccounts?: ServiceAccountTokens | undefined;
  /** Bootstrap tokens (`<id>.<secret>` backed by a Secret in svc-system); without them such a token is unknown. */
  readonly bootstrapTokens?: BootstrapTokens | undefined;
  /** Requests without credentials become `system:anonymous` rather than a 401. */
  readonly anonymous?: boolean | undefined;
  /** The clock, in ms (certificate validity). */
  readonly now?: (() => number) | undefined;
}

export interface Authentication {
  /** For the app's onRequest hook: synchronous unless a service-account check had to read the store. */
  readonly authenticate: Authenticator;
  /**
   * Resolves a bearer token the way a request carrying it would be (TokenReview uses this): the
   * token file, then service-account JWTs. With `audiences`, a service-account token must name
   * one of them instead of one of the API audiences (a token-file entry is not audience-bound).
   * Resolves `undefined` for any token that does not authenticate; never rejects for a bad token.
   */
  authenticateToken(token: string, audiences?: readonly string[]): Promise<UserInfo | undefined>;
}

export function unionAuthenticator(options: AuthenticationOptions): Authentication {
  const certificate = options.clientCertificates
    ? clientCertificateAuthenticator(options.now, options.clientCa !== undefined && options.requestHeader ? parseCaBundle(options.clientCa) : undefined)
    : undefined;
  const proxied = options.requestHeader ? requestHeaderAuthenticator(options.requestHeader) : undefined;
  const lookup = staticTokens(options.tokens ?? []);
  const serviceAccounts = options.serviceAccounts;
  const anonymous = options.anonymous ?? false;

  const byToken = (token: string, audiences?: readonly string[]): UserInfo | Promise<UserInfo> => {
    const found = lookup(token);
    if (found) return found;
    if (serviceAccounts && ServiceAccountTokens.looksLikeJwt(token)) return serviceAccounts.authenticate(token, audiences);
    if (options.bootstrapTokens && BootstrapTokens.looksLikeBootstrapToken(token)) return options.bootstrapTokens.authenticate(token);
    throw rejected();
  };

  const authenticate = (headers: RequestHeaders, connection?: Socket) => {
    const fromProxy = proxied?.(headers, connection);
    if (fromProxy) return fromProxy;
    const fromCertificate = certificate?.(connection);
    if (fromCertificate) return fromCertificate;
    const token = bearerToken(headers);
    if (token !== undefined) return byToken(token);
    return anonymous ? ANONYMOUS_USER : undefined;
  };

  return {
    authenticate,
    async authenticateToken(token, audiences) {
      try {
        return await byToken(token, audiences);
      } catch (error) {
        // A token that does not authenticate is an answer; a store that cannot be read is not.
        if (error instanceof StatusError && error.code === 401) return undefined;
        throw error;
      }
    },
  };
}
