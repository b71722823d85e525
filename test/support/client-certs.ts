import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

/** Test CAs and client certificates, made with @peculiar/x509 the way an operator's tooling would. */

const KEY = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const SIGN = { name: 'ECDSA', hash: 'SHA-256' } as const;
const DAY = 86_400_000;

export interface TestCa {
  readonly pem: string;
  readonly cert: x509.X509Certificate;
  readonly keys: webcrypto.CryptoKeyPair;
}

export interface TestClientCert {
  /** PEM certificate. */
  readonly cert: string;
  /** PEM PKCS#8 private key. */
  readonly key: string;
}

let serial = 1;
const nextSerial = () => (serial++).toString(16).padStart(2, '0');

async function keyPem(key: webcrypto.CryptoKey): Promise<string> {
  return x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', key), 'PRIVATE KEY') + '\n';
}

export async function makeCa(name: string): Promise<TestCa> {
  const keys = (await webcrypto.subtle.generateKey(KEY, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: nextSerial(),
    name: `CN=${name}`,
    notBefore: new Date(Date.now() - DAY),
    notAfter: new Date(Date.now() + 365 * DAY),
    keys,
    signingAlgorithm: SIGN,
    extensions: [new x509.BasicConstraintsExtension(true, 0, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true)],
  });
  return { pem: cert.toString('pem') + '\n', cert, keys };
}

export interface ClientCertOptions {
  readonly cn: string;
  readonly organizations?: readonly string[];
  readonly notBefore?: Date;
  readonly notAfter?: Date;
  /** Extended key usage: client auth by default. */
  readonly usage?: 'client' | 'server';
  /** DNS subject alternative names (a serving certificate's). */
  readonly dnsNames?: readonly string[];
}

export async function makeClientCert(ca: TestCa, options: ClientCertOptions): Promise<TestClientCert> {
  const keys = (await webcrypto.subtle.generateKey(KEY, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const subject = [`CN=${options.cn}`, ...(options.organizations ?? []).map((o) => `O=${o}`)].join(', ');
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: nextSerial(),
    subject,
    issuer: ca.cert.subject,
    notBefore: options.notBefore ?? new Date(Date.now() - DAY),
    notAfter: options.notAfter ?? new Date(Date.now() + 30 * DAY),
    publicKey: keys.publicKey,
    signingKey: ca.keys.privateKey,
    signingAlgorithm: SIGN,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([options.usage === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth]),
      ...(options.dnsNames?.length ? [new x509.SubjectAlternativeNameExtension(options.dnsNames.map((value) => ({ type: 'dns' as const, value })))] : []),
    ],
  });
  return { cert: cert.toString('pem') + '\n', key: await keyPem(keys.privateKey) };
}
