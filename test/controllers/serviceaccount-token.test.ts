// The serviceaccount-token loop fills token Secrets (`kubernetes.io/service-account-token`, and
// svc's `svc.io/service-account-token`) with a legacy token signed by the manager's
// --service-account-private-key-file, ca.crt and namespace; the API server accepts that token
// while the secret holds it and its account exists. Against a real svc-apiserver (its own signing
// key given to the manager, as `svc up` does) and a manager started from its command line.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtin, Client, type ConnectionOptions } from '../../src/client/index.js';
import type { Secret } from '../../src/api/index.js';
import { kubectl } from '../support/kubectl.js';
import { eventually, startCluster, type Cluster } from './manager/support.js';

let cluster: Cluster;
let client: Client;
let rootCa: string;

const secretOf = (name: string, account: string, type = 'kubernetes.io/service-account-token', annotation = 'kubernetes.io/service-account.name'): Secret => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: 'default', annotations: { [annotation]: account } },
  type,
});
const decoded = (secret: Secret, key: string) => (secret.data?.[key] === undefined ? undefined : Buffer.from(secret.data[key]!, 'base64').toString('utf8'));
const read = async (name: string) => {
  try {
    return await client.get(builtin.secrets, name, { namespace: 'default' });
  } catch {
    return undefined;
  }
};
async function filled(name: string): Promise<Secret> {
  let found: Secret | undefined;
  await eventually(async () => {
    found = await read(name);
    return found !== undefined && decoded(found, 'token') !== undefined;
  }, `a token in ${name}`);
  return found!;
}
const asToken = (token: string): Client => new Client({ server: cluster.api.url, caData: cluster.api.caPem, token } satisfies ConnectionOptions);
const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;

beforeAll(async () => {
  cluster = await startCluster();
  client = cluster.client;
  rootCa = readFileSync(join(cluster.dir, 'pki', 'ca.crt'), 'utf8');
  await cluster.manager([
    '--controllers=serviceaccount,serviceaccount-token',
    `--service-account-private-key-file=${join(cluster.dir, 'service-account.key')}`,
    `--root-ca-file=${join(cluster.dir, 'pki', 'ca.crt')}`,
  ]);
  await client.create(builtin.serviceAccounts, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'robot', namespace: 'default' } }, { namespace: 'default' });
});
afterAll(() => cluster.close());

