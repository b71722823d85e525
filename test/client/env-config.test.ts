/**
 * Client.fromEnv / resolveEnvConfig: each step of kubectl's order with real files in temp dirs,
 * the KUBECONFIG merge rules, and an in-cluster config against a real HTTPS svc-apiserver with a
 * token file (rotated) and the server's CA.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApiServer, type RunningApiServer } from '../../src/cli/apiserver-command.js';
import { builtin, Client, fileTokenSource, resolveEnvConfig, SvcconfigError } from '../../src/client/index.js';
import { scratchDir } from '../support/scratch.js';
import { cm } from './support.js';

interface Entries {
  clusters?: [string, string][];
  users?: [string, string][];
  contexts?: [string, string, string][];
  current?: string;
}

/** A config file of named clusters (server), users (token) and contexts (cluster, user). */
function configFile(dir: string, file: string, e: Entries): string {
  const lines = ['apiVersion: v1', 'kind: Config'];
  lines.push(`clusters: [${(e.clusters ?? []).map(([n, s]) => `{name: ${n}, cluster: {server: "${s}"}}`).join(', ')}]`);
  lines.push(`users: [${(e.users ?? []).map(([n, t]) => `{name: ${n}, user: {token: ${t}}}`).join(', ')}]`);
  lines.push(`contexts: [${(e.contexts ?? []).map(([n, c, u]) => `{name: ${n}, context: {cluster: ${c}, user: ${u}}}`).join(', ')}]`);
  if (e.current) lines.push(`current-context: ${e.current}`);
  const path = join(dir, file);
  writeFileSync(path, lines.join('\n'));
  return path;
}

const one = (dir: string, file: string, server: string) => configFile(dir, file, { clusters: [['c', server]], users: [['u', 't']], contexts: [['x', 'c', 'u']], current: 'x' });

