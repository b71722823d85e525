import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtin, Client } from '../../src/client/index.js';
import { garbageCollector, namespaceController } from '../../controllers/index.js';
import { eventually, isGone, loopHarness, type LoopHarness } from '../controllers/support.js';
import { kubectl, useKubectlServer } from '../support/kubectl.js';

// kubectl as the user: it deletes, svc's namespace controller and garbage collector finish the job.
describe('kubectl delete, with the namespace controller and the garbage collector running', () => {
  const k = useKubectlServer('svc-e2e-gc-');
  let client: Client;
  let loop: LoopHarness;

  beforeAll(async () => {
    client = await Client.fromSvcconfig(k.config);
    loop = loopHarness(client);
    loop.run(namespaceController(loop.ctx, { concurrency: 10, resyncPeriodMs: 300_000, contentRecheckMs: 100 }));
    loop.run(garbageCollector(loop.ctx, { concurrency: 20 }));
  });
  afterAll(async () => {
    loop.stop();
    await client.destroy();
  });

  it('kubectl delete namespace waits until the namespace and its content are gone', async () => {
    expect((await kubectl(k.config, ['create', 'namespace', 'shop'])).code).toBe(0);
    for (let i = 0; i < 5; i++) {
      expect((await kubectl(k.config, ['-n', 'shop', 'create', 'configmap', `c${i}`, '--from-literal=a=b'])).code).toBe(0);
      expect((await kubectl(k.config, ['-n', 'shop', 'create', 'secret', 'generic', `s${i}`, '--from-literal=a=b'])).code).toBe(0);
    }
    const deleted = await kubectl(k.config, ['delete', 'namespace', 'shop', '--timeout=60s']);
    expect(deleted.stderr).toBe('');
    expect(deleted.code).toBe(0);
    const get = await kubectl(k.config, ['get', 'namespace', 'shop']);
    expect(get.code).not.toBe(0);
    expect(get.stderr).toContain('NotFound');
  });

  it('kubectl delete --cascade=foreground returns once the dependents are gone', async () => {
    const owner = await client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner', namespace: 'default' } });
    const ref = { apiVersion: 'v1', kind: 'ConfigMap', name: 'owner', uid: owner.metadata.uid!, blockOwnerDeletion: true };
    await client.create(builtin.secrets, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'dependent', namespace: 'default', ownerReferences: [ref] } });
    const deleted = await kubectl(k.config, ['-n', 'default', 'delete', 'configmap', 'owner', '--cascade=foreground', '--timeout=60s']);
    expect(deleted.code).toBe(0);
    expect(await isGone(client.get(builtin.secrets, 'dependent', { namespace: 'default' }))).toBe(true);
    await eventually(() => isGone(client.get(builtin.configMaps, 'owner', { namespace: 'default' })), 'the owner to go');
  });

  it('kubectl delete --cascade=orphan leaves the dependents, without the reference', async () => {
    const owner = await client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'parent', namespace: 'default' } });
    await client.create(builtin.secrets, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: 'child', namespace: 'default', ownerReferences: [{ apiVersion: 'v1', kind: 'ConfigMap', name: 'parent', uid: owner.metadata.uid! }] },
    });
    expect((await kubectl(k.config, ['-n', 'default', 'delete', 'configmap', 'parent', '--cascade=orphan', '--timeout=60s'])).code).toBe(0);
    await eventually(() => isGone(client.get(builtin.configMaps, 'parent', { namespace: 'default' })), 'the owner to go');
    const child = await client.get(builtin.secrets, 'child', { namespace: 'default' });
    expect(child.metadata.ownerReferences ?? []).toEqual([]);
  });
});
