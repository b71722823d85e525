// The resourcequota loop keeps every quota's status (hard, used) true, counted with the same
// calculation the API server's ResourceQuota admission charges with (src/api/quota): after a
// series of admitted creates the loop finds nothing to correct (the two agree), and it corrects
// what admission does not see: a pod that finished, a tampered status, a pod whose deletion grace
// period ran out (only the periodic recount sees that). Bad quotas are refused with 422.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { milliQuantity, type KubeObject, type ResourceQuota } from '../../src/api/index.js';
import { builtin, type Client } from '../../src/client/index.js';
import { resourceQuotaController } from '../../controllers/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { eventually, loopHarness, type LoopHarness } from './support.js';
import { Widget, widgets } from './widgets.js';

const NS = 'agree';
const LOOP_AGENT = 'quota-loop-under-test';
let cluster: TestCluster;
let client: Client;
let harness: LoopHarness | undefined;

const quota = (name: string, hard: Record<string, string>, spec: Record<string, unknown> = {}): ResourceQuota =>
  ({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name, namespace: NS }, spec: { hard, ...spec } }) as ResourceQuota;
const resources = (cpu: string, memory: string) => ({ requests: { cpu, memory }, limits: { cpu, memory } });
const pod = (name: string, spec: Record<string, unknown>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: NS },
  spec: { containers: [{ name: 'c', image: 'busybox' }], ...spec },
});
const container = (res: unknown) => [{ name: 'c', image: 'busybox', resources: res }];
const used = async (name: string) => {
  const status = (await client.get(builtin.resourceQuotas, name, { namespace: NS })).status;
  return Object.fromEntries(Object.entries(status?.used ?? {}).map(([k, v]) => [k, milliQuantity(v)! / 1000]));
};
const Mi = 2 ** 20;
const Gi = 2 ** 30;

beforeAll(async () => {
  cluster = await startTestCluster({ namespaces: [NS], controllers: { controllers: ['serviceaccount-controller'] } });
  client = cluster.client;
  await eventually(() => client.get(builtin.serviceAccounts, 'default', { namespace: NS }).then(() => true, () => false), 'the default account');
});
afterAll(async () => {
  harness?.stop();
  await cluster.stop();
});

