import { generateKeyPairSync } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anonymousAllowed, keyId, publicKeysFromPem, signJws } from '../../../src/apiserver/authn/index.js';
import { startApiServer, type RunningApiServer } from '../../../src/cli/apiserver-command.js';
import { apiServerConfig, apiServerFlags } from '../../../src/cli/apiserver-flags.js';
import { FlagError, parseFlags } from '../../../src/cli/flags.js';
import { httpsCall } from './https-request.js';
import { viewBindingFor } from './bindings.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'svc-authn-serving-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const base = (data: string) => ['--storage=sqlite', '--secure-port=0', '--bind-address=127.0.0.1', `--data-dir=${data}`];

/** As the admin, binds the `view` ClusterRole to the service account default/<name>: RBAC is on, and the tokens below must list namespaces. */
async function grantView(server: RunningApiServer, name: string) {
  const res = await httpsCall('POST', `${server.url}/apis/rbac.authorization.k8s.io/v1/clusterrolebindings`, {
    ca: server.caPem,
    token: server.adminToken,
    body: viewBindingFor(name),
  });
  expect(res.status).toBe(201);
}

function config(argv: string[]) {
  const parsed = parseFlags(apiServerFlags, argv);
  if (parsed.help) throw new Error('help');
  return apiServerConfig(parsed.values);
}

describe('authentication flags', () => {
  it('have Kubernetes\' names and defaults', () => {
    const c = config([]);
    expect(c).toMatchObject({
      anonymousAuth: true,
      serviceAccountIssuers: ['https://kubernetes.default.svc.cluster.local'],
      apiAudiences: [],
      serviceAccountKeyFiles: [],
      serviceAccountMaxTokenExpirationSeconds: 0,
    });
    expect(c.clientCaFile).toBeUndefined();
    expect(c.serviceAccountSigningKeyFile).toBeUndefined();
  });

  it('take repeated issuers and key files, audiences and a lifetime cap', () => {
    const c = config([
      '--service-account-issuer=https://a.example',
      '--service-account-issuer=https://b.example',
      '--service-account-key-file=/k1.pem',
      '--service-account-key-file=/k2.pem',
      '--api-audiences=api,vault',
      '--service-account-max-token-expiration=24h',
      '--anonymous-auth=false',
      '--client-ca-file=/ca.pem',
      '--service-account-signing-key-file=/sa.key',
    ]);
    expect(c).toMatchObject({
      serviceAccountIssuers: ['https://a.example', 'https://b.example'],
      serviceAccountKeyFiles: ['/k1.pem', '/k2.pem'],
      apiAudiences: ['api', 'vault'],
      serviceAccountMaxTokenExpirationSeconds: 86400,
      anonymousAuth: false,
      clientCaFile: '/ca.pem',
      serviceAccountSigningKeyFile: '/sa.key',
    });
  });

  it.each([
    ['--service-account-issuer=', /issuer must not be empty/],
    ['--service-account-issuer=http://[bad', /is not a URL/],
    ['--service-account-max-token-expiration=5m', /at least 10m/],
  ])('reject %s', (arg, message) => {
    expect(() => config([arg])).toThrow(FlagError);
    expect(() => config([arg])).toThrow(message);
  });

  it('never let anonymous requests meet the AlwaysAllow authorizer', () => {
    expect(anonymousAllowed(true, ['AlwaysAllow']).allowed).toBe(false);
    expect(anonymousAllowed(true, ['AlwaysAllow']).warning).toMatch(/AlwaysAllow/);
    expect(anonymousAllowed(true, ['Node', 'RBAC'])).toEqual({ allowed: true });
    expect(anonymousAllowed(false, ['RBAC'])).toEqual({ allowed: false });
  });
});

