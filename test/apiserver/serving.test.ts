import { execFile, spawnSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { promisify } from 'node:util';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ensurePki, servingNames } from '../../src/pki/index.js';
import { main, startApiServer, type RunningApiServer } from '../../src/cli/apiserver-command.js';
import type { CommandIO } from '../../src/cli/command.js';
import { FlagError } from '../../src/cli/flags.js';
import { loadSvcconfig } from '../../src/client/index.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-serving-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const agents: Agent[] = [];
afterAll(() => Promise.all(agents.map((agent) => agent.close())));

/** GET `path` over HTTPS trusting only `ca`; returns status, body text and content type. */
async function get(base: string, path: string, ca: string, token?: string | { authorization: string }) {
  const agent = new Agent({ connect: { ca } });
  agents.push(agent);
  const headers = typeof token === 'string' ? { authorization: `Bearer ${token}` } : (token ?? {});
  const res = await request(`${base}${path}`, { dispatcher: agent, headers });
  return { status: res.statusCode, text: await res.body.text(), type: String(res.headers['content-type'] ?? '') };
}

/** The certificate the server presents, verified against `ca` for `servername`. */
function peerCertificate(port: number, ca: string, host = '127.0.0.1', servername?: string): Promise<X509Certificate> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port, ca, ...(servername ? { servername } : {}) }, () => {
      const cert = socket.getPeerX509Certificate();
      socket.end();
      if (cert) resolve(cert);
      else reject(new Error('no peer certificate'));
    });
    socket.on('error', reject);
  });
}

const memoryServer = (dir: string, ...extra: string[]) =>
  startApiServer(['--storage=memory', '--secure-port=0', '--bind-address=127.0.0.1', `--data-dir=${dir}`, ...extra]);

