// A namespace as the serviceaccount loop leaves it: with its `default` ServiceAccount, which pods
// need (the ServiceAccount admission plugin refuses a pod whose account does not exist). The API
// server does not make it; suites that run no controller manager make it here.
import { isStatusError } from '../../src/api/index.js';
import { builtin, type Client } from '../../src/client/index.js';

export async function createNamespaceWithAccount(client: Client, name: string): Promise<void> {
  await client.create(builtin.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  await createDefaultAccount(client, name);
}

/** The `default` ServiceAccount of `namespace`; one there already (the loop was quicker) is fine. */
export async function createDefaultAccount(client: Client, namespace: string): Promise<void> {
  try {
    await client.create(builtin.serviceAccounts, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace } }, { namespace });
  } catch (error) {
    if (!isStatusError(error) || error.code !== 409) throw error;
  }
}
