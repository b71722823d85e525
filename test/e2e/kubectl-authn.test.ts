import { describe, expect, it } from 'vitest';
import { kubectl, useKubectlServer } from '../support/kubectl.js';

const k = useKubectlServer('svc-e2e-authn-', 'memory');

/** As the admin, with kubectl: RBAC is on, so a service account's token may only do what it is granted. */
async function grantView(account: string) {
  const bound = await kubectl(k.config, ['create', 'clusterrolebinding', `${account}-view`, '--clusterrole=view', `--serviceaccount=default:${account}`]);
  expect(bound.stderr).toBe('');
  expect(bound.code).toBe(0);
}

const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());

describe('kubectl and service-account tokens', () => {
  it('kubectl create token mints a token that kubectl can use', async () => {
    expect((await kubectl(k.config, ['create', 'serviceaccount', 'robot'])).code).toBe(0);
    const created = await kubectl(k.config, ['create', 'token', 'robot']);
    expect(created.stderr).toBe('');
    expect(created.code).toBe(0);
    const token = created.stdout.trim();
    expect(claimsOf(token)).toMatchObject({ sub: 'system:serviceaccount:default:robot', iss: 'https://kubernetes.default.svc.cluster.local' });

    // The server knows the token's holder: RBAC refuses it by name until it is granted something.
    const refused = await kubectl(k.config, ['--token', token, 'get', 'serviceaccount', 'robot', '-o', 'name']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('User "system:serviceaccount:default:robot" cannot get resource "serviceaccounts" in API group "" in the namespace "default"');
    await grantView('robot');
    const used = await kubectl(k.config, ['--token', token, 'get', 'serviceaccount', 'robot', '-o', 'name']);
    expect(used.stderr).toBe('');
    expect(used.stdout.trim()).toBe('serviceaccount/robot');
  });

  it('passes --duration and --audience through, and reports the server\'s refusals', async () => {
    await kubectl(k.config, ['create', 'serviceaccount', 'builder']);
    const long = await kubectl(k.config, ['create', 'token', 'builder', '--duration=2h', '--audience=vault']);
    expect(long.code).toBe(0);
    const claims = claimsOf(long.stdout.trim());
    expect(claims.aud).toEqual(['vault']);
    expect(claims.exp - claims.iat).toBe(7200);
    // Minted for vault, not for the API.
    const refused = await kubectl(k.config, ['--token', long.stdout.trim(), 'get', 'ns']);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/Unauthorized|must be logged in/);

    const short = await kubectl(k.config, ['create', 'token', 'builder', '--duration=5m']);
    expect(short.code).not.toBe(0);
    expect(short.stderr).toMatch(/less than 10 minutes/);
    const ghost = await kubectl(k.config, ['create', 'token', 'ghost']);
    expect(ghost.code).not.toBe(0);
    expect(ghost.stderr).toMatch(/not found/);
  });

  it('binds a token to a pod with --bound-object-kind', async () => {
    await kubectl(k.config, ['create', 'serviceaccount', 'runner']);
    await grantView('runner');
    const pod = 'apiVersion: v1\nkind: Pod\nmetadata: {name: job-1}\nspec: {serviceAccountName: runner, containers: [{name: c, image: busybox}]}\n';
    expect((await kubectl(k.config, ['apply', '-f', '-'], pod)).code).toBe(0);
    const bound = await kubectl(k.config, ['create', 'token', 'runner', '--bound-object-kind=Pod', '--bound-object-name=job-1']);
    expect(bound.stderr).toBe('');
    expect(claimsOf(bound.stdout.trim())['kubernetes.io'].pod.name).toBe('job-1');
    expect((await kubectl(k.config, ['--token', bound.stdout.trim(), 'get', 'ns'])).code).toBe(0);
  });

  it('a token stops working when its service account is deleted', async () => {
    await kubectl(k.config, ['create', 'serviceaccount', 'temp']);
    await grantView('temp');
    const token = (await kubectl(k.config, ['create', 'token', 'temp'])).stdout.trim();
    expect((await kubectl(k.config, ['--token', token, 'get', 'ns'])).code).toBe(0);
    expect((await kubectl(k.config, ['delete', 'serviceaccount', 'temp'])).code).toBe(0);
    const after = await kubectl(k.config, ['--token', token, 'get', 'ns']);
    expect(after.code).not.toBe(0);
    expect(after.stderr).toMatch(/Unauthorized|must be logged in/);
  });
});
