import { X509Certificate } from 'node:crypto';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureClientCertificate, ensureServingCertificateFiles } from '../../../src/pki/index.js';
import { startApiServer } from '../../../src/cli/apiserver-command.js';
import { scratchDir } from '../../support/scratch.js';
import { httpsCall } from './https-request.js';

describe('ensureClientCertificate', () => {
  it('issues a client certificate from the data dir CA, naming the user and groups, key private to the owner', async () => {
    const pki = join(scratchDir('svc-client-pki-'), 'pki');
    const files = await ensureClientCertificate(pki, 'node-agent', { commonName: 'system:node:n1', organizations: ['system:nodes'] });
    const cert = new X509Certificate(readFileSync(files.certFile));
    const ca = new X509Certificate(readFileSync(join(pki, 'ca.crt')));
    expect(cert.verify(ca.publicKey)).toBe(true);
    expect(cert.subject).toContain('CN=system:node:n1');
    expect(cert.subject).toContain('O=system:nodes');
    expect(cert.keyUsage).toContain('1.3.6.1.5.5.7.3.2'); // clientAuth
    expect(statSync(files.keyFile).mode & 0o777).toBe(0o600);
  });

  it('keeps a usable certificate and reissues one that names another user or is damaged', async () => {
    const pki = join(scratchDir('svc-client-pki-'), 'pki');
    const first = await ensureClientCertificate(pki, 'agent', { commonName: 'a' });
    const pem = readFileSync(first.certFile, 'utf8');
    await ensureClientCertificate(pki, 'agent', { commonName: 'a' });
    expect(readFileSync(first.certFile, 'utf8')).toBe(pem);
    await ensureClientCertificate(pki, 'agent', { commonName: 'b' });
    const renamed = readFileSync(first.certFile, 'utf8');
    expect(renamed).not.toBe(pem);
    expect(new X509Certificate(renamed).subject).toContain('CN=b');
    writeFileSync(first.keyFile, 'garbage');
    await ensureClientCertificate(pki, 'agent', { commonName: 'b' });
    expect(readFileSync(first.certFile, 'utf8')).not.toBe(renamed);
  });

  it('is accepted by an API server whose --client-ca-file is the same CA, as the named user', async () => {
    const data = scratchDir('svc-client-pki-server-');
    const files = await ensureClientCertificate(join(data, 'pki'), 'tester', { commonName: 'cert-user', organizations: ['team-a'] });
    const server = await startApiServer(['--storage=memory', '--secure-port=0', '--bind-address=127.0.0.1', `--data-dir=${data}`, `--client-ca-file=${join(data, 'pki', 'ca.crt')}`]);
    try {
      // RBAC gives this user nothing: the denial names who the server took the certificate for.
      const res = await httpsCall('GET', `${server.url}/api/v1/namespaces`, {
        ca: server.caPem,
        cert: readFileSync(files.certFile, 'utf8'),
        key: readFileSync(files.keyFile, 'utf8'),
      });
      expect(res.status).toBe(403);
      expect(res.body.message).toContain('User "cert-user" cannot list resource "namespaces"');
    } finally {
      await server.close();
    }
  });

  it('issues serving certificates for other servers from the same CA, reissued when the names change', async () => {
    const pki = join(scratchDir('svc-client-pki-'), 'pki');
    const files = await ensureServingCertificateFiles(pki, 'agent-serving', 'system:node:n1', { dns: ['localhost', 'n1'], ips: ['127.0.0.1', '10.1.2.3'] });
    const cert = new X509Certificate(readFileSync(files.certFile));
    expect(cert.verify(new X509Certificate(readFileSync(join(pki, 'ca.crt'))).publicKey)).toBe(true);
    expect(cert.keyUsage).toContain('1.3.6.1.5.5.7.3.1'); // serverAuth
    expect(cert.checkIP('10.1.2.3')).toBe('10.1.2.3');
    expect(cert.checkHost('n1')).toBe('n1');
    const pem = readFileSync(files.certFile, 'utf8');
    await ensureServingCertificateFiles(pki, 'agent-serving', 'system:node:n1', { dns: ['localhost', 'n1'], ips: ['127.0.0.1', '10.1.2.3'] });
    expect(readFileSync(files.certFile, 'utf8')).toBe(pem);
    await ensureServingCertificateFiles(pki, 'agent-serving', 'system:node:n1', { dns: ['localhost', 'n1'], ips: ['127.0.0.1', '10.9.9.9'] });
    expect(new X509Certificate(readFileSync(files.certFile)).checkIP('10.9.9.9')).toBe('10.9.9.9');
  });
});
