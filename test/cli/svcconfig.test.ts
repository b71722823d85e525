import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadSvcconfig, SvcconfigError, writeSvcconfig } from '../../src/client/index.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-config-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const CA = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

describe('writeSvcconfig', () => {
  it('writes a kubeconfig-format file, mode 0600, with one cluster, user and context', async () => {
    const path = join(tempDir(), 'admin.svcconfig');
    await writeSvcconfig(path, { server: 'https://127.0.0.1:6443', caData: CA, token: 's3cret', name: 'svc' });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(parse(readFileSync(path, 'utf8'))).toEqual({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'svc', cluster: { server: 'https://127.0.0.1:6443', 'certificate-authority-data': Buffer.from(CA).toString('base64') } }],
      users: [{ name: 'svc', user: { token: 's3cret' } }],
      contexts: [{ name: 'svc', context: { cluster: 'svc', user: 'svc' } }],
      'current-context': 'svc',
      preferences: {},
    });
  });

  it('tightens the mode of a file that already existed', async () => {
    const path = join(tempDir(), 'admin.svcconfig');
    writeFileSync(path, 'old', { mode: 0o644 });
    await writeSvcconfig(path, { server: 'https://h:1', name: 'x' });
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });
});

describe('loadSvcconfig', () => {
  it('reads back what writeSvcconfig wrote', async () => {
    const path = join(tempDir(), 'admin.svcconfig');
    await writeSvcconfig(path, { server: 'https://127.0.0.1:6443', caData: CA, token: 's3cret', name: 'svc' });
    expect(await loadSvcconfig(path)).toEqual({
      context: 'svc',
      cluster: 'svc',
      user: 'svc',
      server: 'https://127.0.0.1:6443',
      servers: [],
      caData: CA,
      insecureSkipTlsVerify: false,
      token: 's3cret',
      namespace: undefined,
    });
  });

  it('follows the current context among several, and file references relative to the config', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'ca.crt'), CA);
    writeFileSync(join(dir, 'token'), 'from-file\n');
    const path = join(dir, 'config');
    writeFileSync(
      path,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters:',
        '- name: a',
        '  cluster: {server: "https://a:1", certificate-authority: ca.crt}',
        '- name: b',
        '  cluster: {server: "https://b:2", insecure-skip-tls-verify: true}',
        'users:',
        '- name: u',
        '  user: {tokenFile: token}',
        '- name: exec-user',
        '  user: {exec: {command: foo}}',
        'contexts:',
        '- name: first',
        '  context: {cluster: b, user: exec-user}',
        '- name: second',
        '  context: {cluster: a, user: u, namespace: team}',
        'current-context: second',
      ].join('\n'),
    );
    expect(await loadSvcconfig(path)).toMatchObject({ server: 'https://a:1', caData: CA, token: 'from-file', namespace: 'team' });
    expect(await loadSvcconfig(path, { context: 'first' })).toMatchObject({ server: 'https://b:2', insecureSkipTlsVerify: true, token: undefined });
  });

  it.each([
    ['current-context: x\n', /context "x" not found/],
    ['clusters: []\n', /no current-context/],
    ['clusters: 3\n', /clusters/],
    ['a: [\n', /not YAML/],
    ['contexts: [{name: c, context: {cluster: nope}}]\ncurrent-context: c\n', /cluster "nope" not found/],
  ])('explains what is wrong with %j', async (text, message) => {
    const path = join(tempDir(), 'config');
    writeFileSync(path, text);
    await expect(loadSvcconfig(path)).rejects.toThrow(message);
    await expect(loadSvcconfig(path)).rejects.toBeInstanceOf(SvcconfigError);
  });

  it('names a missing file', async () => {
    await expect(loadSvcconfig('/nonexistent/config')).rejects.toThrow('/nonexistent/config: cannot read (ENOENT)');
  });
});
