import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type RunningApiServer } from '../../../src/cli/apiserver-command.js';
import { makeCa, makeClientCert, type TestClientCert } from '../../support/client-certs.js';
import { httpsCall } from './https-request.js';

const NS = '/api/v1/namespaces';

/** A 403 whose message names the user: authentication made it that user, authorization said no. */
const expectForbiddenAs = (res: { status: number; body: any }, user: string) => {
  expect(res.status).toBe(403);
  expect(res.body).toMatchObject({ kind: 'Status', reason: 'Forbidden', code: 403 });
  expect(res.body.message).toContain(`User "${user}" cannot `);
};

describe('requestheader authentication with the generated front-proxy CA', () => {
  let dir: string;
  let server: RunningApiServer;
  let proxy: TestClientCert;
  let alice: TestClientCert;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-authn-requestheader-'));
    const clients = await makeCa('clients');
    alice = await makeClientCert(clients, { cn: 'alice' });
    writeFileSync(join(dir, 'client-ca.crt'), clients.pem);
    server = await startApiServer(['--storage=memory', '--secure-port=0', '--bind-address=127.0.0.1', `--data-dir=${join(dir, 'data')}`, `--client-ca-file=${join(dir, 'client-ca.crt')}`]);
    const pki = join(dir, 'data', 'pki');
    proxy = { cert: readFileSync(join(pki, 'front-proxy-client.crt'), 'utf8'), key: readFileSync(join(pki, 'front-proxy-client.key'), 'utf8') };
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const get = (cert: TestClientCert | undefined, headers: Record<string, string | string[]>) =>
    httpsCall('GET', `${server.url}${NS}`, { ca: server.caPem, ...(cert ? { cert: cert.cert, key: cert.key } : {}), headers });

  it('believes the user and groups a verified front proxy names', async () => {
    const res = await get(proxy, { 'X-Remote-User': 'carol', 'X-Remote-Group': ['devs', 'system:masters'] });
    expect(res.status).toBe(200);
    expect(res.body.kind).toBe('NamespaceList');
    expectForbiddenAs(await get(proxy, { 'X-Remote-User': 'dave', 'X-Remote-Group': 'devs' }), 'dave');
  });

  it('ignores the headers on any other connection: a user certificate, or none', async () => {
    expectForbiddenAs(await get(alice, { 'X-Remote-User': 'mallory', 'X-Remote-Group': 'system:masters' }), 'alice');
    expectForbiddenAs(await get(undefined, { 'X-Remote-User': 'mallory', 'X-Remote-Group': 'system:masters' }), 'system:anonymous');
  });

  it('takes the front proxy for no user without a username header', async () => {
    expectForbiddenAs(await get(proxy, {}), 'system:anonymous');
    const withToken = await httpsCall('GET', `${server.url}${NS}`, { ca: server.caPem, cert: proxy.cert, key: proxy.key, token: server.adminToken });
    expect(withToken.status).toBe(200);
  });
});

describe('requestheader authentication with --requestheader-client-ca-file and allowed names', () => {
  let dir: string;
  let server: RunningApiServer;
  let allowed: TestClientCert;
  let other: TestClientCert;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svc-authn-requestheader-flags-'));
    const proxies = await makeCa('proxies');
    allowed = await makeClientCert(proxies, { cn: 'proxy-a' });
    other = await makeClientCert(proxies, { cn: 'proxy-b' });
    writeFileSync(join(dir, 'proxies.crt'), proxies.pem);
    server = await startApiServer([
      '--storage=memory',
      '--secure-port=0',
      '--bind-address=127.0.0.1',
      `--data-dir=${join(dir, 'data')}`,
      `--requestheader-client-ca-file=${join(dir, 'proxies.crt')}`,
      '--requestheader-allowed-names=proxy-a',
      '--requestheader-username-headers=X-User',
      '--requestheader-group-headers=X-Groups',
    ]);
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const get = (cert: TestClientCert, headers: Record<string, string>) =>
    httpsCall('GET', `${server.url}${NS}`, { ca: server.caPem, cert: cert.cert, key: cert.key, headers });

  it('reads the headers the flags name, from the names the flags allow', async () => {
    expect((await get(allowed, { 'X-User': 'erin', 'X-Groups': 'system:masters' })).status).toBe(200);
    // The default header names mean nothing here.
    expectForbiddenAs(await get(allowed, { 'X-Remote-User': 'erin', 'X-Remote-Group': 'system:masters' }), 'system:anonymous');
  });

  it('answers 401 to a proxy certificate of the CA whose name is not allowed', async () => {
    const res = await get(other, { 'X-User': 'erin', 'X-Groups': 'system:masters' });
    expect(res.status).toBe(401);
    expect(res.body).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
  });
});
