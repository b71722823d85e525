import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { unauthorized } from '../../api/index.js';
import { chainsTo, parseCaBundle } from './issued-by.js';
import { withAuthenticatedGroup, type RequestHeaders, type UserInfo } from './user.js';

/**
 * Requestheader authentication: a front proxy (svc-apiserver in front of an aggregated server,
 * or any authenticating proxy) that proves itself with a client certificate signed by
 * `--requestheader-client-ca-file` tells who the user is in headers (`X-Remote-User`,
 * `X-Remote-Group`, `X-Remote-Extra-<key>`). Headers from any other connection mean nothing.
 */

export interface RequestHeaderOptions {
  /** PEM CA bundle the proxy's client certificate must chain to. */
  readonly clientCa: string;
  /** Common names the proxy's certificate may have; empty: any the CA signed. */
  readonly allowedNames?: readonly string[] | undefined;
  /** Headers naming the user, first non-empty wins (default `X-Remote-User`). */
  readonly usernameHeaders?: readonly string[] | undefined;
  /** Headers naming groups, every value of each (default `X-Remote-Group`). */
  readonly groupHeaders?: readonly string[] | undefined;
  /** Prefixes of the headers carrying `extra` (default `X-Remote-Extra-`); the rest of the name, unescaped and lowercased, is the key. */
  readonly extraHeaderPrefixes?: readonly string[] | undefined;
}

export const DEFAULT_USERNAME_HEADERS = ['X-Remote-User'] as const;
export const DEFAULT_GROUP_HEADERS = ['X-Remote-Group'] as const;
export const DEFAULT_EXTRA_HEADER_PREFIXES = ['X-Remote-Extra-'] as const;

type Proxy = 'proxy' | 'not-proxy' | 'refused';

const isTls = (socket: Socket | undefined): socket is TLSSocket => socket !== undefined && 'getPeerCertificate' in socket;

/**
 * Node joins the values of a repeated header with ", " (Go keeps them apart): each part is one
 * value. A group or extra value containing ", " cannot be told apart from two, a limit svc accepts.
 */
const valuesOf = (value: string | string[] | undefined): string[] =>
  value === undefined ? [] : (Array.isArray(value) ? value : [value]).flatMap((v) => v.split(/,\s*/)).filter((v) => v !== '');

/** Decodes `%XX` escapes of an extra key, leaving a malformed one as sent. */
function unescapeKey(key: string): string {
  try {
    return decodeURIComponent(key).toLowerCase();
  } catch {
    return key.toLowerCase();
  }
}

/**
 * The user the proxy names, `undefined` when the connection is not a verified proxy or names no
 * user (the next authenticator decides); 401 for a certificate from the CA whose name is not allowed.
 */
export function requestHeaderAuthenticator(options: RequestHeaderOptions): (headers: RequestHeaders, connection: Socket | undefined) => UserInfo | undefined {
  const cas = parseCaBundle(options.clientCa);
  const allowed = new Set(options.allowedNames ?? []);
  const usernameHeaders = (options.usernameHeaders ?? DEFAULT_USERNAME_HEADERS).map((h) => h.toLowerCase());
  const groupHeaders = (options.groupHeaders ?? DEFAULT_GROUP_HEADERS).map((h) => h.toLowerCase());
  const extraPrefixes = (options.extraHeaderPrefixes ?? DEFAULT_EXTRA_HEADER_PREFIXES).map((h) => h.toLowerCase());
  const seen = new WeakMap<TLSSocket, Proxy>();

  const classify = (socket: TLSSocket): Proxy => {
    const cert = socket.getPeerCertificate();
    if (!cert || Object.keys(cert).length === 0 || !socket.authorized || !chainsTo(socket, cas)) return 'not-proxy';
    const cn = cert.subject?.CN;
    const name = Array.isArray(cn) ? cn[0] : cn;
    return allowed.size === 0 || (name !== undefined && allowed.has(name)) ? 'proxy' : 'refused';
  };

  return (headers, connection) => {
    if (!isTls(connection)) return undefined;
    let proxy = seen.get(connection);
    if (proxy === undefined) {
      proxy = classify(connection);
      seen.set(connection, proxy);
    }
    if (proxy === 'not-proxy') return undefined;
    let name: string | undefined;
    for (const header of usernameHeaders) {
      name = valuesOf(headers[header])[0];
      if (name !== undefined) break;
    }
    if (name === undefined) return undefined;
    if (proxy === 'refused') throw unauthorized('Unauthorized: the front proxy\'s client certificate has a common name --requestheader-allowed-names does not list');
    const groups = groupHeaders.flatMap((header) => valuesOf(headers[header]));
    const extra: Record<string, string[]> = {};
    for (const [header, value] of Object.entries(headers)) {
      const prefix = extraPrefixes.find((p) => header.startsWith(p));
      if (prefix === undefined || header.length === prefix.length) continue;
      const key = unescapeKey(header.slice(prefix.length));
      (extra[key] ??= []).push(...valuesOf(value));
    }
    return withAuthenticatedGroup({ name, uid: '', groups, ...(Object.keys(extra).length > 0 ? { extra } : {}) });
  };
}