describe('serviceaccount-token loop', () => {
  it('fills a token secret with a legacy token, ca.crt, namespace and the account uid', async () => {
    const account = await client.get(builtin.serviceAccounts, 'robot', { namespace: 'default' });
    await client.create(builtin.secrets, secretOf('robot-token', 'robot'), { namespace: 'default' });
    const secret = await filled('robot-token');
    expect(decoded(secret, 'ca.crt')).toBe(rootCa);
    expect(decoded(secret, 'namespace')).toBe('default');
    expect(secret.metadata.annotations?.['kubernetes.io/service-account.uid']).toBe(account.metadata.uid);
    const claims = claimsOf(decoded(secret, 'token')!);
    expect(claims).toEqual({
      iss: 'kubernetes/serviceaccount',
      'kubernetes.io/serviceaccount/namespace': 'default',
      'kubernetes.io/serviceaccount/secret.name': 'robot-token',
      'kubernetes.io/serviceaccount/service-account.name': 'robot',
      'kubernetes.io/serviceaccount/service-account.uid': account.metadata.uid,
      sub: 'system:serviceaccount:default:robot',
    });
  });

  it('the API server takes the token as the account (Client and kubectl), until its secret is deleted', async () => {
    await client.create(builtin.secrets, secretOf('robot-login', 'robot'), { namespace: 'default' });
    const token = decoded(await filled('robot-login'), 'token')!;
    // Authenticated as the account: RBAC then refuses it by that name (no role is bound).
    const robot = asToken(token);
    await expect(robot.list(builtin.pods, { namespace: 'default' })).rejects.toMatchObject({
      code: 403,
      message: expect.stringContaining('User "system:serviceaccount:default:robot" cannot list resource "pods"'),
    });
    const run = await kubectl(cluster.api.svcconfigPath, ['--token', token, 'get', 'pods', '-n', 'default']);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('User "system:serviceaccount:default:robot" cannot list resource "pods"');
    // With a role bound, the same token reads.
    await client.create(builtin.roleBindings, {
      apiVersion: 'rbac.authorization.svc.io/v1',
      kind: 'RoleBinding',
      metadata: { name: 'robot-view', namespace: 'default' },
      roleRef: { apiGroup: 'rbac.authorization.svc.io', kind: 'ClusterRole', name: 'view' },
      subjects: [{ kind: 'ServiceAccount', name: 'robot', namespace: 'default' }],
    } as never, { namespace: 'default' });
    await eventually(async () => (await kubectl(cluster.api.svcconfigPath, ['--token', token, 'get', 'pods', '-n', 'default'])).code === 0, 'kubectl reading pods with the token');
    // The secret deleted: the token is refused (401), though the account still exists.
    await client.delete(builtin.secrets, 'robot-login', { namespace: 'default' });
    await eventually(async () => {
      try {
        await robot.list(builtin.pods, { namespace: 'default' });
        return false;
      } catch (error) {
        return (error as { code?: number }).code === 401;
      }
    }, 'the token refused');
    await robot.destroy();
  });

  it('records the day of use on the secret (last-used label), and refuses a token its secret marks invalid', async () => {
    await client.create(builtin.secrets, secretOf('robot-used', 'robot'), { namespace: 'default' });
    const token = decoded(await filled('robot-used'), 'token')!;
    const robot = asToken(token);
    const today = new Date().toISOString().slice(0, 10);
    // The account may read pods (the role bound above).
    await robot.list(builtin.pods, { namespace: 'default' });
    await eventually(async () => (await read('robot-used'))?.metadata.labels?.['kubernetes.io/legacy-token-last-used'] === today, 'the last-used label');
    // Marked invalid (as the legacy token cleaner does): 401; the mark removed: good again.
    await client.patch(builtin.secrets, 'robot-used', { metadata: { labels: { 'kubernetes.io/legacy-token-invalid-since': today } } }, { namespace: 'default' });
    await eventually(async () => (await robot.list(builtin.pods, { namespace: 'default' }).catch((e: { code?: number }) => e.code)) === 401, 'the marked token refused');
    await client.patch(builtin.secrets, 'robot-used', { metadata: { labels: { 'kubernetes.io/legacy-token-invalid-since': null } } } as never, { namespace: 'default' });
    await eventually(async () => (await robot.list(builtin.pods, { namespace: 'default' }).catch((e: { code?: number }) => e.code)) !== 401, 'the token good again');
    await robot.destroy();
  });

  it("fills svc's own type too, writing the uid in svc's spelling when the secret names the account that way", async () => {
    await client.create(builtin.secrets, secretOf('svc-style', 'robot', 'svc.io/service-account-token', 'svc.io/service-account.name'), { namespace: 'default' });
    const secret = await filled('svc-style');
    const account = await client.get(builtin.serviceAccounts, 'robot', { namespace: 'default' });
    expect(secret.metadata.annotations?.['svc.io/service-account.uid']).toBe(account.metadata.uid);
    expect(decoded(secret, 'namespace')).toBe('default');
  });

  it('leaves other secrets alone, and deletes a token secret whose account is gone or has another uid', async () => {
    await client.create(builtin.secrets, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'plain', namespace: 'default', annotations: { 'kubernetes.io/service-account.name': 'robot' } }, type: 'Opaque' }, { namespace: 'default' });
    await client.create(builtin.serviceAccounts, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'temp', namespace: 'default' } }, { namespace: 'default' });
    await client.create(builtin.secrets, secretOf('temp-token', 'temp'), { namespace: 'default' });
    await filled('temp-token');
    const stale = secretOf('stale-uid', 'robot');
    await client.create(builtin.secrets, { ...stale, metadata: { ...stale.metadata, annotations: { ...stale.metadata.annotations, 'kubernetes.io/service-account.uid': 'not-the-uid' } } }, { namespace: 'default' });
    await client.delete(builtin.serviceAccounts, 'temp', { namespace: 'default' });
    await eventually(async () => (await read('temp-token')) === undefined, "the deleted account's secret deleted");
    await eventually(async () => (await read('stale-uid')) === undefined, 'the secret naming another uid deleted');
    const plain = await read('plain');
    expect(plain?.data).toBeUndefined();
  });
});
