import { generateKeyPairSync } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CREDENTIAL_ID_EXTRA, keyId, POD_NAME_EXTRA, POD_UID_EXTRA, signJws } from '../../../src/apiserver/authn/index.js';
import { ecKey, ISSUER, OTHER_ISSUER, rsaKey, startSaServer, type SaServer } from './sa-server.js';
import { viewBindingFor } from './bindings.js';

let s: SaServer;
afterEach(async () => s?.close());

const SA_PATH = '/api/v1/namespaces/default/serviceaccounts';
const NS = '/api/v1/namespaces';
const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');

async function createSa(name: string): Promise<string> {
  const res = await s.call('POST', SA_PATH, { body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name } } });
  expect(res.status).toBe(201);
  return res.body.metadata.uid;
}

async function requestToken(name: string, spec: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  return s.call('POST', `${SA_PATH}/${name}/token`, { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec, ...extra } });
}

/**
 * As the admin, binds the `view` ClusterRole cluster-wide to the service account default/<name>.
 * RBAC is on: a token that authenticates grants nothing by itself, so tests that expect a token's
 * request to succeed grant the account first (view lets it list namespaces).
 */
async function grantView(name: string) {
  const res = await s.call('POST', '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings', {
    body: viewBindingFor(name),
  });
  expect(res.status).toBe(201);
}

/** RBAC's 403 for listing namespaces, naming the user: proof that authentication succeeded. */
function expectForbiddenListingNamespaces(res: { status: number; body: any }, user: string) {
  expect(res.status).toBe(403);
  expect(res.body).toMatchObject({
    kind: 'Status',
    status: 'Failure',
    reason: 'Forbidden',
    code: 403,
    message: `namespaces is forbidden: User "${user}" cannot list resource "namespaces" in API group "" at the cluster scope`,
  });
}

function expectUnauthorized(res: { status: number; body: any }) {
  expect(res.status).toBe(401);
  expect(res.body).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Unauthorized', code: 401 });
}

const decodeClaims = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
const decodeHeader = (token: string) => JSON.parse(Buffer.from(token.split('.')[0]!, 'base64url').toString());

