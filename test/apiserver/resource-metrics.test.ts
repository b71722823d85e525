// The resource metrics API: usage as the slope of a CPU counter between two samples, the Summary
// API read into samples, and the served types against a real API server (no node agents here:
// discovery, empty lists, 404 for an object without usage; the figures from real containers are
// test/e2e/svc-up-autoscale.test.ts's).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { advance, summarySamples, usageOf } from '../../src/apiserver/resource-metrics/index.js';
import { builtin, resource, type Client } from '../../src/client/index.js';
import { startTestCluster, type TestCluster } from '../../src/testing/index.js';
import { eventually } from '../controllers/support.js';

describe('usage from counter samples', () => {
  it('needs two samples; CPU is the slope in nanocores, memory the latest', () => {
    const first = advance(undefined, { atMs: 1_000, cpuNanos: 5e9, memoryBytes: 100 });
    expect(usageOf(first)).toBeUndefined();
    // 0.5 s of CPU in 2 s: a quarter core.
    const second = advance(first, { atMs: 3_000, cpuNanos: 5.5e9, memoryBytes: 200 });
    expect(usageOf(second)).toEqual({ nanoCores: 250_000_000, memoryBytes: 200, timestampMs: 3_000, windowMs: 2_000 });
  });

  it('ignores a sample no newer than the last, and starts over when the counter goes back', () => {
    const series = advance(advance(undefined, { atMs: 1_000, cpuNanos: 5e9, memoryBytes: 1 }), { atMs: 2_000, cpuNanos: 6e9, memoryBytes: 1 });
    expect(advance(series, { atMs: 2_000, cpuNanos: 9e9, memoryBytes: 1 })).toBe(series);
    const restarted = advance(series, { atMs: 3_000, cpuNanos: 1e6, memoryBytes: 1 });
    expect(usageOf(restarted)).toBeUndefined();
  });

  it('reads a Summary: the node, each pod container, and leaves out what is incomplete', () => {
    const summary = {
      node: { nodeName: 'n', cpu: { time: '2026-01-01T00:00:10.000Z', usageCoreNanoSeconds: 7e9 }, memory: { time: '2026-01-01T00:00:10.000Z', workingSetBytes: 4096 } },
      pods: [
        {
          podRef: { name: 'web', namespace: 'default', uid: 'u1' },
          containers: [
            { name: 'c', cpu: { time: '2026-01-01T00:00:09.500Z', usageCoreNanoSeconds: 3e8 }, memory: { workingSetBytes: 2048 } },
            { name: 'no-cpu', memory: { workingSetBytes: 1 } },
          ],
        },
        { podRef: { name: 'no-uid', namespace: 'default' }, containers: [] },
      ],
    };
    const samples = summarySamples(summary, 0);
    expect(samples.node).toEqual({ atMs: Date.parse('2026-01-01T00:00:10.000Z'), cpuNanos: 7e9, memoryBytes: 4096 });
    expect([...samples.pods.keys()]).toEqual(['u1']);
    expect(samples.pods.get('u1')!.ref).toEqual({ name: 'web', namespace: 'default', uid: 'u1' });
    expect([...samples.pods.get('u1')!.containers]).toEqual([['c', { atMs: Date.parse('2026-01-01T00:00:09.500Z'), cpuNanos: 3e8, memoryBytes: 2048 }]]);
    expect(summarySamples('not a summary', 0)).toEqual({ node: undefined, pods: new Map() });
  });
});

describe('the served metrics types', () => {
  let cluster: TestCluster;
  let client: Client;
  beforeAll(async () => {
    cluster = await startTestCluster();
    client = cluster.client;
  });
  afterAll(() => cluster.stop());

  const get = (path: string) => client.transport.request({ method: 'GET', path });

  it('are in discovery under both group names, with get and list only', async () => {
    for (const group of ['metrics.k8s.io', 'metrics.svc.io']) {
      const list = (await get(`/apis/${group}/v1beta1`)) as { groupVersion: string; resources: { name: string; kind: string; namespaced: boolean; verbs: string[] }[] };
      expect(list.groupVersion).toBe(`${group}/v1beta1`);
      expect(list.resources.map((r) => [r.name, r.kind, r.namespaced, r.verbs])).toEqual([
        ['nodes', 'NodeMetrics', false, ['get', 'list']],
        ['pods', 'PodMetrics', true, ['get', 'list']],
      ]);
    }
    const groups = (await get('/apis')) as { groups: { name: string }[] };
    expect(groups.groups.map((g) => g.name)).toEqual(expect.arrayContaining(['metrics.k8s.io', 'metrics.svc.io']));
  });

  it('list nothing without node agents, in the group the client named', async () => {
    const nodes = (await get('/apis/metrics.k8s.io/v1beta1/nodes')) as { kind: string; apiVersion: string; items: unknown[] };
    expect(nodes).toMatchObject({ kind: 'NodeMetricsList', apiVersion: 'metrics.k8s.io/v1beta1', items: [] });
    const pods = (await get('/apis/metrics.svc.io/v1beta1/namespaces/default/pods?labelSelector=app%3Dweb')) as { kind: string; apiVersion: string };
    expect(pods).toMatchObject({ kind: 'PodMetricsList', apiVersion: 'metrics.svc.io/v1beta1' });
  });

  it('list as a Table for kubectl get', async () => {
    const table = (await client.transport.request({ method: 'GET', path: '/apis/metrics.k8s.io/v1beta1/namespaces/default/pods', accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' })) as { kind: string; rows: unknown[] };
    expect(table).toMatchObject({ kind: 'Table', rows: [] });
  });

  it('answer 404 for an object without usage, and refuse writes and watches', async () => {
    await client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'default' } });
    const podMetrics = resource({ group: 'metrics.k8s.io', version: 'v1beta1', resource: 'pods', namespaced: true });
    await expect(client.get(podMetrics, 'absent', { namespace: 'default' })).rejects.toMatchObject({ code: 404, message: 'podmetrics.metrics.k8s.io "default/absent" not found' });
    await expect(get('/apis/metrics.k8s.io/v1beta1/nodes/absent')).rejects.toMatchObject({ code: 404, message: 'nodemetrics.metrics.k8s.io "absent" not found' });
    await expect(client.transport.request({ method: 'POST', path: '/apis/metrics.k8s.io/v1beta1/nodes', body: { kind: 'NodeMetrics' } })).rejects.toMatchObject({ code: 405 });
    await expect(get('/apis/metrics.k8s.io/v1beta1/nodes?watch=true')).rejects.toMatchObject({ code: 405 });
  });

  it('may be read by whoever may view (metrics-server\'s aggregated-metrics-reader role)', async () => {
    await client.transport.request({
      method: 'POST',
      path: '/apis/rbac.authorization.k8s.io/v1/clusterrolebindings',
      body: { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name: 'alice-view' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'User', name: 'alice' }] },
    });
    const review = async (user: string, resource: string) =>
      ((await client.transport.request({
        method: 'POST',
        path: '/apis/authorization.k8s.io/v1/subjectaccessreviews',
        body: { apiVersion: 'authorization.k8s.io/v1', kind: 'SubjectAccessReview', spec: { user, resourceAttributes: { group: 'metrics.k8s.io', version: 'v1beta1', resource, verb: 'list', namespace: 'default' } } },
      })) as { status: { allowed: boolean } }).status.allowed;
    // The binding reaches the authorizer through its cache, which follows the store.
    await eventually(() => review('alice', 'pods'), 'alice allowed to list pod metrics');
    expect(await review('alice', 'nodes')).toBe(true);
    expect(await review('bob', 'pods')).toBe(false);
  });
});