describe('svc-apiserver over HTTPS with generated certificates and tokens', () => {
  let server: RunningApiServer;
  let dir: string;

  beforeAll(async () => {
    dir = tempDir();
    const tokens = join(dir, 'tokens.csv');
    writeFileSync(tokens, 'alice-token,alice,u-alice,"dev,ops"\n');
    server = await memoryServer(dir, `--token-auth-file=${tokens}`);
  });
  afterAll(() => server?.close());

  it('listens on the port it was given (0: a free one) and reports the client URL', () => {
    expect(server.port).toBeGreaterThan(0);
    expect(server.url).toBe(`https://127.0.0.1:${server.port}`);
    expect(server.listenUrl).toBe(`https://127.0.0.1:${server.port}`);
  });

  it('serves TLS that verifies against the generated CA, for every name in the certificate', async () => {
    expect(server.caPem).toBe(readFileSync(join(dir, 'pki', 'ca.crt'), 'utf8'));
    const served = await peerCertificate(server.port, server.caPem!);
    expect(served.raw.equals(new X509Certificate(readFileSync(join(dir, 'pki', 'serving.crt'))).raw)).toBe(true);
    await expect(peerCertificate(server.port, server.caPem!, '127.0.0.1', 'localhost')).resolves.toBeDefined();
  });

  it('is not trusted by a client without the CA', async () => {
    await expect(request(`${server.url}/healthz`)).rejects.toThrow(/self[- ]signed|unable to (get|verify)/i);
  });

  it.each(['/healthz', '/livez', '/readyz'])('answers %s without a token', async (path) => {
    expect(await get(server.url, path, server.caPem!)).toMatchObject({ status: 200, text: 'ok' });
  });

  // --anonymous-auth defaults to true and RBAC is the default authorizer: a request without
  // credentials is system:anonymous and meets RBAC, whose default policy lets it read /version and
  // the health checks (system:public-info-viewer) and nothing else. Discovery (system:discovery)
  // is bound to system:authenticated only, as in Kubernetes.
  it('answers /version without a token: system:anonymous may read it (system:public-info-viewer)', async () => {
    const res = await get(server.url, '/version', server.caPem!);
    expect(res.status).toBe(200);
    expect(res.type).toMatch(/^application\/json/);
    expect(JSON.parse(res.text)).toHaveProperty('gitVersion');
  });

  it.each([
    ['/api', 'forbidden: User "system:anonymous" cannot get path "/api"'],
    ['/api/v1/namespaces', 'namespaces is forbidden: User "system:anonymous" cannot list resource "namespaces" in API group "" at the cluster scope'],
    ['/no/such/path', 'forbidden: User "system:anonymous" cannot get path "/no/such/path"'],
  ])('answers %s without a token with a 403 Status naming system:anonymous', async (path, message) => {
    const res = await get(server.url, path, server.caPem!);
    expect(res.status).toBe(403);
    expect(res.type).toMatch(/^application\/json/);
    expect(JSON.parse(res.text)).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Forbidden', code: 403, message });
  });

  it.each([['Bearer wrong-token'], ['Bearer'], ['alice-token'], ['Bearer alice-token extra']])('answers %j with a 401 Status', async (header) => {
    const res = await get(server.url, '/api/v1/namespaces', server.caPem!, { authorization: header });
    expect(res.status).toBe(401);
    expect(JSON.parse(res.text)).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
  });

  it('reads the admin token after two spaces as no bearer token: the request is anonymous (403 naming system:anonymous)', async () => {
    const res = await get(server.url, '/api/v1/namespaces', server.caPem!, { authorization: `Bearer  ${server.adminToken}` });
    expect(res.status).toBe(403);
    expect(JSON.parse(res.text)).toMatchObject({ kind: 'Status', reason: 'Forbidden', code: 403 });
    expect(JSON.parse(res.text).message).toContain('system:anonymous');
  });

  it('accepts the admin token', async () => {
    const res = await get(server.url, '/api/v1/namespaces', server.caPem!, server.adminToken);
    expect(res.status).toBe(200);
  });

  it('accepts a token from --token-auth-file: alice is authenticated, and RBAC (no binding for her) names her in its 403', async () => {
    const res = await get(server.url, '/api/v1/namespaces', server.caPem!, 'alice-token');
    expect(res.status).toBe(403);
    expect(JSON.parse(res.text)).toMatchObject({
      kind: 'Status',
      reason: 'Forbidden',
      message: 'namespaces is forbidden: User "alice" cannot list resource "namespaces" in API group "" at the cluster scope',
    });
    // What every authenticated user may read (system:discovery), she may.
    expect((await get(server.url, '/api', server.caPem!, 'alice-token')).status).toBe(200);
  });

  it('writes admin.svcconfig (0600) with the server URL, the CA and the admin token', async () => {
    expect(server.svcconfigPath).toBe(join(dir, 'admin.svcconfig'));
    expect(statSync(server.svcconfigPath).mode & 0o777).toBe(0o600);
    const doc = parse(readFileSync(server.svcconfigPath, 'utf8'));
    expect(doc).toMatchObject({ apiVersion: 'v1', kind: 'Config', 'current-context': 'svc' });
    expect(await loadSvcconfig(server.svcconfigPath)).toMatchObject({ server: server.url, caData: server.caPem, token: server.adminToken });
  });

  it('keeps its secrets readable by the owner only', () => {
    for (const file of ['admin-token', 'pki/ca.key', 'pki/serving.key', 'admin.svcconfig']) {
      expect(statSync(join(dir, file)).mode & 0o777, file).toBe(0o600);
    }
    expect(readFileSync(join(dir, 'admin-token'), 'utf8').trim()).toBe(server.adminToken);
  });

  it('refuses a second server on the same port', async () => {
    await expect(memoryServer(tempDir(), `--secure-port=${server.port}`)).rejects.toThrow(/cannot listen on https:\/\/127\.0\.0\.1:\d+: the address is in use/);
  });
});

