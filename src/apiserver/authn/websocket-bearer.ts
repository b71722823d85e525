import type { Authenticator, RequestHeaders } from './user.js';

/**
 * A browser cannot set `Authorization` on a WebSocket, but it can offer subprotocols: as
 * kube-apiserver does, a bearer token may come as the protocol
 * `base64url.bearer.authorization.k8s.io.<token in unpadded base64url>` (or svc's name for it)
 * offered beside the protocol the client speaks. It is never chosen as the connection's protocol.
 */
const PREFIXES = ['base64url.bearer.authorization.svc.io.', 'base64url.bearer.authorization.k8s.io.'] as const;

export function isBearerProtocol(protocol: string): boolean {
  return PREFIXES.some((prefix) => protocol.startsWith(prefix));
}

/** The token a WebSocket upgrade carries in its offered protocols, if any. */
export function bearerFromProtocols(headers: RequestHeaders): string | undefined {
  const header = headers['sec-websocket-protocol'];
  if (typeof header !== 'string' || headers['upgrade'] === undefined) return undefined;
  for (const offered of header.split(',')) {
    const protocol = offered.trim();
    const prefix = PREFIXES.find((p) => protocol.startsWith(p));
    if (prefix === undefined) continue;
    const encoded = protocol.slice(prefix.length);
    if (!/^[A-Za-z0-9_-]+$/.test(encoded)) return undefined;
    return Buffer.from(encoded, 'base64url').toString('utf8');
  }
  return undefined;
}

/** `authenticate`, also reading a bearer token from a WebSocket upgrade's protocols when no `Authorization` came. */
export function withWebSocketBearer(authenticate: Authenticator): Authenticator {
  return (headers, connection) => {
    if (headers['authorization'] !== undefined) return authenticate(headers, connection);
    const token = bearerFromProtocols(headers);
    return authenticate(token === undefined ? headers : { ...headers, authorization: `Bearer ${token}` }, connection);
  };
}
