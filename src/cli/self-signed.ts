import * as x509 from '@peculiar/x509';

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

/**
 * A throwaway self-signed certificate for a daemon's health port (what kube-scheduler does when
 * given no serving certificate): made in memory at start, never written anywhere. Probes that
 * check /healthz over HTTPS skip verification, as they do for kube-scheduler.
 */
export async function selfSignedCertificate(commonName: string): Promise<{ cert: string; key: string }> {
  const keys = await crypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']);
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: Buffer.from(crypto.getRandomValues(new Uint8Array(8))).toString('hex'),
    name: `CN=${commonName}`,
    notBefore: new Date(now - 3_600_000),
    notAfter: new Date(now + 365 * 86_400_000),
    keys,
    signingAlgorithm: ALGORITHM,
    extensions: [new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: 'localhost' }, { type: 'ip', value: '127.0.0.1' }])],
  });
  const pkcs8 = await crypto.subtle.exportKey('pkcs8', keys.privateKey);
  const key = `-----BEGIN PRIVATE KEY-----\n${Buffer.from(pkcs8).toString('base64').match(/.{1,64}/g)!.join('\n')}\n-----END PRIVATE KEY-----\n`;
  return { cert: cert.toString('pem'), key };
}
