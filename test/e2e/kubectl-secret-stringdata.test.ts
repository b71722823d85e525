// A Secret's stringData is folded into data by the API server on every write (create, replace,
// patch, apply), as kube-apiserver does: the plain value is base64-encoded under its key, it wins
// over a data value of the same key, and stringData itself is never stored or shown.
import { describe, expect, it } from 'vitest';
import { kubectl, useKubectlServer } from '../support/kubectl.js';

const k = useKubectlServer('svc-kubectl-secret-');
const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

async function secret(name: string): Promise<{ data?: Record<string, string>; stringData?: unknown }> {
  const got = await kubectl(k.config, ['get', 'secret', name, '-o', 'json']);
  expect(got.code, got.stderr).toBe(0);
  return JSON.parse(got.stdout) as { data?: Record<string, string>; stringData?: unknown };
}

describe('Secret stringData through kubectl', () => {
  it('create: stringData lands in data, wins over data on the same key, and is not stored', async () => {
    const manifest = [
      'apiVersion: v1',
      'kind: Secret',
      'metadata: {name: creds}',
      `data: {user: ${b64('old')}, keep: ${b64('kept')}}`,
      'stringData: {user: "admin", password: "s3cr3t é"}',
      '',
    ].join('\n');
    const created = await kubectl(k.config, ['create', '-f', '-', '-o', 'json'], manifest);
    expect(created.code, created.stderr).toBe(0);
    // The create's own answer shows what was stored.
    expect(JSON.parse(created.stdout).stringData).toBeUndefined();
    const stored = await secret('creds');
    expect(stored.stringData).toBeUndefined();
    expect(stored.data).toEqual({ user: b64('admin'), password: b64('s3cr3t é'), keep: b64('kept') });
    const decoded = await kubectl(k.config, ['get', 'secret', 'creds', '-o', 'jsonpath={.data.password}']);
    expect(Buffer.from(decoded.stdout, 'base64').toString('utf8')).toBe('s3cr3t é');
  });

  it('patch and apply: stringData changes one key, the others stay', async () => {
    const patched = await kubectl(k.config, ['patch', 'secret', 'creds', '--type=merge', '-p', '{"stringData":{"user":"root"}}']);
    expect(patched.code, patched.stderr).toBe(0);
    let stored = await secret('creds');
    expect(stored.stringData).toBeUndefined();
    expect(stored.data).toEqual({ user: b64('root'), password: b64('s3cr3t é'), keep: b64('kept') });

    const applied = await kubectl(
      k.config,
      ['apply', '--server-side', '--force-conflicts', '-f', '-'],
      'apiVersion: v1\nkind: Secret\nmetadata: {name: creds}\nstringData: {token: abc}\n',
    );
    expect(applied.code, applied.stderr).toBe(0);
    stored = await secret('creds');
    expect(stored.stringData).toBeUndefined();
    expect(stored.data?.['token']).toBe(b64('abc'));
  });

  it('replace: stringData of a replacement is folded too', async () => {
    const replaced = await kubectl(k.config, ['replace', '-f', '-'], 'apiVersion: v1\nkind: Secret\nmetadata: {name: creds}\nstringData: {only: one}\n');
    expect(replaced.code, replaced.stderr).toBe(0);
    const stored = await secret('creds');
    expect(stored.stringData).toBeUndefined();
    expect(stored.data).toEqual({ only: b64('one') });
  });

  it('a bad stringData key is a 422 naming the field, and nothing is stored', async () => {
    const refused = await kubectl(k.config, ['create', '-f', '-'], 'apiVersion: v1\nkind: Secret\nmetadata: {name: bad}\nstringData: {"no/slash": x}\n');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/stringData/);
    const missing = await kubectl(k.config, ['get', 'secret', 'bad']);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('NotFound');
  });
});
