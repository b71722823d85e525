// The serviceaccount loop keeps the `default` ServiceAccount in every active namespace: made for
// new namespaces, made again when deleted, never in a terminating one. The API server no longer
// makes it, so with the loop off (`--controllers=*,-serviceaccount`) a new namespace has none and
// a pod there is refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtin, type Client } from '../../src/client/index.js';
import { ROOT_CA_CONFIGMAP, selectControllers } from '../../controllers/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { eventually } from './support.js';

const namespace = (name: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }) as const;
const pod = (name: string, ns: string) => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: ns }, spec: { containers: [{ name: 'c', image: 'busybox' }] } });

async function accountIn(client: Client, ns: string, name = 'default'): Promise<string | undefined> {
  try {
    return (await client.get(builtin.serviceAccounts, name, { namespace: ns })).metadata.uid;
  } catch {
    return undefined;
  }
}

describe('serviceaccount loop', () => {
  let cluster: TestCluster;
  let client: Client;
  beforeAll(async () => {
    cluster = await startTestCluster({ controllers: { controllers: ['serviceaccount-controller'] } });
    client = cluster.client;
  });
  afterAll(() => cluster.stop());

  it('makes the default account in a new namespace, and a pod there is then admitted', async () => {
    await client.create(builtin.namespaces, namespace('fresh'));
    await eventually(async () => (await accountIn(client, 'fresh')) !== undefined, 'default account in fresh');
    const created = await client.create(builtin.pods, pod('p', 'fresh'), { namespace: 'fresh' });
    expect(created.spec?.serviceAccountName).toBe('default');
  });

  it('makes it again when deleted, as a new object', async () => {
    await client.create(builtin.namespaces, namespace('again'));
    await eventually(async () => (await accountIn(client, 'again')) !== undefined, 'default account in again');
    const first = await accountIn(client, 'again');
    await client.delete(builtin.serviceAccounts, 'default', { namespace: 'again' });
    await eventually(async () => {
      const uid = await accountIn(client, 'again');
      return uid !== undefined && uid !== first;
    }, 'default account made again');
  });

  it('leaves other accounts alone: deleting one is not undone', async () => {
    await client.create(builtin.serviceAccounts, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'builder', namespace: 'fresh' } }, { namespace: 'fresh' });
    await client.delete(builtin.serviceAccounts, 'builder', { namespace: 'fresh' });
    // Deleting `default` too: once it is back, the loop has seen both deletions.
    const first = await accountIn(client, 'fresh');
    await client.delete(builtin.serviceAccounts, 'default', { namespace: 'fresh' });
    await eventually(async () => {
      const uid = await accountIn(client, 'fresh');
      return uid !== undefined && uid !== first;
    }, 'default account made again in fresh');
    expect(await accountIn(client, 'fresh', 'builder')).toBeUndefined();
  });

  it('makes none in a terminating namespace', async () => {
    await client.create(builtin.namespaces, { ...namespace('going'), spec: { finalizers: ['kubernetes'] } } as never);
    await eventually(async () => (await accountIn(client, 'going')) !== undefined, 'default account in going');
    // A ConfigMap keeps the namespace terminating (no namespace controller runs here to empty it).
    await client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'keep', namespace: 'going' } }, { namespace: 'going' });
    await client.delete(builtin.namespaces, 'going');
    await client.delete(builtin.serviceAccounts, 'default', { namespace: 'going' });
    // A later namespace is reconciled after going was: once it has its account, going was looked at.
    await client.create(builtin.namespaces, namespace('later'));
    await eventually(async () => (await accountIn(client, 'later')) !== undefined, 'default account in later');
    expect(await accountIn(client, 'going')).toBeUndefined();
  });
});

describe('--controllers=*,-serviceaccount', () => {
  let cluster: TestCluster;
  beforeAll(async () => {
    cluster = await startTestCluster({ controllers: { controllers: selectControllers(['*', '-serviceaccount']) } });
  });
  afterAll(() => cluster.stop());

  it('turns the loop off: a new namespace gets no account, and a pod there is refused with 403', async () => {
    const client = cluster.client;
    expect(selectControllers(['*'])).toContain('serviceaccount-controller');
    expect(selectControllers(['*', '-serviceaccount'])).not.toContain('serviceaccount-controller');
    await client.create(builtin.namespaces, namespace('bare'));
    // The root CA publisher runs in the same manager: once it has published there, the namespace was seen.
    await eventually(async () => {
      try {
        return (await client.get(builtin.configMaps, ROOT_CA_CONFIGMAP, { namespace: 'bare' })).data?.['ca.crt'] !== undefined;
      } catch {
        return false;
      }
    }, 'kube-root-ca.crt in bare');
    expect(await accountIn(client, 'bare')).toBeUndefined();
    await expect(client.create(builtin.pods, pod('p', 'bare'), { namespace: 'bare' })).rejects.toMatchObject({
      code: 403,
      message: expect.stringContaining('serviceaccount "default" not found'),
    });
  });
});