describe('TokenRequest: serviceaccounts/<name>/token', () => {
  beforeEach(async () => {
    s = await startSaServer();
  });

  it('mints a token in Kubernetes claim layout that authenticates as the service account', async () => {
    const uid = await createSa('robot');
    const res = await requestToken('robot');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ kind: 'TokenRequest', apiVersion: 'authentication.k8s.io/v1', spec: { audiences: ['api', 'other-api'], expirationSeconds: 3600, boundObjectRef: null } });
    const token: string = res.body.status.token;
    const expiresAt = Date.parse(res.body.status.expirationTimestamp);
    expect(Math.abs(expiresAt - (s.clock.now + 3600_000))).toBeLessThan(2000);

    expect(decodeHeader(token)).toMatchObject({ alg: 'ES256', kid: s.signingKey.kid });
    const claims = decodeClaims(token);
    expect(claims).toMatchObject({
      iss: ISSUER,
      sub: 'system:serviceaccount:default:robot',
      aud: ['api', 'other-api'],
      'kubernetes.io': { namespace: 'default', serviceaccount: { name: 'robot', uid } },
    });
    expect(claims.exp - claims.iat).toBe(3600);

    // Authenticated as the account, which RBAC has granted nothing yet.
    expectForbiddenListingNamespaces(await s.call('GET', NS, { token }), 'system:serviceaccount:default:robot');
    await grantView('robot');
    expect((await s.call('GET', NS, { token })).status).toBe(200);
    const user = await s.authentication.authenticateToken(token);
    expect(user).toMatchObject({
      name: 'system:serviceaccount:default:robot',
      uid,
      groups: ['system:serviceaccounts', 'system:serviceaccounts:default', 'system:authenticated'],
    });
    expect(user?.extra?.[CREDENTIAL_ID_EXTRA]).toEqual([`JTI=${claims.jti}`]);
  });

  it('answers in svc\'s group when the request names it, and takes the audiences and lifetime asked for', async () => {
    await createSa('robot');
    const res = await s.call('POST', `${SA_PATH}/robot/token`, {
      body: { apiVersion: 'authentication.svc.io/v1', kind: 'TokenRequest', spec: { audiences: ['vault'], expirationSeconds: 7200 } },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ apiVersion: 'authentication.svc.io/v1', spec: { audiences: ['vault'], expirationSeconds: 7200 } });
    // Not an API audience: not good for the API, good for whoever checks it for "vault".
    expectUnauthorized(await s.call('GET', NS, { token: res.body.status.token }));
    expect(await s.authentication.authenticateToken(res.body.status.token, ['vault'])).toMatchObject({ name: 'system:serviceaccount:default:robot' });
  });

  it('caps the lifetime at --service-account-max-token-expiration', async () => {
    await s.close();
    s = await startSaServer({ maxExpirationSeconds: 1200 });
    await createSa('robot');
    const res = await requestToken('robot', { expirationSeconds: 86400 });
    expect(res.status).toBe(201);
    expect(res.body.spec.expirationSeconds).toBe(1200);
  });

  it.each([
    ['a lifetime under 10 minutes', { expirationSeconds: 599 }, 'spec.expirationSeconds'],
    ['a lifetime over 2^32 seconds', { expirationSeconds: 2 ** 32 + 1 }, 'spec.expirationSeconds'],
    ['a bound object of an unsupported kind', { boundObjectRef: { kind: 'Deployment', apiVersion: 'apps/v1', name: 'x' } }, 'spec.boundObjectRef.kind'],
    ['a bound object without a name', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1' } }, 'spec.boundObjectRef.name'],
    ['an empty audience', { audiences: [''] }, 'spec.audiences[0]'],
  ])('refuses %s with 422 Invalid', async (_what, spec, field) => {
    await createSa('robot');
    const res = await requestToken('robot', spec);
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ reason: 'Invalid', details: { kind: 'TokenRequest', causes: expect.arrayContaining([expect.objectContaining({ field })]) } });
  });

  it.each([
    ['a wrong apiVersion', { apiVersion: 'v1', kind: 'TokenRequest' }],
    ['a wrong kind', { apiVersion: 'authentication.k8s.io/v1', kind: 'Pod' }],
    ['a spec of the wrong type', { spec: { expirationSeconds: 'soon' } }],
    ['a body that is not an object', ['x']],
  ])('refuses %s with 400', async (_what, body) => {
    await createSa('robot');
    const res = await s.call('POST', `${SA_PATH}/robot/token`, { body });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ kind: 'Status', reason: 'BadRequest' });
  });

  it('answers 404 for a service account that does not exist, and 405 for a GET', async () => {
    const res = await requestToken('ghost');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ reason: 'NotFound', details: { name: 'ghost', kind: 'serviceaccounts' } });
    await createSa('robot');
    expect((await s.call('GET', `${SA_PATH}/robot/token`)).status).toBe(405);
  });

  it('checks nothing into the token on dry run', async () => {
    await createSa('robot');
    const res = await s.call('POST', `${SA_PATH}/robot/token?dryRun=All`, { body: {} });
    expect(res.status).toBe(201);
    expect(res.body.status.token).toBe('');
  });

  it('refuses a token request without credentials, writing nothing', async () => {
    await createSa('robot');
    const before = await s.store.revision();
    expectUnauthorized(await s.call('POST', `${SA_PATH}/robot/token`, { token: null, body: {} }));
    expect(await s.store.revision()).toBe(before);
  });
});

