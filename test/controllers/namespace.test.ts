import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { builtinTypes, ResourceRegistry, type KubeObject } from '../../src/api/index.js';
import { builtin, Client, type Resource } from '../../src/client/index.js';
import { namespaceController } from '../../controllers/index.js';
import { pvcProtectionController } from '../../controllers/pvc-protection/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { createDefaultAccount } from '../support/namespace-with-account.js';
import { eventually, isGone, loopHarness, type LoopHarness } from './support.js';
import { widgets, widgetType as makeWidgetType } from './widgets.js';

// A custom type without deletecollection: the controller finds it through discovery and deletes
// its objects one by one.
const widgetType = makeWidgetType(['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']);

const podSpec = { containers: [{ name: 'c', image: 'x' }] };
const template = { metadata: { labels: { app: 'a' } }, spec: podSpec };
/** Objects of one type, by index: every kind a namespace commonly holds. */
const KINDS: [Resource<KubeObject>, string, string, (i: number) => Record<string, unknown>][] = [
  [builtin.configMaps, 'v1', 'ConfigMap', (i) => ({ data: { i: String(i) } })],
  [builtin.secrets, 'v1', 'Secret', (i) => ({ stringData: { i: String(i) } })],
  [builtin.serviceAccounts, 'v1', 'ServiceAccount', () => ({})],
  [builtin.services, 'v1', 'Service', () => ({ spec: { ports: [{ port: 80 }] } })],
  [builtin.endpoints, 'v1', 'Endpoints', () => ({})],
  [builtin.pods, 'v1', 'Pod', () => ({ spec: podSpec })],
  [builtin.persistentVolumeClaims, 'v1', 'PersistentVolumeClaim', () => ({ spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } })],
  [builtin.coreEvents, 'v1', 'Event', (i) => ({ involvedObject: { kind: 'Pod', name: `p${i}` } })],
  [builtin.leases, 'coordination.k8s.io/v1', 'Lease', () => ({ spec: {} })],
  [builtin.roles, 'rbac.authorization.k8s.io/v1', 'Role', () => ({ rules: [] })],
  [builtin.replicaSets, 'apps/v1', 'ReplicaSet', () => ({ spec: { selector: { matchLabels: { app: 'a' } }, template } })],
  [builtin.deployments, 'apps/v1', 'Deployment', () => ({ spec: { selector: { matchLabels: { app: 'a' } }, template } })],
  [builtin.jobs, 'batch/v1', 'Job', () => ({ spec: { template: { spec: { ...podSpec, restartPolicy: 'Never' } } } })],
  [builtin.controllerRevisions, 'apps/v1', 'ControllerRevision', (i) => ({ revision: i })],
  [widgets, 'example.com/v1', 'Widget', () => ({ spec: {} })],
];

const namespace = (name: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });

async function fill(client: Client, ns: string, perKind: number): Promise<number> {
  await client.create(builtin.namespaces, namespace(ns));
  // The pods' account (no serviceaccount loop runs here).
  await createDefaultAccount(client, ns);
  let made = 0;
  for (const [res, apiVersion, kind, body] of KINDS) {
    await Promise.all(
      Array.from({ length: perKind }, (_, i) =>
        client.create(res, { apiVersion, kind, metadata: { name: `${kind.toLowerCase()}-${i}`, namespace: ns }, ...body(i) } as KubeObject).then(() => made++),
      ),
    );
  }
  return made;
}

async function countIn(client: Client, ns: string): Promise<number> {
  let n = 0;
  for (const [res] of KINDS) n += (await client.list(res, { namespace: ns })).items.length;
  return n;
}

