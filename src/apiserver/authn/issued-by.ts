import { X509Certificate } from 'node:crypto';
import type { DetailedPeerCertificate, TLSSocket } from 'node:tls';

/** The certificates of a PEM bundle (a CA file). */
export function parseCaBundle(pem: string): X509Certificate[] {
  return [...pem.matchAll(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)].map((m) => new X509Certificate(m[0]));
}

/**
 * Whether the connection's client certificate chains to one of `cas`. The TLS server trusts the
 * union of every client CA it was given (OpenSSL checked the chain against it); this tells which
 * one signed it, as kube-apiserver keeps a verifier per CA: a front-proxy certificate must come
 * from the requestheader CA, a user's from `--client-ca-file`.
 */
export function chainsTo(socket: TLSSocket, cas: readonly X509Certificate[]): boolean {
  let cert: DetailedPeerCertificate | undefined = socket.getPeerCertificate(true);
  const seen = new Set<DetailedPeerCertificate>();
  while (cert && cert.raw && !seen.has(cert)) {
    seen.add(cert);
    const x = new X509Certificate(cert.raw);
    if (cas.some((ca) => x.checkIssued(ca) && x.verify(ca.publicKey))) return true;
    cert = cert.issuerCertificate;
  }
  return false;
}
