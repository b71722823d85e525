import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureFrontProxyPki, ensurePki, loadServingCertificate, servingNames } from '../../src/pki/index.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-pki-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const read = (dir: string, file: string) => readFileSync(join(dir, file), 'utf8');
const mode = (dir: string, file: string) => statSync(join(dir, file)).mode & 0o777;

describe('servingNames', () => {
  it('names localhost, the loopbacks and this host', () => {
    const names = servingNames('0.0.0.0');
    expect(names.dns).toContain('localhost');
    expect(names.dns).toContain(hostname());
    expect(names.ips).toEqual(['127.0.0.1', '::1']);
  });

  it('adds a specific bind address, not an unspecified one', () => {
    expect(servingNames('10.1.2.3').ips).toEqual(['127.0.0.1', '::1', '10.1.2.3']);
    expect(servingNames('::').ips).toEqual(['127.0.0.1', '::1']);
    expect(servingNames('127.0.0.1').ips).toEqual(['127.0.0.1', '::1']);
  });
});

describe('ensurePki', () => {
  it('creates a CA and a serving certificate signed by it, keys readable by the owner only', async () => {
    const dir = join(tempDir(), 'pki');
    const serving = await ensurePki(dir, servingNames('10.1.2.3'));
    expect(mode(dir, 'ca.key')).toBe(0o600);
    expect(mode(dir, 'serving.key')).toBe(0o600);
    expect(mode(dir, 'ca.crt')).toBe(0o644);
    expect(mode(dir, 'serving.crt')).toBe(0o644);
    expect(serving.caPem).toBe(read(dir, 'ca.crt'));
    expect(serving.cert).toBe(read(dir, 'serving.crt'));
    expect(serving.key).toBe(read(dir, 'serving.key'));

    const ca = new X509Certificate(serving.caPem!);
    const cert = new X509Certificate(serving.cert);
    expect(ca.ca).toBe(true);
    expect(cert.ca).toBe(false);
    expect(cert.verify(ca.publicKey)).toBe(true);
    expect(cert.checkIssued(ca)).toBe(true);
    for (const host of ['localhost', hostname()]) expect(cert.checkHost(host)).toBe(host);
    for (const ip of ['127.0.0.1', '::1', '10.1.2.3']) expect(cert.checkIP(ip)).toBe(ip);
    expect(cert.keyUsage).toContain('1.3.6.1.5.5.7.3.1'); // serverAuth
  });

  it('reuses every file on a later start', async () => {
    const dir = join(tempDir(), 'pki');
    const first = await ensurePki(dir, servingNames('0.0.0.0'));
    const second = await ensurePki(dir, servingNames('0.0.0.0'));
    expect(second).toEqual(first);
  });

  it('reissues only the serving certificate, from the same CA, when a new address must be named', async () => {
    const dir = join(tempDir(), 'pki');
    const first = await ensurePki(dir, servingNames('0.0.0.0'));
    const second = await ensurePki(dir, servingNames('10.9.8.7'));
    expect(second.caPem).toBe(first.caPem);
    expect(second.cert).not.toBe(first.cert);
    expect(new X509Certificate(second.cert).checkIP('10.9.8.7')).toBe('10.9.8.7');
    expect(new X509Certificate(second.cert).verify(new X509Certificate(first.caPem!).publicKey)).toBe(true);
  });

  it('replaces a damaged serving certificate', async () => {
    const dir = join(tempDir(), 'pki');
    const first = await ensurePki(dir, servingNames('0.0.0.0'));
    writeFileSync(join(dir, 'serving.crt'), 'garbage');
    const second = await ensurePki(dir, servingNames('0.0.0.0'));
    expect(second.caPem).toBe(first.caPem);
    expect(read(dir, 'serving.crt')).toBe(second.cert);
  });

  it('refuses to replace a CA whose key is missing', async () => {
    const dir = join(tempDir(), 'pki');
    await ensurePki(dir, servingNames('0.0.0.0'));
    unlinkSync(join(dir, 'ca.key'));
    await expect(ensurePki(dir, servingNames('0.0.0.0'))).rejects.toThrow(/ca\.key is missing/);
  });

  it('names the CA files when they are unusable', async () => {
    const dir = join(tempDir(), 'pki');
    await ensurePki(dir, servingNames('0.0.0.0'));
    writeFileSync(join(dir, 'ca.key'), 'garbage');
    await expect(ensurePki(dir, servingNames('0.0.0.0'))).rejects.toThrow(/cannot use the CA in .*ca\.crt/);
  });
});

