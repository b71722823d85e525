// src/pki's signing: a CA with an RSA or an ECDSA key signs a request (the certificate verifies
// with the CA's key, carries the request's subject and names, the usages asked, and never
// outlives the CA); unusable CA files are refused naming them; a request whose signature does not
// verify with its own key is refused; the signers' rules name what is wrong.
import { X509Certificate, generateKeyPairSync, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import { describe, expect, it } from 'vitest';
import {
  CertificateRequestError,
  createCertificateRequest,
  loadSigningCa,
  NODE_CLIENT_SIGNER,
  NODE_SERVING_SIGNER,
  parseCertificateRequest,
  signCertificateRequest,
  signerProblem,
} from '../../src/pki/index.js';

const HOUR = 3600_000;

async function rsaCa(notAfter: Date, isCa = true): Promise<{ cert: string; key: string }> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const keyPem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  const alg = { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' };
  const priv = await webcrypto.subtle.importKey('pkcs8', privateKey.export({ format: 'der', type: 'pkcs8' }), alg, true, ['sign']);
  const jwk = await webcrypto.subtle.exportKey('jwk', priv);
  const pub = await webcrypto.subtle.importKey('jwk', { kty: jwk.kty!, n: jwk.n!, e: jwk.e! }, alg, true, ['verify']);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=rsa-test-ca',
    notBefore: new Date(Date.now() - HOUR),
    notAfter,
    keys: { privateKey: priv, publicKey: pub },
    signingAlgorithm: alg,
    extensions: isCa ? [new x509.BasicConstraintsExtension(true, 0, true)] : [],
  });
  return { cert: cert.toString('pem'), key: keyPem };
}

describe('signing with a CA', () => {
  it('an RSA CA signs a serving request: subject, names and usages as asked, verified by the CA, capped at the CA expiry', async () => {
    const caEnd = new Date(Date.now() + 2 * HOUR);
    const files = await rsaCa(caEnd);
    const ca = await loadSigningCa(files.cert, files.key, 'rsa test CA');
    const { requestPem } = await createCertificateRequest({ commonName: 'system:node:n1', organizations: ['system:nodes'], dnsNames: ['n1'], ipAddresses: ['10.0.0.7'] });
    const info = await parseCertificateRequest(requestPem);
    const pem = await signCertificateRequest(ca, info, ['digital signature', 'server auth'], 365 * 24 * HOUR);
    const cert = new X509Certificate(pem);
    expect(cert.verify(new X509Certificate(files.cert).publicKey)).toBe(true);
    expect(cert.subject).toContain('CN=system:node:n1');
    expect(cert.subject).toContain('O=system:nodes');
    expect(cert.subjectAltName).toBe('DNS:n1, IP Address:10.0.0.7');
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    expect(cert.ca).toBe(false);
    expect(Date.parse(cert.validTo)).toBeLessThanOrEqual(caEnd.getTime());
  });

  it('refuses a certificate that is no CA, a key that is not the certificate\'s, and files that are not PEM, naming them', async () => {
    const notCa = await rsaCa(new Date(Date.now() + HOUR), false);
    await expect(loadSigningCa(notCa.cert, notCa.key, '--cluster-signing-cert-file x')).rejects.toThrow(/--cluster-signing-cert-file x: the certificate is not a CA/);
    const a = await rsaCa(new Date(Date.now() + HOUR));
    const b = await rsaCa(new Date(Date.now() + HOUR));
    await expect(loadSigningCa(a.cert, b.key, 'pair')).rejects.toThrow(/pair: the private key is not the certificate's/);
    await expect(loadSigningCa('nonsense', a.key, 'files')).rejects.toThrow(/files: not a PEM certificate/);
    await expect(loadSigningCa(a.cert, 'nonsense', 'files')).rejects.toThrow(/files: not a PEM private key/);
  });
});

describe('certificate requests', () => {
  it('refuses a request that is not PEM, does not parse, or whose signature does not verify', async () => {
    await expect(parseCertificateRequest('hello')).rejects.toThrow(CertificateRequestError);
    await expect(parseCertificateRequest('-----BEGIN CERTIFICATE REQUEST-----\nAAAA\n-----END CERTIFICATE REQUEST-----\n')).rejects.toThrow(/does not parse/);
    const { requestPem } = await createCertificateRequest({ commonName: 'alice' });
    const der = Buffer.from(requestPem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
    // The last byte belongs to the signature: flipping it leaves a request that parses but does not verify.
    der[der.length - 1] = der[der.length - 1]! ^ 0xff;
    const tampered = `-----BEGIN CERTIFICATE REQUEST-----\n${der.toString('base64')}\n-----END CERTIFICATE REQUEST-----\n`;
    await expect(parseCertificateRequest(tampered)).rejects.toThrow(CertificateRequestError);
  });

  it("names what a signer's rules refuse", async () => {
    const node = await parseCertificateRequest((await createCertificateRequest({ commonName: 'system:node:n1', organizations: ['system:nodes'] })).requestPem);
    expect(signerProblem(NODE_CLIENT_SIGNER, node, ['client auth'])).toBeUndefined();
    expect(signerProblem(NODE_CLIENT_SIGNER, node, ['client auth', 'server auth'])).toMatch(/not allowed.*server auth/);
    expect(signerProblem(NODE_CLIENT_SIGNER, node, ['digital signature'])).toMatch(/requires the usage "client auth"/);
    expect(signerProblem(NODE_SERVING_SIGNER, node, ['server auth'])).toMatch(/at least one DNS name or IP address/);
    const other = await parseCertificateRequest((await createCertificateRequest({ commonName: 'bob', organizations: ['system:nodes'] })).requestPem);
    expect(signerProblem(NODE_CLIENT_SIGNER, other, ['client auth'])).toMatch(/common name must be "system:node:<node name>"/);
  });
});
