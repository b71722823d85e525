import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type CallResult, type TestServer } from '../harness.js';

const MERGE = { headers: { 'content-type': 'application/merge-patch+json' } };

function ok(res: CallResult, code = 200) {
  expect(res.status, JSON.stringify(res.body)).toBe(code);
  return res.body;
}

const ns = (name: string) => `/api/v1/namespaces/${name}`;
const pods = (namespace: string) => `${ns(namespace)}/pods`;
const pdbs = (namespace: string) => `/apis/policy/v1/namespaces/${namespace}/poddisruptionbudgets`;
const eviction = (name: string, extra: Record<string, unknown> = {}) => ({ apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name }, ...extra });

describe('pod eviction', () => {
  let s: TestServer;
  let space = 0;
  beforeAll(async () => {
    s = await startTestServer('memory');
  });
  afterAll(async () => {
    await s.close();
  });

  /** A fresh namespace with `count` pods labelled app=web, Running and Ready unless told otherwise. */
  async function namespaceWithPods(count: number, state: { phase?: string; ready?: boolean; nodeName?: string } = {}) {
    const namespace = `ev-${++space}`;
    ok(await s.call('POST', '/api/v1/namespaces', { metadata: { name: namespace } }), 201);
    // The pods' account (no serviceaccount loop runs here).
    ok(await s.call('POST', `${ns(namespace)}/serviceaccounts`, { metadata: { name: 'default' } }), 201);
    for (let i = 0; i < count; i++) await addPod(namespace, `web-${i}`, state);
    return namespace;
  }

  async function addPod(namespace: string, name: string, { phase = 'Running', ready = true, nodeName }: { phase?: string; ready?: boolean; nodeName?: string } = {}) {
    const spec = { containers: [{ name: 'c', image: 'nginx' }], ...(nodeName ? { nodeName } : {}) };
    ok(await s.call('POST', pods(namespace), { metadata: { name, labels: { app: 'web' } }, spec }), 201);
    const conditions = [{ type: 'Ready', status: ready ? 'True' : 'False' }];
    ok(await s.call('PATCH', `${pods(namespace)}/${name}/status`, { status: { phase, conditions } }, MERGE));
  }

  const budget = (name: string, spec: Record<string, unknown>) => ({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name }, spec: { selector: { matchLabels: { app: 'web' } }, ...spec } });
  const evict = (namespace: string, name: string, body: unknown = eviction(name), query = '') => s.call('POST', `${pods(namespace)}/${name}/eviction${query}`, body);
  const exists = async (namespace: string, name: string) => (await s.call('GET', `${pods(namespace)}/${name}`)).status === 200;

  function expectBudgetViolation(res: CallResult, pdb: string, needs: number, has: number) {
    expect(res.status).toBe(429);
    expect(res.body).toMatchObject({
      kind: 'Status',
      status: 'Failure',
      code: 429,
      reason: 'TooManyRequests',
      message: "Cannot evict pod as it would violate the pod's disruption budget.",
      details: { causes: [{ reason: 'DisruptionBudget', message: `The disruption budget ${pdb} needs ${needs} healthy pods and has ${has} currently` }] },
    });
    expect(res.headers['retry-after']).toBeUndefined();
  }

  it('deletes a pod no budget guards, answering 201 Success', async () => {
    const namespace = await namespaceWithPods(1);
    const res = await evict(namespace, 'web-0');
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Success' });
    expect(await exists(namespace, 'web-0')).toBe(false);
  });

  it('honours minAvailable as a number: evicts while healthy pods remain above it, then 429', async () => {
    const namespace = await namespaceWithPods(3);
    ok(await s.call('POST', pdbs(namespace), budget('min-two', { minAvailable: 2 })), 201);
    expect((await evict(namespace, 'web-0')).status).toBe(201);
    expect(await exists(namespace, 'web-0')).toBe(false);
    const pdb = ok(await s.call('GET', `${pdbs(namespace)}/min-two`));
    expect(pdb.status).toMatchObject({ disruptionsAllowed: 0, currentHealthy: 3, desiredHealthy: 2, expectedPods: 3, observedGeneration: 1 });
    expect(Object.keys(pdb.status.disruptedPods)).toEqual(['web-0']);
    expect(pdb.status.conditions).toEqual([expect.objectContaining({ type: 'DisruptionAllowed', status: 'False', reason: 'InsufficientPods' })]);
    expectBudgetViolation(await evict(namespace, 'web-1'), 'min-two', 2, 3);
    expect(await exists(namespace, 'web-1')).toBe(true);
  });

  it('honours minAvailable as a percentage (rounded up)', async () => {
    const namespace = await namespaceWithPods(4);
    ok(await s.call('POST', pdbs(namespace), budget('half', { minAvailable: '50%' })), 201);
    expect((await evict(namespace, 'web-0')).status).toBe(201);
    // From the stored status now: 1 disruption was allowed (4 healthy, 2 desired), one spent.
    expect(ok(await s.call('GET', `${pdbs(namespace)}/half`)).status.disruptionsAllowed).toBe(1);
    expect((await evict(namespace, 'web-1')).status).toBe(201);
    expectBudgetViolation(await evict(namespace, 'web-2'), 'half', 2, 4);
  });

  it('honours maxUnavailable as a number, counting terminating pods as expected but not healthy', async () => {
    const namespace = await namespaceWithPods(3, { nodeName: 'n1' });
    ok(await s.call('POST', pdbs(namespace), budget('one-down', { maxUnavailable: 1 })), 201);
    const first = await evict(namespace, 'web-0');
    expect(first.status).toBe(201);
    // Bound to a node: the pod waits for its agent (Terminating) rather than vanishing.
    expect(ok(await s.call('GET', `${pods(namespace)}/web-0`)).metadata.deletionTimestamp).toBeDefined();
    // The budget is recomputed when its spec moves on (a new generation): web-0 is still expected, no longer healthy.
    ok(await s.call('PATCH', `${pdbs(namespace)}/one-down`, { metadata: { labels: { touched: 'yes' } }, spec: { maxUnavailable: 1, unhealthyPodEvictionPolicy: 'IfHealthyBudget' } }, MERGE));
    expectBudgetViolation(await evict(namespace, 'web-1'), 'one-down', 2, 2);
  });

  it('honours maxUnavailable as a percentage', async () => {
    const namespace = await namespaceWithPods(4);
    ok(await s.call('POST', pdbs(namespace), budget('quarter', { maxUnavailable: '25%' })), 201);
    expect((await evict(namespace, 'web-3')).status).toBe(201);
    expectBudgetViolation(await evict(namespace, 'web-2'), 'quarter', 3, 4);
  });

  it('uses a status a controller keeps current, and spends it', async () => {
    const namespace = await namespaceWithPods(2);
    const created = ok(await s.call('POST', pdbs(namespace), budget('kept', { minAvailable: 0 })), 201);
    // As the disruption controller would write it: no disruption allowed, whatever the pods say.
    const status = { observedGeneration: created.metadata.generation, disruptionsAllowed: 0, currentHealthy: 2, desiredHealthy: 2, expectedPods: 2 };
    ok(await s.call('PATCH', `${pdbs(namespace)}/kept/status`, { status }, MERGE));
    expectBudgetViolation(await evict(namespace, 'web-0'), 'kept', 2, 2);
    ok(await s.call('PATCH', `${pdbs(namespace)}/kept/status`, { status: { ...status, disruptionsAllowed: 1 } }, MERGE));
    expect((await evict(namespace, 'web-0')).status).toBe(201);
    expect(ok(await s.call('GET', `${pdbs(namespace)}/kept`)).status.disruptionsAllowed).toBe(0);
  });

  it('answers 500 when two budgets guard the pod, and deletes nothing', async () => {
    const namespace = await namespaceWithPods(2);
    ok(await s.call('POST', pdbs(namespace), budget('a', { minAvailable: 0 })), 201);
    ok(await s.call('POST', pdbs(namespace), budget('b', { maxUnavailable: 2 })), 201);
    const res = await evict(namespace, 'web-0');
    expect(res.body).toMatchObject({ code: 500, reason: 'InternalError', message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.' });
    expect(await exists(namespace, 'web-0')).toBe(true);
  });

  it('ignores budgets that do not select the pod (null selector selects none, empty selects all)', async () => {
    const namespace = await namespaceWithPods(1);
    ok(await s.call('POST', pdbs(namespace), { metadata: { name: 'none' }, spec: { minAvailable: 5 } }), 201);
    ok(await s.call('POST', pdbs(namespace), { metadata: { name: 'other' }, spec: { minAvailable: 5, selector: { matchLabels: { app: 'db' } } } }), 201);
    expect((await evict(namespace, 'web-0')).status).toBe(201);
    await addPod(namespace, 'web-1');
    ok(await s.call('POST', pdbs(namespace), { metadata: { name: 'all' }, spec: { minAvailable: 1, selector: {} } }), 201);
    expectBudgetViolation(await evict(namespace, 'web-1'), 'all', 1, 1);
  });

  it('evicts pods that are Pending, finished or terminating without asking the budget', async () => {
    const namespace = await namespaceWithPods(0);
    ok(await s.call('POST', pdbs(namespace), budget('all-of-them', { minAvailable: '100%' })), 201);
    await addPod(namespace, 'pending', { phase: 'Pending', ready: false });
    await addPod(namespace, 'done', { phase: 'Succeeded', ready: false });
    await addPod(namespace, 'failed', { phase: 'Failed', ready: false });
    await addPod(namespace, 'running', { nodeName: 'n1' });
    for (const name of ['pending', 'done', 'failed']) {
      expect((await evict(namespace, name)).status, name).toBe(201);
      expect(await exists(namespace, name), name).toBe(false);
    }
    expectBudgetViolation(await evict(namespace, 'running'), 'all-of-them', 1, 1);
    ok(await s.call('DELETE', `${pods(namespace)}/running`));
    expect((await evict(namespace, 'running')).status).toBe(201);
  });

  it('evicts a pod that is not Ready when the budget is healthy or its policy is AlwaysAllow, without spending it', async () => {
    const namespace = await namespaceWithPods(2);
    await addPod(namespace, 'sick', { ready: false });
    ok(await s.call('POST', pdbs(namespace), budget('healthy', { minAvailable: 2 })), 201);
    expect((await evict(namespace, 'sick')).status).toBe(201);
    const after = await s.call('GET', `${pdbs(namespace)}/healthy`);
    // Not spent: the budget's status is still the one it was created with (its zero counters).
    expect(after.body.status).toEqual({ disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 });

    const strict = await namespaceWithPods(1);
    await addPod(strict, 'sick', { ready: false });
    ok(await s.call('POST', pdbs(strict), budget('strict', { minAvailable: 2 })), 201);
    expectBudgetViolation(await evict(strict, 'sick'), 'strict', 2, 1);
    ok(await s.call('PATCH', `${pdbs(strict)}/strict`, { spec: { unhealthyPodEvictionPolicy: 'AlwaysAllow' } }, MERGE));
    expect((await evict(strict, 'sick')).status).toBe(201);
    expect(await exists(strict, 'sick')).toBe(false);
  });

  it('dry run answers as the real eviction would and changes nothing', async () => {
    const namespace = await namespaceWithPods(2);
    ok(await s.call('POST', pdbs(namespace), budget('dry', { maxUnavailable: 1 })), 201);
    const pdbBefore = ok(await s.call('GET', `${pdbs(namespace)}/dry`));
    expect((await evict(namespace, 'web-0', eviction('web-0', { deleteOptions: { dryRun: ['All'] } }))).status).toBe(201);
    expect((await evict(namespace, 'web-0', eviction('web-0'), '?dryRun=All')).status).toBe(201);
    expect(await exists(namespace, 'web-0')).toBe(true);
    expect(ok(await s.call('GET', `${pdbs(namespace)}/dry`)).metadata.resourceVersion).toBe(pdbBefore.metadata.resourceVersion);
  });

  it('honours the deleteOptions: preconditions and grace period', async () => {
    const namespace = await namespaceWithPods(2, { nodeName: 'n1' });
    const pod = ok(await s.call('GET', `${pods(namespace)}/web-0`));
    const wrongUid = await evict(namespace, 'web-0', eviction('web-0', { deleteOptions: { preconditions: { uid: 'not-it' } } }));
    expect(wrongUid.body).toMatchObject({ code: 409, reason: 'Conflict' });
    const staleRv = await evict(namespace, 'web-0', eviction('web-0', { deleteOptions: { preconditions: { resourceVersion: '1' } } }));
    expect(staleRv.body).toMatchObject({ code: 409, reason: 'Conflict' });
    expect(await exists(namespace, 'web-0')).toBe(true);
    const matching = { preconditions: { uid: pod.metadata.uid, resourceVersion: pod.metadata.resourceVersion }, gracePeriodSeconds: 0 };
    expect((await evict(namespace, 'web-0', eviction('web-0', { deleteOptions: matching }))).status).toBe(201);
    // Grace period 0: gone at once though the pod is bound to a node.
    expect(await exists(namespace, 'web-0')).toBe(false);
    expect((await evict(namespace, 'web-1', eviction('web-1', { deleteOptions: { gracePeriodSeconds: 7 } }))).status).toBe(201);
    expect(ok(await s.call('GET', `${pods(namespace)}/web-1`)).metadata.deletionGracePeriodSeconds).toBe(7);
  });

  it('rejects bad bodies with 400 and changes nothing', async () => {
    const namespace = await namespaceWithPods(1);
    const bad: [string, unknown][] = [
      ['not JSON', '{"kind":'],
      ['not an object', '[]'],
      ['another kind', { ...eviction('web-0'), kind: 'Binding' }],
      ['another version', { ...eviction('web-0'), apiVersion: 'policy/v2' }],
      ['no name', { apiVersion: 'policy/v1', kind: 'Eviction' }],
      ['another name', eviction('web-1')],
      ['another namespace', eviction('web-0', { metadata: { name: 'web-0', namespace: 'default' } })],
      ['bad grace period', eviction('web-0', { deleteOptions: { gracePeriodSeconds: -1 } })],
      ['bad preconditions', eviction('web-0', { deleteOptions: { preconditions: 'now' } })],
      ['bad dryRun', eviction('web-0', { deleteOptions: { dryRun: ['Some'] } })],
      ['bad policy', eviction('web-0', { deleteOptions: { propagationPolicy: 'Eventually' } })],
    ];
    for (const [what, body] of bad) {
      const res = await evict(namespace, 'web-0', body);
      expect(res.status, what).toBe(400);
      expect(res.body.reason, what).toBe('BadRequest');
    }
    expect((await evict(namespace, 'web-0', eviction('web-0'), '?dryRun=Some')).status).toBe(400);
    expect(await exists(namespace, 'web-0')).toBe(true);
    expect((await evict(namespace, 'missing', eviction('missing'))).body).toMatchObject({ code: 404, reason: 'NotFound' });
    expect((await s.call('GET', `${pods(namespace)}/web-0/eviction`)).status).toBe(405);
  });

  it('accepts the policy/v1beta1 Eviction', async () => {
    const namespace = await namespaceWithPods(1);
    expect((await evict(namespace, 'web-0', { ...eviction('web-0'), apiVersion: 'policy/v1beta1' })).status).toBe(201);
  });
});