describe('tokens bound to a pod or a secret', () => {
  beforeEach(async () => {
    s = await startSaServer({ signingKey: rsaKey() });
  });

  const pod = (name: string, serviceAccountName: string) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name },
    spec: { serviceAccountName, containers: [{ name: 'c', image: 'busybox' }] },
  });

  it('carries the pod in the claims and the user, and dies with the pod', async () => {
    await createSa('robot');
    await grantView('robot');
    const created = await s.call('POST', '/api/v1/namespaces/default/pods', { body: pod('worker', 'robot') });
    expect(created.status).toBe(201);
    const podUid = created.body.metadata.uid;
    const res = await requestToken('robot', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'worker', uid: podUid } });
    expect(res.status).toBe(201);
    expect(res.body.spec.boundObjectRef).toEqual({ kind: 'Pod', apiVersion: 'v1', name: 'worker', uid: podUid });
    const token: string = res.body.status.token;
    expect(decodeHeader(token).alg).toBe('RS256');
    expect(decodeClaims(token)['kubernetes.io'].pod).toEqual({ name: 'worker', uid: podUid });
    const user = await s.authentication.authenticateToken(token);
    expect(user?.extra).toMatchObject({ [POD_NAME_EXTRA]: ['worker'], [POD_UID_EXTRA]: [podUid] });
    expect((await s.call('GET', NS, { token })).status).toBe(200);

    expect((await s.call('DELETE', '/api/v1/namespaces/default/pods/worker')).status).toBe(200);
    expectUnauthorized(await s.call('GET', NS, { token }));
    // A new pod of the same name is another pod: the token stays dead.
    expect((await s.call('POST', '/api/v1/namespaces/default/pods', { body: pod('worker', 'robot') })).status).toBe(201);
    expectUnauthorized(await s.call('GET', NS, { token }));
  });

  it('refuses to bind to a missing pod, a stale uid, or a pod of another account', async () => {
    await createSa('robot');
    expect((await requestToken('robot', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'none' } })).status).toBe(404);
    await s.call('POST', '/api/v1/namespaces/default/pods', { body: pod('worker', 'robot') });
    // Admission wants a pod's service account to exist.
    await createSa('someone-else');
    expect((await s.call('POST', '/api/v1/namespaces/default/pods', { body: pod('stranger', 'someone-else') })).status).toBe(201);
    const stale = await requestToken('robot', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'worker', uid: 'not-its-uid' } });
    expect(stale.status).toBe(400);
    const foreign = await requestToken('robot', { boundObjectRef: { kind: 'Pod', apiVersion: 'v1', name: 'stranger' } });
    expect(foreign.status).toBe(400);
    expect(foreign.body.message).toMatch(/different serviceaccount/);
  });

  it('dies with the secret it is bound to', async () => {
    await createSa('robot');
    await grantView('robot');
    expect((await s.call('POST', '/api/v1/namespaces/default/secrets', { body: { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'cred' } } })).status).toBe(201);
    const res = await requestToken('robot', { boundObjectRef: { kind: 'Secret', apiVersion: 'v1', name: 'cred' } });
    expect(res.status).toBe(201);
    const token: string = res.body.status.token;
    expect((await s.call('GET', NS, { token })).status).toBe(200);
    await s.call('DELETE', '/api/v1/namespaces/default/secrets/cred');
    expectUnauthorized(await s.call('GET', NS, { token }));
  });
});

