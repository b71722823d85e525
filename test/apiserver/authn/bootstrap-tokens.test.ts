// Bootstrap tokens as bearer tokens against a real svc-apiserver: `<id>.<secret>` is
// system:bootstrap:<id> in system:bootstrappers (and the Secret's auth-extra-groups) while its
// Secret in svc-system allows authentication and has not expired; any other such token is a 401.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtin, Client, loadSvcconfig } from '../../../src/client/index.js';
import { startApiServer, type RunningApiServer } from '../../support/api-server.js';
import { FIXTURE_CSR } from '../../support/pem-fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'svc-bootstrap-authn-'));
let server: RunningApiServer;
let admin: Client;
const clients: Client[] = [];

const b64 = (value: string) => Buffer.from(value).toString('base64');
async function tokenSecret(id: string, secret: string, extra: Record<string, string> = {}): Promise<void> {
  await admin.create(builtin.secrets, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: `bootstrap-token-${id}`, namespace: 'svc-system' },
    type: 'bootstrap.kubernetes.io/token',
    data: Object.fromEntries(Object.entries({ 'token-id': id, 'token-secret': secret, ...extra }).map(([k, v]) => [k, b64(v)])),
  });
}

/** Who the server takes the token for (the requester it stamps on a CertificateSigningRequest), or the error's code. */
async function whoIs(token: string): Promise<{ username?: string; groups?: string[] } | number> {
  const target = await loadSvcconfig(server.svcconfigPath);
  const client = new Client({ server: target.server, caData: target.caData, token });
  clients.push(client);
  try {
    const csr = await client.create(builtin.certificateSigningRequests, {
      apiVersion: 'certificates.svc.io/v1',
      kind: 'CertificateSigningRequest',
      metadata: { generateName: 'who-' },
      spec: { request: FIXTURE_CSR, signerName: 'example.com/signer', usages: ['client auth'] },
    });
    return { username: csr.spec.username, groups: csr.spec.groups };
  } catch (error) {
    return (error as { code: number }).code;
  }
}

beforeAll(async () => {
  server = await startApiServer(['--storage=memory', '--secure-port=0', '--bind-address=127.0.0.1', `--data-dir=${dir}`]);
  admin = await Client.fromSvcconfig(server.svcconfigPath);
  const future = new Date(Date.now() + 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');
  const past = new Date(Date.now() - 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');
  await tokenSecret('goodid', 'aaaaaaaaaaaaaaaa', { 'usage-bootstrap-authentication': 'true', expiration: future, 'auth-extra-groups': 'system:bootstrappers:worker' });
  await tokenSecret('oldone', 'bbbbbbbbbbbbbbbb', { 'usage-bootstrap-authentication': 'true', expiration: past });
  await tokenSecret('nouse1', 'cccccccccccccccc', { 'usage-bootstrap-signing': 'true' });
  await tokenSecret('badgrp', 'dddddddddddddddd', { 'usage-bootstrap-authentication': 'true', 'auth-extra-groups': 'system:masters' });
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.destroy()));
  await admin?.destroy();
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('bootstrap token authentication', () => {
  it('authenticates a valid token as system:bootstrap:<id> in system:bootstrappers and its extra groups', async () => {
    const user = await whoIs('goodid.aaaaaaaaaaaaaaaa');
    expect(user).toMatchObject({ username: 'system:bootstrap:goodid' });
    expect((user as { groups: string[] }).groups).toEqual(expect.arrayContaining(['system:bootstrappers', 'system:bootstrappers:worker', 'system:authenticated']));
  });

  it('refuses (401) a wrong secret, an expired token, one not for authentication, one with a group outside system:bootstrappers, and an unknown id', async () => {
    for (const token of ['goodid.ffffffffffffffff', 'oldone.bbbbbbbbbbbbbbbb', 'nouse1.cccccccccccccccc', 'badgrp.dddddddddddddddd', 'nosuch.eeeeeeeeeeeeeeee']) {
      expect(await whoIs(token), token).toBe(401);
    }
  });
});
