// --tls-sni-cert-key: the certificate the secure port presents depends on the server name asked
// for; exact names beat wildcards, and the default certificate answers everything else.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningControllerManager } from '../../../controllers/manager/index.js';
import { ensurePki } from '../../../src/pki/index.js';
import { ANY_SECURE_PORT, startCluster, type Cluster } from './support.js';
import { scratchDir } from '../../support/scratch.js';

/** The DNS names of the certificate the port presents for `servername`. */
function presented(m: RunningControllerManager, servername: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port: m.serving!.port, servername, rejectUnauthorized: false }, () => {
      const names = socket.getPeerCertificate().subjectaltname ?? '';
      socket.end();
      resolve(names);
    });
    socket.on('error', reject);
  });
}

describe('certificates by server name', () => {
  let cluster: Cluster;
  let m: RunningControllerManager;
  beforeAll(async () => {
    cluster = await startCluster();
    const exact = scratchDir('svc-sni-a-');
    const wild = scratchDir('svc-sni-b-');
    await ensurePki(exact, { dns: ['api.example.test'], ips: [] });
    await ensurePki(wild, { dns: ['wild-cert.test'], ips: [] });
    m = await cluster.manager([
      ANY_SECURE_PORT,
      '--bind-address=127.0.0.1',
      '--leader-elect=false',
      `--tls-sni-cert-key=${join(wild, 'serving.crt')},${join(wild, 'serving.key')}:*.example.test`,
      `--tls-sni-cert-key=${join(exact, 'serving.crt')},${join(exact, 'serving.key')}`,
    ]);
  });
  afterAll(async () => {
    await cluster.close();
  });

  it('presents the certificate whose own name matches exactly', async () => {
    expect(await presented(m, 'api.example.test')).toContain('DNS:api.example.test');
  });

  it('presents the wildcard pattern’s certificate for other names under it', async () => {
    expect(await presented(m, 'other.example.test')).toContain('DNS:wild-cert.test');
  });

  it('presents the default serving certificate for anything else', async () => {
    expect(await presented(m, 'localhost')).toContain('DNS:localhost');
  });
});
