import * as x509 from '@peculiar/x509';

/**
 * PKCS#10 certificate requests: read as a CertificateSigningRequest carries them (a PEM
 * `CERTIFICATE REQUEST` block), and made by a node agent asking for its client or serving
 * certificate. A request whose signature does not verify with its own public key is refused: the
 * requester does not hold the key.
 */

/** What a certificate request asks for. */
export interface CertificateRequestInfo {
  readonly commonName: string;
  readonly organizations: readonly string[];
  readonly dnsNames: readonly string[];
  readonly ipAddresses: readonly string[];
  readonly emailAddresses: readonly string[];
  readonly uris: readonly string[];
  /** The parsed request, for signing. */
  readonly request: x509.Pkcs10CertificateRequest;
}

/** A request that is not a PEM CERTIFICATE REQUEST block, does not parse or is not signed by its own key. */
export class CertificateRequestError extends Error {
  override readonly name = 'CertificateRequestError';
}

const REQUEST_BLOCK = /-----BEGIN CERTIFICATE REQUEST-----[\s\S]+?-----END CERTIFICATE REQUEST-----/;

/** Parses and checks a PEM certificate request. Throws `CertificateRequestError` saying what is wrong. */
export async function parseCertificateRequest(pem: string): Promise<CertificateRequestInfo> {
  const block = REQUEST_BLOCK.exec(pem)?.[0];
  if (block === undefined) throw new CertificateRequestError('PEM block type must be CERTIFICATE REQUEST');
  let request: x509.Pkcs10CertificateRequest;
  try {
    request = new x509.Pkcs10CertificateRequest(block);
  } catch (error) {
    throw new CertificateRequestError(`the certificate request does not parse: ${(error as Error).message}`);
  }
  let signed: boolean;
  try {
    signed = await request.verify();
  } catch (error) {
    throw new CertificateRequestError(`the certificate request's signature cannot be checked: ${(error as Error).message}`);
  }
  if (!signed) throw new CertificateRequestError("the certificate request's signature does not verify with its public key");
  const names = subjectAltNames(request)?.names.items ?? [];
  const of = (type: string) => names.filter((n) => n.type === type).map((n) => n.value);
  return {
    commonName: request.subjectName.getField('CN')[0] ?? '',
    organizations: request.subjectName.getField('O'),
    dnsNames: of('dns'),
    ipAddresses: of('ip'),
    emailAddresses: of('email'),
    uris: of('url'),
    request,
  };
}

/** The request's subject alternative names extension, if it has one. */
export function subjectAltNames(request: x509.Pkcs10CertificateRequest): x509.SubjectAlternativeNameExtension | undefined {
  return request.extensions.find((e): e is x509.SubjectAlternativeNameExtension => e instanceof x509.SubjectAlternativeNameExtension);
}

/** A fresh ECDSA P-256 key and a request for `subject` signed with it; both PEM. */
export async function createCertificateRequest(subject: {
  readonly commonName: string;
  readonly organizations?: readonly string[];
  readonly dnsNames?: readonly string[];
  readonly ipAddresses?: readonly string[];
}): Promise<{ readonly requestPem: string; readonly keyPem: string }> {
  const algorithm = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
  const keys = await crypto.subtle.generateKey(algorithm, true, ['sign', 'verify']);
  const names = [...(subject.dnsNames ?? []).map((value) => ({ type: 'dns' as const, value })), ...(subject.ipAddresses ?? []).map((value) => ({ type: 'ip' as const, value }))];
  const name = [{ CN: [subject.commonName] }, ...(subject.organizations ?? []).map((o) => ({ O: [o] }))];
  const request = await x509.Pkcs10CertificateRequestGenerator.create({
    name,
    keys,
    signingAlgorithm: algorithm,
    extensions: names.length > 0 ? [new x509.SubjectAlternativeNameExtension(names)] : [],
  });
  const keyPem = x509.PemConverter.encode(await crypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY') + '\n';
  return { requestPem: request.toString('pem') + '\n', keyPem };
}