describe('the service-account token verifier', () => {
  let saUid: string;
  beforeEach(async () => {
    s = await startSaServer();
    saUid = await createSa('robot');
    // The account may list namespaces: a 200 means the token authenticated, a 401 that it did not.
    await grantView('robot');
  });

  const nowSeconds = () => Math.floor(s.clock.now / 1000);
  const claims = (over: Record<string, unknown> = {}) => ({
    iss: ISSUER,
    sub: 'system:serviceaccount:default:robot',
    aud: ['api'],
    iat: nowSeconds(),
    nbf: nowSeconds(),
    exp: nowSeconds() + 3600,
    'kubernetes.io': { namespace: 'default', serviceaccount: { name: 'robot', uid: saUid } },
    ...over,
  });
  const sign = (payload: Record<string, unknown>, key = s.signingKey.key, kid: string | undefined = s.signingKey.kid, alg: 'ES256' | 'RS256' | 'ES384' = 'ES256') =>
    signJws(payload, key, alg, kid);

  /** A 401, and the write it carried left the store as it was. */
  async function expectRefused(token: string) {
    expectUnauthorized(await s.call('GET', NS, { token }));
    const before = await s.store.revision();
    expectUnauthorized(await s.call('POST', '/api/v1/namespaces/default/configmaps', { token, body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } }));
    expect(await s.store.revision()).toBe(before);
    expect(await s.authentication.authenticateToken(token)).toBeUndefined();
  }

  it('accepts a well-formed token, from either issuer, with aud as a string or a list', async () => {
    expect((await s.call('GET', NS, { token: sign(claims()) })).status).toBe(200);
    expect((await s.call('GET', NS, { token: sign(claims({ iss: OTHER_ISSUER })) })).status).toBe(200);
    expect((await s.call('GET', NS, { token: sign(claims({ aud: 'other-api' })) })).status).toBe(200);
  });

  it('tolerates a minute of clock skew on exp and nbf, not more', async () => {
    expect((await s.call('GET', NS, { token: sign(claims({ exp: nowSeconds() - 30 })) })).status).toBe(200);
    expect((await s.call('GET', NS, { token: sign(claims({ nbf: nowSeconds() + 30, iat: nowSeconds() + 30 })) })).status).toBe(200);
    await expectRefused(sign(claims({ exp: nowSeconds() - 61 })));
    await expectRefused(sign(claims({ nbf: nowSeconds() + 120 })));
    await expectRefused(sign(claims({ iat: nowSeconds() + 120 })));
  });

  it('refuses a cached token once it has expired', async () => {
    const token = sign(claims({ exp: nowSeconds() + 600 }));
    expect((await s.call('GET', NS, { token })).status).toBe(200);
    s.clock.now += 700_000;
    await expectRefused(token);
  });

  it.each([
    ['a wrong audience', { aud: ['someone-else'] }],
    ['a wrong issuer', { iss: 'https://evil.example' }],
    ['a subject that is not its account', { sub: 'system:serviceaccount:default:admin' }],
    ['no kubernetes.io claim', { 'kubernetes.io': undefined }],
    ['no exp', { exp: undefined }],
    ['an exp that is not a number', { exp: 'tomorrow' }],
    ['an exp past any 64-bit time', { exp: 1e308 }],
    ['a fractional exp', { exp: 4102444800.5 }],
    ['an nbf past any 64-bit time', { nbf: 1e308 }],
    ['a negative iat', { iat: -1 }],
    ['an iat past any 64-bit time', { iat: 9.3e18 }],
    ['a service account uid of another account', { 'kubernetes.io': { namespace: 'default', serviceaccount: { name: 'robot', uid: 'not-the-uid' } } }],
    ['an account that does not exist', { sub: 'system:serviceaccount:default:ghost', 'kubernetes.io': { namespace: 'default', serviceaccount: { name: 'ghost', uid: 'g' } } }],
  ])('refuses %s', async (_what, over) => {
    await expectRefused(sign(claims(over)));
  });

  it('refuses forged signatures: a flipped byte, another key under our kid, an unknown kid', async () => {
    const good = sign(claims());
    const [h, p, sig] = good.split('.') as [string, string, string];
    const bytes = Buffer.from(sig, 'base64url');
    bytes[5] = bytes[5]! ^ 0xff;
    await expectRefused(`${h}.${p}.${bytes.toString('base64url')}`);
    // The payload changed under the old signature.
    await expectRefused(`${h}.${b64(claims({ sub: 'system:serviceaccount:default:other' }))}.${sig}`);
    const stranger = ecKey();
    await expectRefused(sign(claims(), stranger.key, s.signingKey.kid));
    await expectRefused(sign(claims(), stranger.key, stranger.kid));
    await expectRefused(sign(claims(), stranger.key, undefined));
  });

  it('refuses alg none, HS256 keyed with the public key, and an algorithm that does not fit the key', async () => {
    await expectRefused(`${b64({ alg: 'none', kid: s.signingKey.kid })}.${b64(claims())}.`);
    await expectRefused(`${b64({ alg: 'none' })}.${b64(claims())}.${b64('x')}`);
    const { createHmac } = await import('node:crypto');
    const input = `${b64({ alg: 'HS256', kid: s.signingKey.kid })}.${b64(claims())}`;
    const mac = createHmac('sha256', s.signingKey.publicKey.export({ type: 'spki', format: 'pem' })).update(input).digest('base64url');
    await expectRefused(`${input}.${mac}`);
    // An ES384 header over a P-256 key.
    const good = sign(claims());
    const [, p, sig] = good.split('.') as [string, string, string];
    await expectRefused(`${b64({ alg: 'ES384', kid: s.signingKey.kid })}.${p}.${sig}`);
  });

  it.each([
    ['two segments', () => 'a.b'],
    ['four segments', () => 'a.b.c.d'],
    ['bad base64 in the header', () => `!!!.${b64(claims())}.abc`],
    ['a header that is not JSON', () => `${b64('not json')}.${b64(claims())}.abc`],
    ['a payload that is an array', () => `${b64({ alg: 'ES256', kid: 'k' })}.${b64([1, 2])}.abc`],
    ['an empty signature', () => `${b64({ alg: 'ES256', kid: 'k' })}.${b64(claims())}.`],
    ['critical header extensions', () => `${b64({ alg: 'ES256', kid: 'k', crit: ['exp'] })}.${b64(claims())}.abc`],
    ['a huge token', () => `${b64({ alg: 'ES256' })}.${'A'.repeat(1_000_000)}.abc`],
  ])('refuses a malformed token: %s', async (_what, make) => {
    await expectRefused(make());
  });

  it('refuses tokens of an account that was deleted, or deleted and created again', async () => {
    const token = sign(claims());
    expect((await s.call('GET', NS, { token })).status).toBe(200);
    expect((await s.call('DELETE', `${SA_PATH}/robot`)).status).toBe(200);
    // The ClusterRoleBinding outlives the account: these 401s are authentication's, not RBAC's.
    await expectRefused(token);
    const newUid = await createSa('robot');
    expect(newUid).not.toBe(saUid);
    await expectRefused(token);
  });

  it('accepts tokens signed by a key from --service-account-key-file', async () => {
    await s.close();
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-384' });
    s = await startSaServer({ extraKeys: [publicKey] });
    saUid = await createSa('robot');
    await grantView('robot');
    expect((await s.call('GET', NS, { token: signJws(claims(), privateKey, 'ES384', keyId(publicKey)) })).status).toBe(200);
    // Keys without a kid in the token are tried in turn.
    expect((await s.call('GET', NS, { token: signJws(claims(), privateKey, 'ES384') })).status).toBe(200);
  });
});

describe('anonymous requests', () => {
  it('are system:anonymous when allowed, and meet RBAC as such; a bad credential is still a 401', async () => {
    s = await startSaServer({ anonymous: true });
    // The default policy lets system:unauthenticated read /version (system:public-info-viewer), nothing more.
    expectForbiddenListingNamespaces(await s.call('GET', NS, { token: null }), 'system:anonymous');
    expect((await s.call('GET', '/version', { token: null })).status).toBe(200);
    expectUnauthorized(await s.call('GET', NS, { token: 'wrong' }));
    expectUnauthorized(await s.call('GET', NS, { token: 'a.b.c' }));
    expectUnauthorized(await s.call('GET', NS, { token: null, headers: { authorization: 'Bearer' } }));
    expect(await s.authentication.authenticate({})).toEqual({ name: 'system:anonymous', uid: '', groups: ['system:unauthenticated'] });
  });

  it('are a 401 when not allowed', async () => {
    s = await startSaServer({ anonymous: false });
    expectUnauthorized(await s.call('GET', NS, { token: null }));
  });
});