describe('namespace controller against a real API server (svc/testing: HTTPS, memory store)', () => {
  let cluster: TestCluster;
  let client: Client;
  let loop: LoopHarness;

  beforeAll(async () => {
    cluster = await startTestCluster({ registry: new ResourceRegistry([...builtinTypes, widgetType]) });
    client = cluster.client;
    loop = loopHarness(client);
    loop.run(namespaceController(loop.ctx, { concurrency: 10, resyncPeriodMs: 300_000, contentRecheckMs: 100 }));
    // Claims are created with their protection finalizer (admission): the loop that removes it runs too.
    loop.run(pvcProtectionController(loop.ctx));
  });
  afterAll(async () => {
    loop.stop();
    await cluster.stop();
  });

  it('empties a deleted namespace of hundreds of objects of every type, custom ones included, and removes it', async () => {
    const made = await fill(client, 'doomed', 20);
    await fill(client, 'kept', 2);
    expect(made).toBe(20 * KINDS.length);

    await client.delete(builtin.namespaces, 'doomed');
    await eventually(() => isGone(client.get(builtin.namespaces, 'doomed')), 'namespace doomed to go');

    expect(await countIn(client, 'doomed')).toBe(0);
    // Another namespace's content is untouched (plus its `default` ServiceAccount).
    expect(await countIn(client, 'kept')).toBe(2 * KINDS.length + 1);
    expect((await client.get(builtin.namespaces, 'kept')).status?.phase).toBe('Active');
  });

  it('leaves a namespace that is not being deleted alone', async () => {
    await client.create(builtin.namespaces, namespace('live'));
    await client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'live' } });
    const ns = await client.get(builtin.namespaces, 'live');
    // A write to the namespace triggers a sync of it.
    await client.patch(builtin.namespaces, 'live', { metadata: { labels: { touched: 'yes' } } });
    await eventually(() => loop.results.some((r) => r.key === 'live' && r.attempts >= 1), 'a sync of live');
    expect((await client.get(builtin.configMaps, 'c', { namespace: 'live' })).metadata.uid).toBeDefined();
    expect((await client.get(builtin.namespaces, 'live')).spec?.finalizers).toEqual(ns.spec?.finalizers);
  });

  it('reports content and finalizers that remain in the status conditions, and finishes once they are gone', async () => {
    await client.create(builtin.namespaces, namespace('held'));
    await client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'pinned', namespace: 'held', finalizers: ['example.com/hold'] } });
    await client.create(builtin.secrets, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'free', namespace: 'held' } });
    await client.delete(builtin.namespaces, 'held');

    const conditionsOf = async () => Object.fromEntries(((await client.get(builtin.namespaces, 'held')).status?.conditions ?? []).map((c) => [c.type, c]));
    await eventually(async () => (await conditionsOf())['NamespaceFinalizersRemaining']?.status === 'True', 'the finalizers condition');
    const conditions = await conditionsOf();
    expect(conditions['NamespaceFinalizersRemaining']).toMatchObject({ reason: 'SomeFinalizersRemain', message: expect.stringContaining('example.com/hold in 1 resource instances') });
    expect(conditions['NamespaceContentRemaining']).toMatchObject({ status: 'True', reason: 'SomeResourcesRemain', message: expect.stringContaining('configmaps. has 1 resource instances') });
    expect(conditions['NamespaceDeletionContentFailure']).toMatchObject({ status: 'False', reason: 'ContentDeleted' });
    expect(conditions['NamespaceDeletionDiscoveryFailure']).toMatchObject({ status: 'False', reason: 'ResourcesDiscovered' });
    for (const c of Object.values(conditions)) expect(c.lastTransitionTime).toMatch(/Z$/);

    const held = await client.get(builtin.namespaces, 'held');
    expect(held.status?.phase).toBe('Terminating');
    expect(held.spec?.finalizers).toContain('kubernetes');
    expect(await isGone(client.get(builtin.secrets, 'free', { namespace: 'held' }))).toBe(true);
    const pinned = await client.get(builtin.configMaps, 'pinned', { namespace: 'held' });
    expect(pinned.metadata.deletionTimestamp).toBeDefined();

    await client.patch(builtin.configMaps, 'pinned', { metadata: { finalizers: null } }, { namespace: 'held' });
    await eventually(() => isGone(client.get(builtin.namespaces, 'held')), 'namespace held to go');
  });

  it('removes only its own finalizer: a namespace with another spec finalizer stays, emptied', async () => {
    await client.create(builtin.namespaces, { ...namespace('shared'), spec: { finalizers: ['example.com/other'] } });
    await client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'shared' } });
    await client.delete(builtin.namespaces, 'shared');
    await eventually(async () => !(await client.get(builtin.namespaces, 'shared')).spec?.finalizers?.includes('kubernetes'), 'the kubernetes finalizer to go');
    const ns = await client.get(builtin.namespaces, 'shared');
    expect(ns.spec?.finalizers).toEqual(['example.com/other']);
    expect(await isGone(client.get(builtin.configMaps, 'c', { namespace: 'shared' }))).toBe(true);
  });
});
