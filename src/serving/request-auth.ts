import { X509Certificate } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { StatusError } from '../api/index.js';
import type { AccessReviewer, RequestUser, TokenReviewer } from './reviews.js';

/**
 * Who a request to a daemon's secure port is, and whether it may go on: the delegated
 * authentication and authorization of the spec's Authentication table.
 *
 * Authentication, first match wins:
 * 1. a client certificate issued by `--requestheader-client-ca-file` (with a CommonName in
 *    `--requestheader-allowed-names` when that is set): the user named by the identity headers;
 * 2. a client certificate issued by `--client-ca-file`: its CommonName, groups its Organizations;
 * 3. a bearer token, when TokenReviews are configured: the user the API server says (an invalid
 *    token is 401);
 * 4. anyone else: `system:anonymous` in `system:unauthenticated`.
 * Authorization: a path in `--authorization-always-allow-paths` (a trailing `*` is a prefix)
 * passes; anything else needs a SubjectAccessReview that allows it, and is forbidden without one.
 */

export interface RequestAuthOptions {
  /** CAs of `--client-ca-file`. */
  readonly clientCAs?: readonly X509Certificate[];
  readonly requestHeader?: {
    readonly cas: readonly X509Certificate[];
    readonly allowedNames: readonly string[];
    readonly usernameHeaders: readonly string[];
    readonly groupHeaders: readonly string[];
    readonly extraHeaderPrefixes: readonly string[];
    readonly uidHeaders: readonly string[];
  };
  readonly tokens?: TokenReviewer;
  readonly access?: AccessReviewer;
  readonly alwaysAllowPaths: readonly string[];
}

export interface AuthInput {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The verified-or-not client certificate the TLS handshake got, if any. */
  readonly peerCertificate: X509Certificate | undefined;
}

export const ANONYMOUS: RequestUser = { name: 'system:anonymous', groups: ['system:unauthenticated'] };

/** PEM bundle → certificates; throws on a file with none. */
export function parseCertificates(pem: string, what: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (blocks.length === 0) throw new Error(`${what}: no PEM certificate found`);
  return blocks.map((block) => new X509Certificate(block));
}

function issuedBy(cert: X509Certificate, cas: readonly X509Certificate[]): boolean {
  const now = Date.now();
  if (now < Date.parse(cert.validFrom) || now > Date.parse(cert.validTo)) return false;
  return cas.some((ca) => cert.checkIssued(ca) && cert.verify(ca.publicKey));
}

/** `CN=alice\nO=devs\nO=ops` → fields. */
function subjectField(cert: X509Certificate, field: string): string[] {
  return cert.subject
    .split('\n')
    .filter((line) => line.startsWith(`${field}=`))
    .map((line) => line.slice(field.length + 1));
}

/** Extra keys are percent-encoded in header names; a malformed one is kept as it came. */
const safeDecode = (text: string): string => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

const headerValues = (headers: IncomingHttpHeaders, name: string): string[] => {
  const value = headers[name.toLowerCase()];
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
};

export class RequestAuth {
  constructor(private readonly options: RequestAuthOptions) {}

  async authenticate(input: AuthInput): Promise<RequestUser> {
    const { peerCertificate: cert, headers } = input;
    const rh = this.options.requestHeader;
    if (cert !== undefined && rh !== undefined && issuedBy(cert, rh.cas)) {
      const cn = subjectField(cert, 'CN')[0] ?? '';
      if (rh.allowedNames.length === 0 || rh.allowedNames.includes(cn)) {
        const name = rh.usernameHeaders.map((h) => headerValues(headers, h)[0]).find((v) => v !== undefined && v !== '');
        if (name !== undefined) {
          const extra: Record<string, string[]> = {};
          for (const [header, value] of Object.entries(headers)) {
            const prefix = rh.extraHeaderPrefixes.find((p) => header.startsWith(p.toLowerCase()));
            if (prefix !== undefined && value !== undefined) extra[safeDecode(header.slice(prefix.length))] = Array.isArray(value) ? value : [value];
          }
          const uid = rh.uidHeaders.map((h) => headerValues(headers, h)[0]).find((v) => v !== undefined && v !== '');
          return { name, uid, groups: rh.groupHeaders.flatMap((h) => headerValues(headers, h)), ...(Object.keys(extra).length > 0 ? { extra } : {}) };
        }
      }
    }
    if (cert !== undefined && this.options.clientCAs !== undefined && issuedBy(cert, this.options.clientCAs)) {
      const cn = subjectField(cert, 'CN')[0];
      if (cn) return { name: cn, groups: [...subjectField(cert, 'O'), 'system:authenticated'] };
    }
    const authorization = headers['authorization'];
    if (typeof authorization === 'string' && /^bearer /i.test(authorization) && this.options.tokens !== undefined) {
      const token = authorization.slice(7).trim();
      let user: RequestUser | undefined;
      try {
        user = await this.options.tokens.review(token);
      } catch (error) {
        throw new StatusError({ reason: 'Unauthorized', message: `token review failed: ${(error as Error).message}` });
      }
      if (user === undefined) throw new StatusError({ reason: 'Unauthorized', message: 'Unauthorized' });
      return user;
    }
    return ANONYMOUS;
  }

  alwaysAllowed(path: string): boolean {
    return this.options.alwaysAllowPaths.some((p) => (p.endsWith('*') ? path.startsWith(p.slice(0, -1)) : path === p));
  }

  /** Resolves when `user` may make the request; throws a 403 StatusError otherwise. */
  async authorize(user: RequestUser, input: AuthInput): Promise<void> {
    if (this.alwaysAllowed(input.path)) return;
    const verb = input.method.toLowerCase();
    const forbidden = (why: string) =>
      new StatusError({ reason: 'Forbidden', message: `forbidden: User "${user.name}" cannot ${verb} path "${input.path}"${why}` });
    if (this.options.access === undefined) throw forbidden(': no authorization is configured (--authorization-svcconfig)');
    let allowed: boolean;
    try {
      allowed = await this.options.access.allowed(user, verb, input.path);
    } catch (error) {
      throw forbidden(`: the access review failed: ${(error as Error).message}`);
    }
    if (!allowed) throw forbidden('');
  }
}