describe('resourcequota loop', () => {
  it('agrees with admission: after admitted creates it has nothing to correct', async () => {
    // The quotas first: every object after them is charged by admission.
    await client.create(
      builtin.resourceQuotas,
      quota('a-counts', {
        'count/pods': '50', pods: '50', services: '10', 'services.nodeports': '10', 'services.loadbalancers': '5', configmaps: '10', secrets: '10',
        persistentvolumeclaims: '10', 'requests.storage': '100Gi', 'gold.storageclass.storage.k8s.io/requests.storage': '50Gi',
        'gold.storageclass.storage.k8s.io/persistentvolumeclaims': '5', resourcequotas: '10', 'count/deployments.apps': '5',
        'count/roles.rbac.authorization.k8s.io': '5', 'count/configmaps': '10',
      }),
    );
    await client.create(builtin.resourceQuotas, quota('b-compute', { pods: '50', 'requests.cpu': '10', cpu: '10', 'limits.cpu': '20', 'requests.memory': '10Gi', memory: '10Gi', 'limits.memory': '20Gi' }, { scopes: ['NotBestEffort'] }));
    await client.create(builtin.resourceQuotas, quota('c-besteffort', { pods: '10' }, { scopes: ['BestEffort'] }));
    await client.create(builtin.resourceQuotas, quota('d-terminating', { pods: '10', 'requests.cpu': '10' }, { scopes: ['Terminating'] }));
    await client.create(
      builtin.resourceQuotas,
      quota('e-high', { pods: '10', 'requests.cpu': '10' }, { scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In', values: ['high'] }] } }),
    );

    const create = (res: Parameters<Client['create']>[0], object: KubeObject) => client.create(res, object, { namespace: NS });
    await create(builtin.pods, pod('be1', {}));
    await create(builtin.pods, pod('burst1', { containers: container({ requests: { cpu: '100m', memory: '64Mi' }, limits: { cpu: '200m', memory: '128Mi' } }) }));
    await create(builtin.pods, pod('term1', { activeDeadlineSeconds: 60, containers: container(resources('250m', '32Mi')) }));
    await create(builtin.pods, pod('prio1', { priorityClassName: 'high', nodeName: 'node-x', containers: container(resources('500m', '100Mi')) }));
    await create(builtin.pods, pod('init1', { initContainers: [{ name: 'i', image: 'busybox', resources: resources('1', '64Mi') }], containers: container(resources('300m', '32Mi')) }));
    const svc = (name: string, type: string, ports: number) => ({
      apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: NS },
      spec: { type, selector: { app: name }, ports: Array.from({ length: ports }, (_, i) => ({ name: `p${i}`, port: 80 + i })) },
    });
    await create(builtin.services, svc('plain', 'ClusterIP', 1));
    await create(builtin.services, svc('np', 'NodePort', 2));
    await create(builtin.services, svc('lb', 'LoadBalancer', 1));
    await create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm1', namespace: NS } });
    await create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm2', namespace: NS } });
    await create(builtin.secrets, { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1', namespace: NS } });
    const pvc = (name: string, size: string, storageClassName?: string) => ({
      apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name, namespace: NS },
      spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } }, ...(storageClassName ? { storageClassName } : {}) },
    });
    await create(builtin.persistentVolumeClaims, pvc('gold1', '1Gi', 'gold'));
    await create(builtin.persistentVolumeClaims, pvc('plain1', '2Gi'));
    await create(builtin.deployments, {
      apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd1', namespace: NS },
      spec: { selector: { matchLabels: { app: 'd1' } }, template: { metadata: { labels: { app: 'd1' } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } } },
    });
    await create(builtin.roles, { apiVersion: 'rbac.authorization.svc.io/v1', kind: 'Role', metadata: { name: 'r1', namespace: NS }, rules: [] });

    // What admission charged, before the loop runs.
    const names = ['a-counts', 'b-compute', 'c-besteffort', 'd-terminating', 'e-high'];
    const charged = Object.fromEntries(await Promise.all(names.map(async (n) => [n, await used(n)] as const)));
    expect(charged['a-counts']).toMatchObject({
      'count/pods': 5, pods: 5, services: 3, 'services.nodeports': 3, 'services.loadbalancers': 1, configmaps: 2, 'count/configmaps': 2, secrets: 1,
      persistentvolumeclaims: 2, 'requests.storage': 3 * Gi, 'gold.storageclass.storage.k8s.io/requests.storage': Gi,
      'gold.storageclass.storage.k8s.io/persistentvolumeclaims': 1, resourcequotas: 5, 'count/deployments.apps': 1, 'count/roles.rbac.authorization.k8s.io': 1,
    });
    expect(charged['b-compute']).toEqual({
      pods: 4, 'requests.cpu': 1.85, cpu: 1.85, 'limits.cpu': 1.95, 'requests.memory': 260 * Mi, memory: 260 * Mi, 'limits.memory': 324 * Mi,
    });
    expect(charged['c-besteffort']).toEqual({ pods: 1 });
    expect(charged['d-terminating']).toEqual({ pods: 1, 'requests.cpu': 0.25 });
    expect(charged['e-high']).toEqual({ pods: 1, 'requests.cpu': 0.5 });

    // The loop, one quota at a time (in list order), with its own User-Agent and a short resync.
    harness = loopHarness(cluster.newClient({ userAgent: LOOP_AGENT }));
    harness.run(resourceQuotaController(harness.ctx, { concurrency: 1, resyncPeriodMs: 300 }));
    await eventually(() => names.every((n) => harness!.results.some((r) => r.key === `${NS}/${n}` && r.type === 'awaitChange')), 'every quota recounted');
    // Same numbers, and not one write: the loop's count is admission's.
    expect(cluster.writes(LOOP_AGENT)).toBe(0);
    for (const n of names) expect(await used(n)).toEqual(charged[n]);
  });

  it('recounts when a pod finishes: it leaves pods and compute, stays in count/pods', async () => {
    const burst = await client.get(builtin.pods, 'burst1', { namespace: NS });
    await client.updateStatus(builtin.pods, { ...burst, status: { ...burst.status, phase: 'Succeeded' } }, { namespace: NS });
    await eventually(async () => (await used('b-compute'))['pods'] === 3, 'compute quota recounted');
    expect(await used('b-compute')).toMatchObject({ pods: 3, 'requests.cpu': 1.75, 'limits.cpu': 1.75, 'requests.memory': 196 * Mi });
    await eventually(async () => (await used('a-counts'))['pods'] === 4, 'pods recounted');
    expect((await used('a-counts'))['count/pods']).toBe(5);
  });

  it('puts a tampered status right, and fills hard from the spec', async () => {
    const q = await client.get(builtin.resourceQuotas, 'a-counts', { namespace: NS });
    await client.updateStatus(builtin.resourceQuotas, { ...q, status: { hard: { configmaps: '99' }, used: { ...q.status?.used, configmaps: '7' } } }, { namespace: NS });
    await eventually(async () => (await used('a-counts'))['configmaps'] === 2, 'configmaps recounted');
    const status = (await client.get(builtin.resourceQuotas, 'a-counts', { namespace: NS })).status;
    expect(status?.hard).toEqual(q.spec?.hard);
  });

  it('recounts a deletion', async () => {
    await client.delete(builtin.configMaps, 'cm1', { namespace: NS });
    await eventually(async () => (await used('a-counts'))['configmaps'] === 1, 'a deleted configmap uncounted');
  });

  it('only the periodic recount sees a deletion grace period run out', async () => {
    // Bound to a node, the pod stays until its (absent) node agent confirms: only time changes its count.
    await client.delete(builtin.pods, 'prio1', { namespace: NS, gracePeriodSeconds: 1 });
    const stays = await client.get(builtin.pods, 'prio1', { namespace: NS });
    expect(stays.metadata.deletionTimestamp).toBeDefined();
    await eventually(async () => (await used('e-high'))['pods'] === 0, 'the pod past its grace period uncounted');
    expect((await used('a-counts'))['count/pods']).toBe(5);
  });
});