describe('loadServingCertificate', () => {
  it('loads a certificate and key, taking the self-signed root of the chain as the CA', async () => {
    const pki = join(tempDir(), 'pki');
    const made = await ensurePki(pki, servingNames('0.0.0.0'));
    const chain = join(pki, 'chain.crt');
    writeFileSync(chain, made.cert + made.caPem);
    const loaded = await loadServingCertificate(chain, join(pki, 'serving.key'));
    expect(loaded).toEqual({ cert: made.cert + made.caPem, key: made.key, caPem: made.caPem });
  });

  it('leaves the CA to the system when the file has no root', async () => {
    const pki = join(tempDir(), 'pki');
    await ensurePki(pki, servingNames('0.0.0.0'));
    expect((await loadServingCertificate(join(pki, 'serving.crt'), join(pki, 'serving.key'))).caPem).toBeUndefined();
  });

  it('names the file that is missing, unreadable or mismatched', async () => {
    const a = join(tempDir(), 'pki');
    const b = join(tempDir(), 'pki');
    await ensurePki(a, servingNames('0.0.0.0'));
    await ensurePki(b, servingNames('0.0.0.0'));
    await expect(loadServingCertificate(join(a, 'nope.crt'), join(a, 'serving.key'))).rejects.toThrow(/^--tls-cert-file .*nope\.crt: cannot read \(ENOENT\)/);
    await expect(loadServingCertificate(join(a, 'serving.crt'), join(a, 'nope.key'))).rejects.toThrow(/^--tls-private-key-file .*nope\.key: cannot read/);
    await expect(loadServingCertificate(join(a, 'serving.key'), join(a, 'serving.key'))).rejects.toThrow(/^--tls-cert-file .*: no PEM certificate found/);
    await expect(loadServingCertificate(join(a, 'serving.crt'), join(a, 'serving.crt'))).rejects.toThrow(/^--tls-private-key-file .*: not a PEM private key/);
    await expect(loadServingCertificate(join(a, 'serving.crt'), join(b, 'serving.key'))).rejects.toThrow(/is not the key of the certificate/);
    expect(existsSync(join(a, 'ca.crt'))).toBe(true);
  });
});

describe('ensureFrontProxyPki', () => {
  it('makes a front-proxy CA of its own and a front-proxy-client certificate it signed, kept across calls', async () => {
    const dir = tempDir();
    await ensurePki(dir, servingNames('127.0.0.1'));
    const first = await ensureFrontProxyPki(dir);
    const ca = new X509Certificate(first.caPem);
    const client = new X509Certificate(first.cert);
    expect(ca.ca).toBe(true);
    expect(client.subject).toBe('CN=front-proxy-client');
    expect(client.checkIssued(ca) && client.verify(ca.publicKey)).toBe(true);
    // Not the cluster CA: a certificate the cluster CA signed is no front proxy's.
    expect(client.verify(new X509Certificate(read(dir, 'ca.crt')).publicKey)).toBe(false);
    expect(mode(dir, 'front-proxy-ca.key')).toBe(0o600);
    expect(mode(dir, 'front-proxy-client.key')).toBe(0o600);
    expect(first.caFile).toBe(join(dir, 'front-proxy-ca.crt'));

    const again = await ensureFrontProxyPki(dir);
    expect(again).toEqual(first);
  });
});
