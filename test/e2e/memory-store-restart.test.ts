// Issue #21: after a memory-store server restarted, a running informer and the controller manager
// never saw another change — they resumed their watches from a version the new server had not
// reached, and the server waited on it forever. Now the server answers 504 "Too large resource
// version" after a brief wait, the watchers relist, and the caches converge.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startApiServer, type RunningApiServer } from '../../src/cli/apiserver-command.js';
import { startControllerManagerFromArgs } from '../../src/cli/controller-manager-command.js';
import { silentLog, type RunningControllerManager } from '../../controllers/manager/index.js';
import { ROOT_CA_CONFIGMAP } from '../../controllers/index.js';
import { builtin, Client, Informer, isTooLargeResourceVersion } from '../../src/client/index.js';
import { eventually } from '../controllers/manager/support.js';
import { freePort } from '../support/free-port.js';

const FAST = { backoff: { initialMs: 50, maxMs: 500 } } as const;

describe('a memory-store API server restarted under a running informer and controller manager', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-restart-'));
  let api: RunningApiServer | undefined;
  let manager: RunningControllerManager | undefined;
  let client: Client | undefined;
  let informer: Informer<import('../../src/api/index.js').ConfigMap> | undefined;
  afterAll(async () => {
    informer?.stop();
    await manager?.close();
    await client?.destroy();
    await api?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('both converge: the informer sees objects created after the restart, and a new namespace gets its kube-root-ca.crt', async () => {
    const port = await freePort();
    const args = ['--storage=memory', `--secure-port=${port}`, '--bind-address=127.0.0.1', `--data-dir=${dir}`];
    api = await startApiServer(args);
    client = await Client.fromSvcconfig(api.svcconfigPath);
    // Enough writes that the versions the watchers hold are ahead of what the new server will reach.
    for (let i = 0; i < 40; i++) {
      await client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: `before-${i}` }, data: {} }, { namespace: 'default' });
    }
    const errors: unknown[] = [];
    informer = new Informer(client, builtin.configMaps, { ...FAST, onError: (e) => errors.push(e) });
    await informer.waitForSync();
    manager = await startControllerManagerFromArgs([`--svcconfig=${api.svcconfigPath}`, '--secure-port=0', '--leader-elect=false', '--controllers=root-ca-cert-publisher'], silentLog);
    await eventually(async () => (await caOf('default')) !== undefined, 'the manager to publish the root CA before the restart');

    await api.close();
    api = await startApiServer(args); // same port, same certificates and token: the clients carry on
    await client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after' }, data: {} }, { namespace: 'default' });
    await client.create(builtin.namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'fresh' } });

    await eventually(() => informer!.store.get('default/after') !== undefined, 'the informer to see an object created after the restart', 30_000);
    await eventually(async () => (await caOf('fresh')) !== undefined, 'the new namespace to get its kube-root-ca.crt', 30_000);
    // The informer's cache is the new server's: the objects of the old one are gone.
    await eventually(() => informer!.store.get('default/before-0') === undefined, 'the relist to drop what the restart lost', 30_000);
    expect(errors.some(isTooLargeResourceVersion)).toBe(true);
  });

  async function caOf(namespace: string): Promise<string | undefined> {
    try {
      return (await client!.get(builtin.configMaps, ROOT_CA_CONFIGMAP, { namespace })).data?.['ca.crt'];
    } catch {
      return undefined;
    }
  }
});
