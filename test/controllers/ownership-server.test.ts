// Issue #21: ownership against a real svc-apiserver — the informer's owner index, and adoption and
// release (upstream's ControllerRefManager) through the Client's patch calls.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStatusError, type KubeObject, type OwnerReference } from '../../src/api/index.js';
import { builtin, Informer, InformerFactory } from '../../src/client/index.js';
import { claimObjects, controllerRef } from '../../controllers/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { until } from '../client/support.js';

const NS = 'owners';

describe('ownership against svc-apiserver', () => {
  let t: TestCluster;
  beforeAll(async () => {
    t = await startTestCluster({ namespaces: [NS] });
  });
  afterAll(() => t.stop());

  const createConfigMap = (name: string, labels: Record<string, string>, ownerReferences?: OwnerReference[]) =>
    t.client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS, labels, ...(ownerReferences ? { ownerReferences } : {}) } } as never);
  const configMap = createConfigMap;
  const deployment = (name: string, finalizers?: string[]) => {
    const labels = { app: name };
    return t.client.create(builtin.deployments, {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: NS, ...(finalizers ? { finalizers } : {}) },
      spec: { replicas: 0, selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
    } as never);
  };
  const read = (name: string) => t.client.get(builtin.configMaps, name, { namespace: NS });
  const owners = (object: KubeObject) => (object.metadata.ownerReferences ?? []).map((r) => `${r.kind}/${r.name}${r.controller ? '*' : ''}`);

  it.each(['eager', 'lazy', 'protobuf'] as const)('informer.byOwner follows owner references as objects are added, changed and deleted (%s cache)', async (decode) => {
    const owner = await createConfigMap(`${decode}-owner`, {});
    const uid = owner.metadata.uid!;
    const ref = controllerRef(owner);
    // Every cache keeps the owner index by default.
    const informer = new Informer(t.client, builtin.configMaps, { namespace: NS, decode, labelSelector: `mode=${decode}` });
    const configMap = (name: string, labels: Record<string, string>, ownerReferences?: OwnerReference[]) => createConfigMap(name, { ...labels, mode: decode }, ownerReferences);
    try {
      await informer.waitForSync();
      const names = () => informer.byOwner(uid).map((o) => o.metadata.name).sort();
      await configMap(`${decode}-a`, {}, [ref]);
      await configMap(`${decode}-b`, {}, [{ ...ref, controller: false }]);
      await configMap(`${decode}-c`, {});
      await until(() => names().length === 2, 'both dependents indexed');
      expect(names()).toEqual([`${decode}-a`, `${decode}-b`]);
      await t.client.patch(builtin.configMaps, `${decode}-a`, { metadata: { ownerReferences: null } }, { namespace: NS });
      await t.client.patch(builtin.configMaps, `${decode}-c`, { metadata: { ownerReferences: [ref] } }, { namespace: NS });
      await until(() => names().join() === `${decode}-b,${decode}-c`, 'the moved references');
      await t.client.delete(builtin.configMaps, `${decode}-b`, { namespace: NS });
      await until(() => names().join() === `${decode}-c`, 'the deleted dependent gone from the index');
    } finally {
      informer.stop();
    }
  });

  it.each(['eager', 'lazy', 'protobuf'] as const)('informer.orphansIn lists the namespace objects no controller owns, as references come and go (%s cache)', async (decode) => {
    const owner = await createConfigMap(`${decode}-orphan-owner`, {});
    const ref = controllerRef(owner);
    const informer = new Informer(t.client, builtin.configMaps, { namespace: NS, decode, labelSelector: `orphans=${decode}` });
    const configMap = (name: string, ownerReferences?: OwnerReference[]) => createConfigMap(name, { orphans: decode }, ownerReferences);
    try {
      await informer.waitForSync();
      const names = () => informer.orphansIn(NS).map((o) => o.metadata.name).sort();
      await configMap(`${decode}-oa`, [ref]);
      await configMap(`${decode}-ob`, [{ ...ref, controller: false }]);
      await configMap(`${decode}-oc`);
      await until(() => names().length === 2 && informer.store.list().length === 3, 'the orphans indexed');
      // A reference that is not the controller's leaves an object an orphan (upstream adopts it).
      expect(names()).toEqual([`${decode}-ob`, `${decode}-oc`]);
      expect(informer.orphansIn('elsewhere')).toEqual([]);
      await t.client.patch(builtin.configMaps, `${decode}-oa`, { metadata: { ownerReferences: null } }, { namespace: NS });
      await t.client.patch(builtin.configMaps, `${decode}-oc`, { metadata: { ownerReferences: [ref] } }, { namespace: NS });
      await until(() => names().join() === `${decode}-oa,${decode}-ob`, 'the released one an orphan, the adopted one not');
      await t.client.delete(builtin.configMaps, `${decode}-ob`, { namespace: NS });
      await until(() => names().join() === `${decode}-oa`, 'the deleted orphan gone from the index');
    } finally {
      informer.stop();
    }
  });

  it('an informer told ownerIndex: false keeps none (byOwner says so); a shared informer gains it when a later caller asks', () => {
    const lazy = new Informer(t.client, builtin.configMaps, { namespace: NS, decode: 'lazy', ownerIndex: false });
    expect(() => lazy.byOwner('u')).toThrow(/no index "owner"/);
    expect(lazy.store.indexNames()).toEqual(['namespace', 'labels']);
    const factory = new InformerFactory(t.client);
    const shared = factory.informer(builtin.configMaps, { namespace: NS, ownerIndex: false });
    expect(factory.informer(builtin.configMaps, { namespace: NS, ownerIndex: true })).toBe(shared);
    expect(shared.byOwner('u')).toEqual([]);
    expect(new Informer(t.client, builtin.configMaps, { namespace: NS, ownerIndex: false }).store.indexNames()).toEqual(['namespace', 'labels']);
  });

  it('adopts matching orphans, releases its own that stopped matching, claims its matching ones, and leaves the rest alone', async () => {
    const web = await deployment('web');
    const other = await deployment('other');
    const mine = controllerRef(web);
    const theirs = controllerRef(other);
    const bystander: OwnerReference = { apiVersion: 'v1', kind: 'ConfigMap', name: 'bystander', uid: 'bystander-uid' };
    const candidates = [
      await configMap('orphan-match', { app: 'web' }, [bystander]),
      await configMap('orphan-nomatch', { app: 'db' }),
      await configMap('owned-match', { app: 'web' }, [mine]),
      await configMap('owned-nomatch', { app: 'db' }, [bystander, mine]),
      await configMap('other-controller', { app: 'web' }, [theirs]),
    ];
    const result = await claimObjects({ client: t.client, owner: { object: web, resource: { ...builtin.deployments, kind: 'Deployment' } }, selector: web.spec!.selector!, resource: builtin.configMaps, candidates });
    expect(result.errors).toEqual([]);
    expect(result.adopted.map((o) => o.metadata.name)).toEqual(['orphan-match']);
    expect(result.released.map((o) => o.metadata.name)).toEqual(['owned-nomatch']);
    expect(result.claimed.map((o) => o.metadata.name).sort()).toEqual(['orphan-match', 'owned-match']);
    // The server agrees: the adopted one kept its other owner, the released one lost only this owner.
    expect(owners(await read('orphan-match'))).toEqual(['ConfigMap/bystander', 'Deployment/web*']);
    expect((await read('orphan-match')).metadata.ownerReferences?.[1]).toEqual({ ...mine });
    expect(owners(await read('owned-nomatch'))).toEqual(['ConfigMap/bystander']);
    expect(owners(await read('orphan-nomatch'))).toEqual([]);
    expect(owners(await read('other-controller'))).toEqual(['Deployment/other*']);
    expect((await read('owned-match')).metadata.resourceVersion).toBe(candidates[2]!.metadata.resourceVersion);
  });

  it('adopts only the version it judged: an object changed meanwhile is a 409 in errors, not taken', async () => {
    const owner = await deployment('racer');
    const stale = await configMap('raced', { app: 'racer' });
    // Another controller adopts it first; the cache (here: `stale`) has not seen that yet.
    const rival = await deployment('rival');
    await t.client.patch(builtin.configMaps, 'raced', { metadata: { ownerReferences: [controllerRef(rival)] } }, { namespace: NS });
    const result = await claimObjects({ client: t.client, owner: { object: owner, resource: { ...builtin.deployments, kind: 'Deployment' } }, selector: { matchLabels: { app: 'racer' } }, resource: builtin.configMaps, candidates: [stale] });
    expect(result.adopted).toEqual([]);
    expect(result.errors).toHaveLength(1);
    expect(isStatusError(result.errors[0], 'Conflict')).toBe(true);
    expect(owners(await read('raced'))).toEqual(['Deployment/rival*']);
  });

  it('adopts nothing and releases nothing while the owner is being deleted, even when its cached copy does not show it yet', async () => {
    const owner = await deployment('leaving', ['example.com/hold']);
    const orphan = await configMap('leaving-orphan', { app: 'leaving' });
    const strayed = await configMap('leaving-strayed', { app: 'elsewhere' }, [controllerRef(owner)]);
    await t.client.delete(builtin.deployments, 'leaving', { namespace: NS });
    const deleting = await t.client.get(builtin.deployments, 'leaving', { namespace: NS });
    expect(deleting.metadata.deletionTimestamp).toBeDefined();
    const resource = { ...builtin.deployments, kind: 'Deployment' };
    const claim = (object: KubeObject) => claimObjects({ client: t.client, owner: { object, resource }, selector: { matchLabels: { app: 'leaving' } }, resource: builtin.configMaps, candidates: [orphan, strayed] });
    // The stale copy (no deletionTimestamp): the fresh read before adopting stops the adoption.
    const stale = await claim(owner);
    expect(stale.adopted).toEqual([]);
    // The current copy: neither adoption nor release.
    const current = await claim(deleting);
    expect(current.adopted).toEqual([]);
    expect(current.released).toEqual([]);
    expect(owners(await read('leaving-orphan'))).toEqual([]);
    expect(owners(await read('leaving-strayed'))).toEqual(['Deployment/leaving*']);
    await t.client.patch(builtin.deployments, 'leaving', { metadata: { finalizers: null } }, { namespace: NS });
  });
});