describe('bad quotas: 422 naming the field, nothing stored', () => {
  const refused = async (name: string, hard: Record<string, string>, spec: Record<string, unknown>, field: RegExp) => {
    const error = await client.create(builtin.resourceQuotas, quota(name, hard, spec)).then(() => undefined, (e: unknown) => e);
    expect(error).toMatchObject({ code: 422, reason: 'Invalid' });
    const { message, details } = error as { message: string; details?: { causes?: { field?: string }[] } };
    expect(message).toMatch(field);
    expect(details?.causes?.some((c) => field.test(c.field ?? ''))).toBe(true);
    await expect(client.get(builtin.resourceQuotas, name, { namespace: NS })).rejects.toMatchObject({ code: 404 });
  };

  it('an amount that is not a quantity', () => refused('bad-quantity', { cpu: 'lots' }, {}, /spec\.hard\[?\.?cpu/));
  it('a negative amount', () => refused('bad-negative', { pods: '-1' }, {}, /spec\.hard\[pods\]/));
  it('a fraction of a counted object', () => refused('bad-fraction', { pods: '1500m' }, {}, /spec\.hard\[pods\]/));
  it('a resource that is not a quota resource', () => refused('bad-name', { widgets: '3' }, {}, /spec\.hard\[widgets\]/));
  it('an unknown scope', () => refused('bad-scope', { pods: '3' }, { scopes: ['Sometimes'] }, /spec\.scopes/));
  it('a scope that cannot limit a resource', () => refused('bad-mismatch', { 'requests.cpu': '1' }, { scopes: ['BestEffort'] }, /spec\.scopes/));
  it('scopes that exclude each other', () => refused('bad-conflict', { pods: '3' }, { scopes: ['Terminating', 'NotTerminating'] }, /spec\.scopes/));
  it('an unknown scope in the selector', () =>
    refused('bad-selector', { pods: '3' }, { scopeSelector: { matchExpressions: [{ scopeName: 'Nope', operator: 'Exists' }] } }, /spec\.scopeSelector\.matchExpressions\[0\]\.scopeName/));
  it('In without values', () =>
    refused('bad-in', { pods: '3' }, { scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In' }] } }, /spec\.scopeSelector\.matchExpressions\[0\]\.values/));
  it('an update that breaks the rules is refused and changes nothing', async () => {
    await client.create(builtin.resourceQuotas, quota('good', { pods: '3' }));
    const error = await client.patch(builtin.resourceQuotas, 'good', { spec: { scopes: ['BestEffort'], hard: { 'limits.cpu': '1' } } }, { namespace: NS }).then(() => undefined, (e: unknown) => e);
    expect(error).toMatchObject({ code: 422 });
    const stored = await client.get(builtin.resourceQuotas, 'good', { namespace: NS });
    expect(stored.spec).toEqual({ hard: { pods: '3' } });
  });
});

describe('a custom resource counted by count/<resource>.<group>', () => {
  it('found by discovery, counted from a metadata-only informer, a tampered count put right', async () => {
    await using custom = await startTestCluster({ namespaces: ['cr'], customResources: [Widget] });
    const c = custom.client;
    await c.create(builtin.resourceQuotas, { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'w', namespace: 'cr' }, spec: { hard: { 'count/widgets.example.com': '5' } } } as ResourceQuota, { namespace: 'cr' });
    for (const name of ['a', 'b']) await c.create(widgets, { apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name, namespace: 'cr' } }, { namespace: 'cr' });
    const count = async () => (await c.get(builtin.resourceQuotas, 'w', { namespace: 'cr' })).status?.used?.['count/widgets.example.com'];
    await eventually(async () => (await count()) === '2', 'admission charged two widgets');
    const loop = loopHarness(custom.newClient({ userAgent: LOOP_AGENT }));
    try {
      loop.run(resourceQuotaController(loop.ctx, { resyncPeriodMs: 0 }));
      const q = await c.get(builtin.resourceQuotas, 'w', { namespace: 'cr' });
      await c.updateStatus(builtin.resourceQuotas, { ...q, status: { ...q.status, used: { 'count/widgets.example.com': '0' } } }, { namespace: 'cr' });
      await eventually(async () => (await count()) === '2', 'the loop recounted the widgets');
      expect(custom.writes(LOOP_AGENT)).toBeGreaterThan(0);
    } finally {
      loop.stop();
    }
  });
});