describe('service-account keys', () => {
  it('reads every key of a PEM bundle: public keys, certificates\' keys and private keys\' public halves', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const text = [
      rsa.publicKey.export({ type: 'spki', format: 'pem' }),
      rsa.publicKey.export({ type: 'pkcs1', format: 'pem' }),
      ec.privateKey.export({ type: 'sec1', format: 'pem' }),
    ].join('');
    const keys = publicKeysFromPem(text, 'bundle.pem');
    expect(keys.map((k) => k.kid)).toEqual([keyId(rsa.publicKey), keyId(rsa.publicKey), keyId(ec.publicKey)]);
    expect(() => publicKeysFromPem('no keys here', 'empty.pem')).toThrow(/empty\.pem: no PEM/);
    const ed = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
    expect(() => publicKeysFromPem(ed, 'ed.pem')).toThrow(/ed25519 keys cannot/);
  });

  it('generates a signing key in the data dir on first start and keeps it across restarts', async () => {
    const data = join(dir, 'generated');
    let server = await startApiServer(base(data));
    const keyPath = join(data, 'service-account.key');
    let token: string;
    try {
      expect(existsSync(keyPath)).toBe(true);
      expect(statSync(keyPath).mode & 0o777).toBe(0o600);
      const headers = { ca: server.caPem, token: server.adminToken };
      expect((await httpsCall('POST', `${server.url}/api/v1/namespaces/default/serviceaccounts`, { ...headers, body: { metadata: { name: 'robot' } } })).status).toBe(201);
      const minted = await httpsCall('POST', `${server.url}/api/v1/namespaces/default/serviceaccounts/robot/token`, { ...headers, body: {} });
      expect(minted.status).toBe(201);
      token = minted.body.status.token;
      await grantView(server, 'robot');
      expect((await httpsCall('GET', `${server.url}/api/v1/namespaces`, { ca: server.caPem, token })).status).toBe(200);
    } finally {
      await server.close();
    }
    const before = readFileSync(keyPath, 'utf8');
    server = await startApiServer(base(data));
    try {
      expect(readFileSync(keyPath, 'utf8')).toBe(before);
      expect((await httpsCall('GET', `${server.url}/api/v1/namespaces`, { ca: server.caPem, token })).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it('signs with --service-account-signing-key-file and accepts --service-account-key-file keys, issuers and audiences', async () => {
    const signing = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const foreign = generateKeyPairSync('rsa', { modulusLength: 2048 });
    writeFileSync(join(dir, 'sa.key'), signing.privateKey.export({ type: 'pkcs8', format: 'pem' }));
    writeFileSync(join(dir, 'foreign.pub'), foreign.publicKey.export({ type: 'spki', format: 'pem' }));
    const server = await startApiServer([
      ...base(join(dir, 'given')),
      `--service-account-signing-key-file=${join(dir, 'sa.key')}`,
      `--service-account-key-file=${join(dir, 'foreign.pub')}`,
      '--service-account-issuer=https://new.example',
      '--service-account-issuer=https://old.example',
      '--api-audiences=svc-api',
    ]);
    try {
      const admin = { ca: server.caPem, token: server.adminToken };
      const sa = await httpsCall('POST', `${server.url}/api/v1/namespaces/default/serviceaccounts`, { ...admin, body: { metadata: { name: 'robot' } } });
      const minted = await httpsCall('POST', `${server.url}/api/v1/namespaces/default/serviceaccounts/robot/token`, { ...admin, body: {} });
      await grantView(server, 'robot');
      const header = JSON.parse(Buffer.from(minted.body.status.token.split('.')[0], 'base64url').toString());
      expect(header).toMatchObject({ alg: 'ES256', kid: keyId(signing.publicKey) });
      expect(minted.body.spec.audiences).toEqual(['svc-api']);

      const now = Math.floor(Date.now() / 1000);
      const claims = (iss: string, aud: string) => ({
        iss,
        aud: [aud],
        sub: 'system:serviceaccount:default:robot',
        iat: now,
        exp: now + 600,
        'kubernetes.io': { namespace: 'default', serviceaccount: { name: 'robot', uid: sa.body.metadata.uid } },
      });
      const get = (token: string) => httpsCall('GET', `${server.url}/api/v1/namespaces`, { ca: server.caPem, token });
      expect((await get(signJws(claims('https://old.example', 'svc-api'), foreign.privateKey, 'RS256', keyId(foreign.publicKey)))).status).toBe(200);
      expect((await get(signJws(claims('https://other.example', 'svc-api'), foreign.privateKey, 'RS256', keyId(foreign.publicKey)))).status).toBe(401);
      expect((await get(signJws(claims('https://new.example', 'https://new.example'), foreign.privateKey, 'RS256', keyId(foreign.publicKey)))).status).toBe(401);
    } finally {
      await server.close();
    }
  });

  it('refuses to start on an unreadable key or client CA file, naming the flag', async () => {
    writeFileSync(join(dir, 'not-a-key'), 'hello');
    await expect(startApiServer([...base(join(dir, 'bad1')), `--service-account-signing-key-file=${join(dir, 'not-a-key')}`])).rejects.toThrow(/--service-account-signing-key-file .*not-a-key: not a PEM private key/);
    await expect(startApiServer([...base(join(dir, 'bad2')), `--service-account-key-file=${join(dir, 'missing.pem')}`])).rejects.toThrow(/--service-account-key-file .*missing\.pem: cannot read/);
    await expect(startApiServer([...base(join(dir, 'bad3')), `--client-ca-file=${join(dir, 'not-a-key')}`])).rejects.toThrow(/--client-ca-file .*: no PEM certificate/);
  });
});
