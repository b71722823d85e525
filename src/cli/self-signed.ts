import { selfSignedCertificate, type PemPair } from '../encoding/index.js';

/**
 * A throwaway self-signed certificate for a daemon's health port (what kube-scheduler does when
 * given no serving certificate): made in memory at start, never written anywhere, valid for
 * localhost and 127.0.0.1 for a year. Probes that check /healthz over HTTPS skip verification, as
 * they do for kube-scheduler.
 */
export function healthPortCertificate(commonName: string): PemPair {
  const now = Date.now();
  return selfSignedCertificate({
    commonName,
    dnsNames: ['localhost'],
    ipAddresses: ['127.0.0.1'],
    notBefore: new Date(now - 3_600_000),
    notAfter: new Date(now + 365 * 86_400_000),
  });
}
