// The hand-written self-signed certificate, read back by three independent readers: Node's
// X509Certificate (OpenSSL), @peculiar/x509 (the API server's PKI library), and a TLS handshake
// that verifies it.
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { connect, createServer } from 'node:tls';
import * as x509 from '@peculiar/x509';
import { describe, expect, it } from 'vitest';
import { isStatusError } from '../../src/api/index.js';
import { selfSignedCertificate } from '../../src/encoding/index.js';

const notBefore = new Date('2026-01-02T03:04:05.678Z');
const notAfter = new Date('2027-01-02T03:04:05Z');

describe('selfSignedCertificate', () => {
  const pair = selfSignedCertificate({
    commonName: 'node-1@1700000000',
    dnsNames: ['node-1', 'localhost'],
    ipAddresses: ['127.0.0.1', '10.1.2.3', 'fd00::1', '::ffff:10.0.0.1'],
    notBefore,
    notAfter,
  });
  const cert = new X509Certificate(pair.cert);

  it('is a v3 certificate signed by its own key, the key given with it', () => {
    expect(cert.subject).toBe('CN=node-1@1700000000');
    expect(cert.issuer).toBe(cert.subject);
    expect(cert.verify(cert.publicKey)).toBe(true);
    expect(cert.checkPrivateKey(createPrivateKey(pair.key))).toBe(true);
    expect(cert.publicKey.asymmetricKeyDetails).toEqual({ namedCurve: 'prime256v1' });
    expect(cert.ca).toBe(false);
    expect(pair.key.startsWith('-----BEGIN PRIVATE KEY-----\n')).toBe(true);
  });

  it('is valid from and to the given times, to the second', () => {
    expect(new Date(cert.validFrom).toISOString()).toBe('2026-01-02T03:04:05.000Z');
    expect(new Date(cert.validTo).toISOString()).toBe('2027-01-02T03:04:05.000Z');
  });

  it('names every DNS name and IP address (v4, v6, v4-mapped v6) in subjectAltName', () => {
    expect(cert.subjectAltName).toBe('DNS:node-1, DNS:localhost, IP Address:127.0.0.1, IP Address:10.1.2.3, IP Address:FD00:0:0:0:0:0:0:1, IP Address:0:0:0:0:0:FFFF:A00:1');
  });

  it('is for serving: serverAuth, and a critical key usage of digitalSignature and keyEncipherment', () => {
    expect(cert.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    const parsed = new x509.X509Certificate(pair.cert);
    const usage = parsed.getExtension(x509.KeyUsagesExtension);
    expect(usage?.critical).toBe(true);
    expect(usage?.usages).toBe(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment);
    expect(parsed.signatureAlgorithm).toMatchObject({ name: 'ECDSA', hash: { name: 'SHA-256' } });
  });

  it('has a positive serial number, new for every certificate', () => {
    const other = new X509Certificate(selfSignedCertificate({ commonName: 'x', notBefore, notAfter }).cert);
    expect(cert.serialNumber).toMatch(/^[4-7][0-9A-F]{15}$/);
    expect(other.serialNumber).not.toBe(cert.serialNumber);
  });

  it('writes a notAfter past 2049 as GeneralizedTime', () => {
    const late = new X509Certificate(selfSignedCertificate({ commonName: 'x', notBefore, notAfter: new Date('2060-05-06T07:08:09Z') }).cert);
    expect(new Date(late.validTo).toISOString()).toBe('2060-05-06T07:08:09.000Z');
  });

  it.each([
    ['an address that is not one', { ipAddresses: ['10.0.0.256'] }, '10.0.0.256'],
    ['a DNS name outside RFC 1123 (non-ASCII)', { dnsNames: ['n\u00f6de-1'] }, 'DNS name'],
    ['a DNS name outside RFC 1123 (a space)', { dnsNames: ['node 1'] }, 'DNS name'],
  ])('refuses %s with a 400 naming it', (_what, names, named) => {
    let caught: unknown;
    try {
      selfSignedCertificate({ commonName: 'x', ...names, notBefore, notAfter });
    } catch (error) {
      caught = error;
    }
    expect(isStatusError(caught) && caught.code).toBe(400);
    expect((caught as Error).message).toContain(named);
  });

  it('serves TLS that a client trusting it verifies, by name and by address', async () => {
    const now = Date.now();
    const live = selfSignedCertificate({ commonName: 'svc-test', dnsNames: ['localhost'], ipAddresses: ['127.0.0.1'], notBefore: new Date(now - 60_000), notAfter: new Date(now + 3_600_000) });
    const server = createServer({ cert: live.cert, key: live.key }, (socket) => socket.end('hello'));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const read = (servername: string | undefined) =>
      new Promise<string>((resolve, reject) => {
        const socket = connect({ host: '127.0.0.1', port, ca: live.cert, ...(servername ? { servername } : {}) }, () => undefined);
        let text = '';
        socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
    try {
      expect(await read('localhost')).toBe('hello');
      expect(await read(undefined)).toBe('hello');
      await expect(read('elsewhere.example')).rejects.toThrow(/altnames|Hostname/);
    } finally {
      server.close();
    }
  });
});
