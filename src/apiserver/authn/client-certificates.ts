import type { Socket } from 'node:net';
import type { PeerCertificate, TLSSocket } from 'node:tls';
import type { X509Certificate } from 'node:crypto';
import { chainsTo } from './issued-by.js';
import { rejected } from './tokens.js';
import { withAuthenticatedGroup, type UserInfo } from './user.js';

/**
 * x509 client certificates. The TLS server asks every client for a certificate (without
 * requiring one) and OpenSSL checks the chain against `--client-ca-file` during the handshake;
 * here a request's connection becomes a user: CommonName the name, each Organization a group.
 * A connection's certificate never changes, so it is read once per connection; its validity
 * window is checked on every request, since a connection can outlive a certificate.
 */

interface ConnectionIdentity {
  readonly user: UserInfo;
  readonly validFrom: number;
  readonly validTo: number;
}

/** What a connection presented: nothing, a usable certificate, or one that must be refused. */
type Presented = ConnectionIdentity | 'none' | 'refused';

const isTls = (socket: Socket | undefined): socket is TLSSocket => socket !== undefined && 'getPeerCertificate' in socket;

const asList = (value: string | string[] | undefined): string[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

function identify(socket: TLSSocket, cas: readonly X509Certificate[] | undefined): Presented {
  const cert: PeerCertificate | undefined = socket.getPeerCertificate();
  // Node answers an empty object when the client sent no certificate.
  if (!cert || Object.keys(cert).length === 0) return 'none';
  // Wrong CA, expired or not yet valid at the handshake, wrong key usage: OpenSSL said no.
  if (!socket.authorized) return 'refused';
  // Trusted by the handshake for another purpose (a front proxy's certificate without user
  // headers): not a user's, so the request goes on to tokens and anonymous, as in Kubernetes.
  if (cas && !chainsTo(socket, cas)) return 'none';
  const name = asList(cert.subject?.CN)[0];
  const validFrom = Date.parse(cert.valid_from);
  const validTo = Date.parse(cert.valid_to);
  if (!name || Number.isNaN(validFrom) || Number.isNaN(validTo)) return 'refused';
  const user: UserInfo = Object.freeze(withAuthenticatedGroup({ name, uid: '', groups: asList(cert.subject?.O) }));
  return { user, validFrom, validTo };
}

/**
 * The user of a request's client certificate: `undefined` when the connection carries none (or
 * is not TLS); Unauthorized when the certificate is not good now. With `cas` (when the handshake
 * also trusts the front-proxy CA), only a certificate that chains to one of them is a user's.
 */
export function clientCertificateAuthenticator(
  now: () => number = Date.now,
  cas?: readonly X509Certificate[],
): (connection: Socket | undefined) => UserInfo | undefined {
  const seen = new WeakMap<TLSSocket, Presented>();
  return (connection) => {
    if (!isTls(connection)) return undefined;
    let presented = seen.get(connection);
    if (presented === undefined) {
      presented = identify(connection, cas);
      seen.set(connection, presented);
    }
    if (presented === 'none') return undefined;
    if (presented === 'refused') throw rejected();
    const at = now();
    if (at < presented.validFrom || at > presented.validTo) throw rejected();
    return presented.user;
  };
}
