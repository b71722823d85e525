// Authentication and authorization on the manager's secure port: client certificates
// (--client-ca-file), identity headers from a trusted front proxy (--requestheader-*), and
// delegation to the API server through TokenReview and SubjectAccessReview, failing closed.
import { webcrypto } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunningControllerManager } from '../../../controllers/manager/index.js';
import { writeSvcconfig } from '../../../src/client/index.js';
import { ANY_SECURE_PORT, startCluster, type Cluster } from './support.js';
import { scratchDir } from '../../support/scratch.js';

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

async function pem(key: webcrypto.CryptoKey): Promise<string> {
  return x509.PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', key), 'PRIVATE KEY');
}

/** A CA and a function issuing client certificates from it. */
async function authority(name: string) {
  const keys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: `CN=${name}`,
    notBefore: new Date(now - 3600_000),
    notAfter: new Date(now + 3600_000),
    keys,
    signingAlgorithm: ALG,
    extensions: [new x509.BasicConstraintsExtension(true, 0, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true)],
  });
  return {
    pem: cert.toString('pem'),
    async issue(subject: string) {
      const leafKeys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
      const leaf = await x509.X509CertificateGenerator.create({
        serialNumber: '02',
        subject,
        issuer: cert.subject,
        notBefore: new Date(now - 3600_000),
        notAfter: new Date(now + 3600_000),
        publicKey: leafKeys.publicKey,
        signingKey: keys.privateKey,
        signingAlgorithm: ALG,
        extensions: [new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.clientAuth])],
      });
      return { cert: leaf.toString('pem'), key: await pem(leafKeys.privateKey) };
    },
  };
}

describe('who may use the secure port', () => {
  let cluster: Cluster;
  let manager: RunningControllerManager;
  let delegating: RunningControllerManager;
  let broken: RunningControllerManager;
  let ca: Awaited<ReturnType<typeof authority>>;
  let proxyCa: Awaited<ReturnType<typeof authority>>;
  let clients: Awaited<ReturnType<typeof ca.issue>>[];
  const agents: Agent[] = [];

  const metricsAs = async (m: RunningControllerManager, identity?: { cert: string; key: string }, headers: Record<string, string> = {}) => {
    const agent = new Agent({ connect: { rejectUnauthorized: false, ...(identity ?? {}) } });
    agents.push(agent);
    const res = await request(`${m.serving!.url}/metrics`, { dispatcher: agent, headers });
    const text = await res.body.text();
    return { status: res.statusCode, body: text.startsWith('{') ? (JSON.parse(text) as { reason: string; message: string }) : undefined };
  };

  beforeAll(async () => {
    cluster = await startCluster();
    const dir = scratchDir('svc-cm-auth-');
    ca = await authority('client-ca');
    proxyCa = await authority('front-proxy-ca');
    writeFileSync(join(dir, 'client-ca.crt'), ca.pem);
    writeFileSync(join(dir, 'proxy-ca.crt'), proxyCa.pem);
    clients = [await ca.issue('CN=alice, O=devs'), await proxyCa.issue('CN=front-proxy'), await proxyCa.issue('CN=intruder')];
    manager = await cluster.manager([
      ANY_SECURE_PORT,
      '--bind-address=127.0.0.1',
      '--leader-elect=false',
      `--client-ca-file=${join(dir, 'client-ca.crt')}`,
      `--requestheader-client-ca-file=${join(dir, 'proxy-ca.crt')}`,
      '--requestheader-allowed-names=front-proxy',
    ]);
    delegating = await cluster.manager([
      ANY_SECURE_PORT,
      '--bind-address=127.0.0.1',
      '--leader-elect=false',
      `--authentication-svcconfig=${cluster.api.svcconfigPath}`,
      `--authorization-svcconfig=${cluster.api.svcconfigPath}`,
    ]);
    // Reviews made with a credential the API server refuses.
    const refused = join(dir, 'refused.svcconfig');
    await writeSvcconfig(refused, { server: cluster.api.url, caData: cluster.api.caPem, token: 'not-a-token', name: 'refused' });
    broken = await cluster.manager([
      ANY_SECURE_PORT,
      '--bind-address=127.0.0.1',
      '--leader-elect=false',
      `--authentication-svcconfig=${refused}`,
      `--authorization-svcconfig=${refused}`,
    ]);
  });
  afterAll(async () => {
    await Promise.all(agents.map((a) => a.close()));
    await cluster.close();
  });

  it('treats a request without credentials as system:anonymous, forbidden without authorization', async () => {
    const res = await metricsAs(manager);
    expect(res.status).toBe(403);
    expect(res.body?.message).toContain('User "system:anonymous"');
  });

  it("authenticates a client certificate from --client-ca-file as its CommonName", async () => {
    const res = await metricsAs(manager, clients[0]);
    expect(res.status).toBe(403);
    expect(res.body?.message).toContain('User "alice"');
  });

  it('takes the user from the identity headers of an allowed front proxy', async () => {
    const res = await metricsAs(manager, clients[1], { 'x-remote-user': 'bob', 'x-remote-group': 'ops' });
    expect(res.body?.message).toContain('User "bob"');
  });

  it('ignores identity headers from a proxy certificate not in --requestheader-allowed-names', async () => {
    const res = await metricsAs(manager, clients[2], { 'x-remote-user': 'bob' });
    expect(res.body?.message).toContain('User "system:anonymous"');
  });

  it('ignores identity headers without a proxy certificate', async () => {
    const res = await metricsAs(manager, clients[0], { 'x-remote-user': 'bob' });
    expect(res.body?.message).toContain('User "alice"');
  });

  it('rejects a bearer token the API server does not know (TokenReview): 401, not anonymous', async () => {
    const res = await metricsAs(delegating, undefined, { authorization: 'Bearer some-token' });
    expect(res.status).toBe(401);
    expect(res.body?.reason).toBe('Unauthorized');
  });

  it('asks the API server (SubjectAccessReview) and forbids what RBAC does not allow', async () => {
    const res = await metricsAs(delegating);
    expect(res.status).toBe(403);
    expect(res.body?.message).toContain('User "system:anonymous" cannot get path "/metrics"');
    expect(res.body?.message).not.toContain('review failed');
  });

  it('serves a user the API server authenticates (TokenReview) and authorizes (SubjectAccessReview)', async () => {
    const res = await metricsAs(delegating, undefined, { authorization: `Bearer ${cluster.api.adminToken}` });
    expect(res.status).toBe(200);
  });

  it('fails closed when the reviews cannot be made: 401 for tokens, 403 for access', async () => {
    const res = await metricsAs(broken);
    expect(res.status).toBe(403);
    expect(res.body?.message).toContain('the access review failed');
    expect((await metricsAs(broken, undefined, { authorization: `Bearer ${cluster.api.adminToken}` })).status).toBe(401);
  });
});