describe.each([
  ['--anonymous-auth=false', 'anonymous requests are off'],
  ['--authorization-mode=AlwaysAllow', 'anonymous requests never meet the AlwaysAllow authorizer, whatever --anonymous-auth says'],
])('svc-apiserver %s: %s', (flag) => {
  let server: RunningApiServer;
  beforeAll(async () => {
    server = await memoryServer(tempDir(), flag);
  });
  afterAll(() => server?.close());

  it.each(['/api', '/api/v1/namespaces', '/version', '/no/such/path'])('answers %s without a token with a 401 Status', async (path) => {
    const res = await get(server.url, path, server.caPem!);
    expect(res.status).toBe(401);
    expect(res.type).toMatch(/^application\/json/);
    expect(JSON.parse(res.text)).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Unauthorized', code: 401 });
  });

  it('still answers the health checks without a token', async () => {
    expect(await get(server.url, '/healthz', server.caPem!)).toMatchObject({ status: 200, text: 'ok' });
  });

  it('still serves the admin token', async () => {
    expect((await get(server.url, '/api/v1/namespaces', server.caPem!, server.adminToken)).status).toBe(200);
  });
});

describe('restarting on the same data dir', () => {
  it('reuses the CA, the serving certificate and the admin token, so old client configs keep working', async () => {
    const dir = tempDir();
    const first = await startApiServer(['--storage=sqlite', '--secure-port=0', '--bind-address=127.0.0.1', `--data-dir=${dir}`]);
    const firstConfig = readFileSync(first.svcconfigPath, 'utf8');
    const servingCert = readFileSync(join(dir, 'pki', 'serving.crt'), 'utf8');
    await first.close();
    expect(existsSync(join(dir, 'state.db'))).toBe(true);

    const second = await startApiServer(['--storage=sqlite', '--secure-port=0', '--bind-address=127.0.0.1', `--data-dir=${dir}`]);
    try {
      expect(second.caPem).toBe(first.caPem);
      expect(second.adminToken).toBe(first.adminToken);
      expect(readFileSync(join(dir, 'pki', 'serving.crt'), 'utf8')).toBe(servingCert);
      // The old file's CA and token against the new server (only the port may differ).
      const old = parse(firstConfig) as { clusters: [{ cluster: { 'certificate-authority-data': string } }]; users: [{ user: { token: string } }] };
      const ca = Buffer.from(old.clusters[0].cluster['certificate-authority-data'], 'base64').toString();
      expect((await get(second.url, '/api/v1/namespaces', ca, old.users[0].user.token)).status).toBe(200);
    } finally {
      await second.close();
    }
  });
});

describe('--tls-cert-file and --tls-private-key-file', () => {
  it('serves the given certificate and puts its root in admin.svcconfig', async () => {
    const own = join(tempDir(), 'own-pki');
    const made = await ensurePki(own, servingNames('127.0.0.1'));
    const chain = join(own, 'chain.crt');
    writeFileSync(chain, made.cert + made.caPem);
    const dir = tempDir();
    const server = await memoryServer(dir, `--tls-cert-file=${chain}`, `--tls-private-key-file=${join(own, 'serving.key')}`);
    try {
      const served = await peerCertificate(server.port, made.caPem!);
      expect(served.raw.equals(new X509Certificate(made.cert).raw)).toBe(true);
      expect(server.caPem).toBe(made.caPem);
      expect((await loadSvcconfig(server.svcconfigPath)).caData).toBe(made.caPem);
      expect((await get(server.url, '/healthz', made.caPem!)).text).toBe('ok');
      expect(existsSync(join(dir, 'pki'))).toBe(false);
    } finally {
      await server.close();
    }
  });

  it('refuses to start with files that are missing or do not match', async () => {
    const own = join(tempDir(), 'own-pki');
    const other = join(tempDir(), 'other-pki');
    await ensurePki(own, servingNames('127.0.0.1'));
    await ensurePki(other, servingNames('127.0.0.1'));
    const dir = tempDir();
    await expect(memoryServer(dir, `--tls-cert-file=${join(own, 'missing.crt')}`, `--tls-private-key-file=${join(own, 'serving.key')}`)).rejects.toThrow(
      /--tls-cert-file .*missing\.crt: cannot read \(ENOENT\)/,
    );
    await expect(memoryServer(dir, `--tls-cert-file=${join(own, 'serving.crt')}`, `--tls-private-key-file=${join(other, 'serving.key')}`)).rejects.toThrow(
      /is not the key of the certificate/,
    );
  });
});