describe('resolveEnvConfig: the order', () => {
  it('an explicit path wins over SVCCONFIG, KUBECONFIG and the home config', async () => {
    const dir = scratchDir('svc-env-');
    const home = join(dir, 'home');
    mkdirSync(join(home, '.kube'), { recursive: true });
    one(join(home, '.kube'), 'config', 'https://home:1');
    const env = { SVCCONFIG: one(dir, 'svc', 'https://svc:1'), KUBECONFIG: one(dir, 'kube', 'https://kube:1') };
    const explicit = one(dir, 'explicit', 'https://explicit:1');
    expect(await resolveEnvConfig({ path: explicit, env, homeDir: home })).toMatchObject({ source: 'path', connection: { server: 'https://explicit:1' } });
    expect(await resolveEnvConfig({ env, homeDir: home })).toMatchObject({ source: 'SVCCONFIG', connection: { server: 'https://svc:1' } });
    expect(await resolveEnvConfig({ env: { KUBECONFIG: env.KUBECONFIG }, homeDir: home })).toMatchObject({ source: 'KUBECONFIG', connection: { server: 'https://kube:1' } });
    expect(await resolveEnvConfig({ env: {}, homeDir: home })).toMatchObject({ source: 'home', files: [join(home, '.kube', 'config')], connection: { server: 'https://home:1', token: 't' } });
  });

  it('an explicit path that does not exist is an error, not a fall-through', async () => {
    const dir = scratchDir('svc-env-');
    await expect(resolveEnvConfig({ path: join(dir, 'nope'), env: { KUBECONFIG: one(dir, 'k', 'https://k:1') } })).rejects.toThrow(/nope: cannot read \(ENOENT\)/);
  });

  it('a KUBECONFIG whose files are all missing does not fall back to the home config (kubectl), and the error names what was tried', async () => {
    const dir = scratchDir('svc-env-');
    const home = join(dir, 'home');
    mkdirSync(join(home, '.kube'), { recursive: true });
    one(join(home, '.kube'), 'config', 'https://home:1');
    const missing = join(dir, 'missing');
    const error = await resolveEnvConfig({ env: { KUBECONFIG: missing }, homeDir: home, inClusterDir: join(dir, 'sa') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SvcconfigError);
    expect((error as Error).message).toContain(`KUBECONFIG=${missing} (no such file)`);
    expect((error as Error).message).toContain('in-cluster (KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not both set)');
  });

  it('nothing anywhere: a SvcconfigError naming the home config and the in-cluster files', async () => {
    const dir = scratchDir('svc-env-');
    const sa = join(dir, 'sa');
    const error = await resolveEnvConfig({ env: { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' }, homeDir: dir, inClusterDir: sa }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SvcconfigError);
    expect((error as Error).message).toBe(`no client configuration found; tried: ${join(dir, '.kube', 'config')} (no such file); in-cluster (cannot read ${join(sa, 'token')}: ENOENT)`);
  });

  it('Client.fromEnv picks the context option and passes the client options on', async () => {
    const dir = scratchDir('svc-env-');
    const path = configFile(dir, 'cfg', { clusters: [['a', 'https://a:1'], ['b', 'https://b:1']], users: [['u', 't']], contexts: [['ca', 'a', 'u'], ['cb', 'b', 'u']], current: 'ca' });
    expect(await resolveEnvConfig({ env: { KUBECONFIG: path }, context: 'cb' })).toMatchObject({ connection: { server: 'https://b:1' } });
    const client = await Client.fromEnv({ env: { KUBECONFIG: path }, namespace: 'shop' });
    expect(client.namespace).toBe('shop');
    await client.destroy();
  });
});

describe('KUBECONFIG merge rules', () => {
  it('the first file to define a name wins; current-context from the first file that sets one; missing files skipped', async () => {
    const dir = scratchDir('svc-env-');
    const first = configFile(dir, 'first', { clusters: [['shared', 'https://first:1']], users: [['u1', 'first-token']] });
    const second = configFile(dir, 'second', {
      clusters: [['shared', 'https://second:1'], ['only2', 'https://only2:1']],
      users: [['u1', 'second-token']],
      contexts: [['ctx', 'shared', 'u1'], ['other', 'only2', 'u1']],
      current: 'ctx',
    });
    const third = configFile(dir, 'third', { contexts: [['ctx', 'only2', 'u1']], current: 'other' });
    const found = await resolveEnvConfig({ env: { KUBECONFIG: [join(dir, 'missing'), first, second, third].join(':') } });
    expect(found.source).toBe('KUBECONFIG');
    expect(found.files).toEqual([first, second, third]);
    // current-context 'ctx' (second is the first to set one); context ctx from second (first to define it);
    // its cluster 'shared' from first; its user from first.
    expect(found.connection).toMatchObject({ server: 'https://first:1', token: 'first-token' });
    expect(await resolveEnvConfig({ env: { KUBECONFIG: [third, second].join(':') } })).toMatchObject({ connection: { server: 'https://only2:1' } });
  });

  it('file names in an entry are relative to the file that defined it', async () => {
    const dir = scratchDir('svc-env-');
    mkdirSync(join(dir, 'a'));
    mkdirSync(join(dir, 'b'));
    writeFileSync(join(dir, 'b', 'token'), 'from-b\n');
    const a = join(dir, 'a', 'config');
    writeFileSync(a, ['clusters: [{name: c, cluster: {server: "https://a:1"}}]', 'contexts: [{name: x, context: {cluster: c, user: u}}]', 'current-context: x'].join('\n'));
    const b = join(dir, 'b', 'config');
    writeFileSync(b, 'users: [{name: u, user: {tokenFile: token}}]\n');
    expect(await resolveEnvConfig({ env: { SVCCONFIG: `${a}:${b}` } })).toMatchObject({ source: 'SVCCONFIG', connection: { server: 'https://a:1', token: 'from-b' } });
  });

  it('an entry no file defines is an error naming the list', async () => {
    const dir = scratchDir('svc-env-');
    const a = configFile(dir, 'a', { contexts: [['x', 'nowhere', 'u']], current: 'x' });
    await expect(resolveEnvConfig({ env: { KUBECONFIG: a } })).rejects.toThrow(`${a}: cluster "nowhere" not found`);
  });
});

describe('fileTokenSource', () => {
  it('re-reads the file only once its period has passed, and keeps the last token while the file is gone', async () => {
    const dir = scratchDir('svc-env-');
    const path = join(dir, 'token');
    writeFileSync(path, 'one\n');
    let now = 1_000_000;
    const source = fileTokenSource(path, { now: () => now });
    expect(await source()).toBe('one');
    writeFileSync(path, 'two\n');
    now += 59_999;
    expect(await source()).toBe('one');
    now += 1;
    expect(await source()).toBe('two');
    rmSync(path);
    now += 60_000;
    expect(await source()).toBe('two');
  });

  it('a first read of a missing file rejects', async () => {
    await expect(fileTokenSource(join(scratchDir('svc-env-'), 'none'))()).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('in-cluster, against a real HTTPS svc-apiserver', () => {
  let dir: string;
  let server: RunningApiServer;
  beforeAll(async () => {
    dir = scratchDir('svc-env-api-');
    server = await startApiServer(['--storage=memory', '--secure-port=0', '--bind-address=127.0.0.1', `--data-dir=${join(dir, 'data')}`]);
  });
  afterAll(async () => {
    await server.close();
  });

  it('uses the token file, the CA and the namespace file; a rotated token is read after the period', async () => {
    const sa = join(dir, 'sa');
    mkdirSync(sa);
    writeFileSync(join(sa, 'token'), 'stale-token\n');
    writeFileSync(join(sa, 'ca.crt'), server.caPem!);
    writeFileSync(join(sa, 'namespace'), 'svc-public\n');
    const url = new URL(server.url);
    let now = 5_000_000;
    const env = { KUBERNETES_SERVICE_HOST: url.hostname, KUBERNETES_SERVICE_PORT: url.port };
    const client = await Client.fromEnv({ env, homeDir: dir, inClusterDir: sa, tokenFile: { now: () => now } });
    try {
      expect(client.namespace).toBe('svc-public');
      await expect(client.get(builtin.configMaps, 'x')).rejects.toMatchObject({ code: 401, reason: 'Unauthorized' });
      writeFileSync(join(sa, 'token'), `${server.adminToken}\n`);
      now += 60_000;
      const made = await client.create(builtin.configMaps, cm('in-cluster'));
      expect(made.metadata.namespace).toBe('svc-public');
    } finally {
      await client.destroy();
    }
  });

  it('SVC_SERVICE_HOST/PORT win over KUBERNETES_SERVICE_*, and an IPv6 host is bracketed', async () => {
    const sa = join(dir, 'sa6');
    mkdirSync(sa);
    writeFileSync(join(sa, 'token'), 't');
    const url = new URL(server.url);
    const found = await resolveEnvConfig({
      env: { SVC_SERVICE_HOST: url.hostname, SVC_SERVICE_PORT: url.port, KUBERNETES_SERVICE_HOST: '10.9.9.9', KUBERNETES_SERVICE_PORT: '1' },
      homeDir: dir,
      inClusterDir: sa,
    });
    expect(found).toMatchObject({ source: 'in-cluster', connection: { server: server.url, caData: undefined, namespace: undefined } });
    const v6 = await resolveEnvConfig({ env: { KUBERNETES_SERVICE_HOST: 'fd00::1', KUBERNETES_SERVICE_PORT: '443' }, homeDir: dir, inClusterDir: sa });
    expect(v6.connection.server).toBe('https://[fd00::1]:443');
  });
});
