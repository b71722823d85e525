import type { TLSSocket } from 'node:tls';
import type { FastifyRequest } from 'fastify';
import { unauthorized } from '../../api/index.js';
import type { Client } from '../../client/index.js';
import { TokenReviewer, type RequestUser } from '../../serving/index.js';

/** Who made a request to the agent. */
export type AgentUser = RequestUser;

export const ANONYMOUS: AgentUser = Object.freeze({ name: 'system:anonymous', groups: Object.freeze(['system:unauthenticated']) });

export interface AgentAuthenticationOptions {
  readonly anonymous: boolean;
  /** Client certificates are checked (the TLS server asks for them against `--client-ca-file`). */
  readonly clientCertificates: boolean;
  /** TokenReview through this client, when `--authentication-token-webhook`. */
  readonly tokenReviewClient?: Client | undefined;
  readonly tokenCacheTtlMs: number;
  readonly now: () => number;
}

/**
 * The agent's authentication, in the kubelet's order: a verified client certificate (CN is the
 * user, O the groups), else a bearer token through the API server's TokenReview (answers cached
 * for `--authentication-token-webhook-cache-ttl`, denials too), else anonymous when allowed.
 * Credentials that fail — a certificate the CA did not sign, a token the review rejects — are a
 * 401 even with anonymous on: only a request with no credentials becomes anonymous.
 * Authenticated users get the `system:authenticated` group.
 */
export class AgentAuthenticator {
  readonly #tokens: TokenReviewer | undefined;

  constructor(private readonly options: AgentAuthenticationOptions) {
    this.#tokens = options.tokenReviewClient && new TokenReviewer(options.tokenReviewClient, options.tokenCacheTtlMs, options.now);
  }

  async authenticate(request: FastifyRequest): Promise<AgentUser> {
    const fromCert = this.#certificateUser(request.raw.socket as TLSSocket);
    if (fromCert) return withAuthenticated(fromCert);
    const auth = request.headers.authorization;
    const token = auth !== undefined && /^bearer /i.test(auth) ? auth.slice(7).trim() : undefined;
    if (token !== undefined && token !== '' && this.#tokens) {
      const user = await this.#reviewToken(this.#tokens, token);
      if (!user) throw unauthorized('Unauthorized: the bearer token was not accepted by the TokenReview');
      return withAuthenticated(user);
    }
    if (this.options.anonymous) return ANONYMOUS;
    throw unauthorized('Unauthorized');
  }

  #certificateUser(socket: TLSSocket): AgentUser | undefined {
    if (!this.options.clientCertificates || typeof socket.getPeerCertificate !== 'function') return undefined;
    const cert = socket.getPeerCertificate();
    if (!cert || Object.keys(cert).length === 0) return undefined;
    if (!socket.authorized) throw unauthorized(`Unauthorized: the client certificate is not valid (${String(socket.authorizationError)})`);
    const cn = one(cert.subject?.CN);
    if (!cn) throw unauthorized('Unauthorized: the client certificate has no CommonName');
    return { name: cn, groups: many(cert.subject?.O) };
  }

  async #reviewToken(tokens: TokenReviewer, token: string): Promise<AgentUser | undefined> {
    try {
      return await tokens.review(token);
    } catch (error) {
      throw unauthorized(`Unauthorized: the TokenReview failed: ${(error as Error).message}`);
    }
  }
}

function withAuthenticated(user: AgentUser): AgentUser {
  return user.groups.includes('system:authenticated') ? user : { ...user, groups: [...user.groups, 'system:authenticated'] };
}

const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value);
const many = (value: string | string[] | undefined) => (value === undefined ? [] : Array.isArray(value) ? value : [value]);