describe('bad command lines', () => {
  it.each([
    [['--secure-port=https'], '--secure-port'],
    [['--storage=mongo'], '--storage'],
    [['--feature-gates=Bogus=true'], '--feature-gates'],
    [['--nope'], '--nope'],
    [['--tls-cert-file=x'], '--tls-private-key-file'],
  ])('startApiServer(%j) throws a FlagError naming %s', async (argv, name) => {
    const error = await startApiServer(argv).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FlagError);
    expect((error as FlagError).flag).toBe(name);
  });

  it('a bad token file stops the start, naming the line', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'tokens.csv'), 'a,b,c\nbroken\n');
    await expect(memoryServer(dir, `--token-auth-file=${join(dir, 'tokens.csv')}`)).rejects.toThrow(/tokens\.csv:2:/);
  });

  function capture(): CommandIO & { lines: { out: string[]; err: string[] } } {
    const lines = { out: [] as string[], err: [] as string[] };
    return { lines, out: (line) => void lines.out.push(line), err: (line) => void lines.err.push(line) };
  }

  it('svc-apiserver exits 2 naming the flag, and prints usage on --help', async () => {
    const io = capture();
    expect(await main(['--secure-port', 'x'], io)).toBe(2);
    expect(io.lines.err[0]).toBe('svc-apiserver: invalid argument "x" for --secure-port flag: not an integer');
    expect(io.lines.err[1]).toBe("Run 'svc-apiserver --help' for usage.");

    const help = capture();
    expect(await main(['--help'], help)).toBe(0);
    expect(help.lines.out.join('\n')).toMatch(/^Usage: svc-apiserver \[flags\]/);
    expect(help.lines.out.join('\n')).toContain('--secure-port port');
  });

  it('svc-apiserver exits 2 on a stray argument and 1 when it cannot start', async () => {
    const io = capture();
    expect(await main(['serve'], io)).toBe(2);
    expect(io.lines.err[0]).toBe('svc-apiserver: unexpected argument "serve"');
    const dir = tempDir();
    const failing = capture();
    expect(await main([`--data-dir=${dir}`, '--storage=memory', '--secure-port=0', `--token-auth-file=${join(dir, 'none.csv')}`], failing)).toBe(1);
    expect(failing.lines.err[0]).toMatch(/^svc-apiserver: --token-auth-file .*none\.csv: cannot read/);
  });
});

describe('kubectl as a client', () => {
  // A real client is part of what this suite proves: without kubectl it fails, it never skips.
  const found = spawnSync('sh', ['-c', 'command -v kubectl'], { encoding: 'utf8' });
  const kubectl = found.status === 0 ? found.stdout.trim() : '';
  let server: RunningApiServer;
  let home: string;
  const run = (...args: string[]) =>
    promisify(execFile)(kubectl, ['--kubeconfig', server.svcconfigPath, ...args], {
      // A private HOME keeps kubectl's cache and any user config out of the test.
      env: { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: home },
      timeout: 30_000,
    });

  beforeAll(async () => {
    home = tempDir();
    server = await memoryServer(tempDir());
  });
  afterAll(() => server?.close());

  it('kubectl is installed', () => {
    expect(kubectl, 'kubectl must be on PATH (e.g. /usr/bin/kubectl)').not.toBe('');
  });

  it('reads /healthz through admin.svcconfig', async () => {
    const { stdout } = await run('get', '--raw', '/healthz');
    expect(stdout.trim()).toBe('ok');
  });

  it('reports the server version through admin.svcconfig', async () => {
    const { stdout } = await run('version', '-o', 'json');
    const version = JSON.parse(stdout) as { serverVersion?: { gitVersion?: string } };
    expect(version.serverVersion?.gitVersion).toEqual(expect.any(String));
  });
});
