// The root CA publisher keeps kube-root-ca.crt (the CA pods' service-account volumes read) in
// every namespace: created for new namespaces, restored when deleted or edited, never written
// into a terminating namespace.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtin, type Client } from '../../src/client/index.js';
import { ROOT_CA_CONFIGMAP } from '../../controllers/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { eventually } from './support.js';

const CA = '-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n';
let cluster: TestCluster;
let client: Client;

const caIn = async (namespace: string): Promise<string | undefined> => {
  try {
    return (await client.get(builtin.configMaps, ROOT_CA_CONFIGMAP, { namespace })).data?.['ca.crt'];
  } catch {
    return undefined;
  }
};

// The loop as the controller manager runs it (its registry, its settings).
beforeAll(async () => {
  cluster = await startTestCluster({ controllers: { controllers: ['root-ca-certificate-publisher-controller'], loopSettings: { rootCa: CA } } });
  client = cluster.client;
});
afterAll(() => cluster.stop());

describe('root CA publisher', () => {
  it('publishes the CA into existing and new namespaces', async () => {
    await eventually(async () => (await caIn('default')) === CA, 'kube-root-ca.crt in default');
    await client.create(builtin.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fresh' } });
    await eventually(async () => (await caIn('fresh')) === CA, 'kube-root-ca.crt in a new namespace');
  });

  it('restores a deleted or edited copy', async () => {
    await eventually(async () => (await caIn('default')) === CA, 'the first copy');
    await client.delete(builtin.configMaps, ROOT_CA_CONFIGMAP, { namespace: 'default' });
    await eventually(async () => (await caIn('default')) === CA, 'the copy recreated');
    const current = await client.get(builtin.configMaps, ROOT_CA_CONFIGMAP, { namespace: 'default' });
    await client.update(builtin.configMaps, { ...current, data: { 'ca.crt': 'tampered' } }, { namespace: 'default' });
    await eventually(async () => (await caIn('default')) === CA, 'the CA put back');
  });

  it('does not publish into a terminating namespace', async () => {
    await client.create(builtin.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'going', finalizers: [] }, spec: { finalizers: ['kubernetes'] } } as never);
    await eventually(async () => (await caIn('going')) === CA, 'the copy in going');
    await client.delete(builtin.namespaces, 'going');
    await client.delete(builtin.configMaps, ROOT_CA_CONFIGMAP, { namespace: 'going' });
    // Another namespace's change is processed after this one's: once fresh2 has its copy, going was looked at and left alone.
    await client.create(builtin.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fresh2' } });
    await eventually(async () => (await caIn('fresh2')) === CA, 'kube-root-ca.crt in fresh2');
    expect(await caIn('going')).toBeUndefined();
  });
});
