import { X509Certificate as NodeCertificate, createPrivateKey, randomBytes, type KeyObject, type webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { subjectAltNames, type CertificateRequestInfo } from './certificate-requests.js';

type SignAlgorithm = webcrypto.Algorithm | webcrypto.EcdsaParams;

/**
 * A CA that signs certificate requests: the `--cluster-signing-*` pair of one signer. RSA and
 * ECDSA keys both work (as Kubernetes' signer); certificates never outlive the CA.
 */

export interface SigningCa {
  readonly certPem: string;
  readonly notAfter: number;
  readonly cert: x509.X509Certificate;
  readonly key: webcrypto.CryptoKey;
  readonly algorithm: SignAlgorithm;
}

const CURVES: Readonly<Record<string, string>> = { prime256v1: 'P-256', secp384r1: 'P-384', secp521r1: 'P-521' };

function importParams(key: KeyObject): { readonly importAs: webcrypto.RsaHashedImportParams | webcrypto.EcKeyImportParams; readonly sign: SignAlgorithm } {
  if (key.asymmetricKeyType === 'rsa') return { importAs: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, sign: { name: 'RSASSA-PKCS1-v1_5' } };
  if (key.asymmetricKeyType === 'ec') {
    const curve = CURVES[key.asymmetricKeyDetails?.namedCurve ?? ''];
    if (!curve) throw new Error(`unsupported EC curve ${key.asymmetricKeyDetails?.namedCurve ?? '(unknown)'}`);
    return { importAs: { name: 'ECDSA', namedCurve: curve }, sign: { name: 'ECDSA', hash: curve === 'P-256' ? 'SHA-256' : curve === 'P-384' ? 'SHA-384' : 'SHA-512' } as webcrypto.EcdsaParams };
  }
  throw new Error(`the key is ${key.asymmetricKeyType ?? 'of no known type'}; an RSA or ECDSA key is needed`);
}

/** Loads a CA from PEM; `what` names the files in errors (`--cluster-signing-cert-file x`). Throws `Error`. */
export async function loadSigningCa(certPem: string, keyPem: string, what: string): Promise<SigningCa> {
  let node: NodeCertificate;
  let keyObject: KeyObject;
  try {
    node = new NodeCertificate(certPem);
  } catch (error) {
    throw new Error(`${what}: not a PEM certificate (${(error as Error).message})`);
  }
  try {
    keyObject = createPrivateKey(keyPem);
  } catch (error) {
    throw new Error(`${what}: not a PEM private key (${(error as Error).message})`);
  }
  if (!node.checkPrivateKey(keyObject)) throw new Error(`${what}: the private key is not the certificate's`);
  if (!node.ca) throw new Error(`${what}: the certificate is not a CA (basic constraints)`);
  const { importAs, sign } = importParams(keyObject);
  const pkcs8 = keyObject.export({ format: 'der', type: 'pkcs8' });
  const key = await crypto.subtle.importKey('pkcs8', pkcs8, importAs, false, ['sign']);
  return { certPem: node.toString(), notAfter: Date.parse(node.validTo), cert: new x509.X509Certificate(node.raw), key, algorithm: sign };
}

const KEY_USAGE_FLAGS: Readonly<Record<string, number>> = {
  signing: x509.KeyUsageFlags.digitalSignature,
  'digital signature': x509.KeyUsageFlags.digitalSignature,
  'content commitment': x509.KeyUsageFlags.nonRepudiation,
  'key encipherment': x509.KeyUsageFlags.keyEncipherment,
  'key agreement': x509.KeyUsageFlags.keyAgreement,
  'data encipherment': x509.KeyUsageFlags.dataEncipherment,
  'cert sign': x509.KeyUsageFlags.keyCertSign,
  'crl sign': x509.KeyUsageFlags.cRLSign,
  'encipher only': x509.KeyUsageFlags.encipherOnly,
  'decipher only': x509.KeyUsageFlags.decipherOnly,
};

const EXTENDED_USAGES: Readonly<Record<string, string>> = {
  any: '2.5.29.37.0',
  'server auth': x509.ExtendedKeyUsage.serverAuth,
  'client auth': x509.ExtendedKeyUsage.clientAuth,
  'code signing': x509.ExtendedKeyUsage.codeSigning,
  'email protection': x509.ExtendedKeyUsage.emailProtection,
  's/mime': x509.ExtendedKeyUsage.emailProtection,
  'ipsec end system': '1.3.6.1.5.5.7.3.5',
  'ipsec tunnel': '1.3.6.1.5.5.7.3.6',
  'ipsec user': '1.3.6.1.5.5.7.3.7',
  timestamping: x509.ExtendedKeyUsage.timeStamping,
  'ocsp signing': x509.ExtendedKeyUsage.ocspSigning,
  'microsoft sgc': '1.3.6.1.4.1.311.10.3.3',
  'netscape sgc': '2.16.840.1.113730.4.1',
};

// Kubernetes' signer backdates by five minutes: a client whose clock is a little behind accepts it.
// A short-lived certificate is backdated a tenth of its life at most, so that most of its
// validity (what a rotating client measures its renewal from) lies ahead.
const BACKDATE_MS = 5 * 60_000;

/**
 * Signs `request` for `usages`, valid from now (backdated) for `lifetimeMs` or until the CA
 * expires, whichever is first; the subject and alternative names are the request's. PEM.
 */
export async function signCertificateRequest(ca: SigningCa, request: CertificateRequestInfo, usages: readonly string[], lifetimeMs: number, now = Date.now()): Promise<string> {
  let flags = 0;
  for (const usage of usages) flags |= KEY_USAGE_FLAGS[usage] ?? 0;
  const extended = [...new Set(usages.map((u) => EXTENDED_USAGES[u]).filter((oid): oid is string => oid !== undefined))];
  const names = subjectAltNames(request.request);
  const serial = randomBytes(16);
  serial[0] = (serial[0]! & 0x7f) | 0x01;
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial.toString('hex'),
    subject: request.request.subjectName,
    issuer: ca.cert.subjectName,
    notBefore: new Date(now - Math.min(BACKDATE_MS, lifetimeMs / 10)),
    notAfter: new Date(Math.min(now + lifetimeMs, ca.notAfter)),
    publicKey: request.request.publicKey,
    signingKey: ca.key,
    signingAlgorithm: ca.algorithm,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      ...(flags !== 0 ? [new x509.KeyUsagesExtension(flags, true)] : []),
      ...(extended.length > 0 ? [new x509.ExtendedKeyUsageExtension(extended)] : []),
      ...(names ? [new x509.SubjectAlternativeNameExtension(names.names.toJSON())] : []),
      await x509.AuthorityKeyIdentifierExtension.create(ca.cert.publicKey),
    ],
  });
  return cert.toString('pem') + '\n';
}

/** notBefore and notAfter (ms) of the first certificate of a PEM bundle. Throws on no certificate. */
export function certificateValidity(pem: string): { readonly notBefore: number; readonly notAfter: number } {
  const cert = new NodeCertificate(pem);
  return { notBefore: Date.parse(cert.validFrom), notAfter: Date.parse(cert.validTo) };
}
