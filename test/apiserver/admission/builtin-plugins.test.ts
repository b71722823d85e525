import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../harness.js';

let s: TestServer;

beforeAll(async () => {
  s = await startTestServer('memory');
});
afterAll(async () => {
  await s.close();
});

/** A namespace and its `default` account (the controller manager's serviceaccount loop makes it in a cluster; no loop runs here). */
async function namespace(name: string, labels?: Record<string, string>) {
  const res = await s.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name, ...(labels ? { labels } : {}) } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  const account = await s.call('POST', `/api/v1/namespaces/${name}/serviceaccounts`, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default' } });
  expect(account.status, JSON.stringify(account.body)).toBe(201);
}

const pod = (name: string, spec: Record<string, unknown> = {}, containers: Record<string, unknown>[] = [{ name: 'c', image: 'busybox' }]) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers, ...spec },
});

describe('NamespaceLifecycle', () => {
  it('answers 404 to content for a namespace that does not exist', async () => {
    const res = await s.call('POST', '/api/v1/namespaces/nowhere/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } });
    expect(res.status).toBe(404);
    expect(res.body.message).toBe('namespaces "nowhere" not found');
  });

  it('answers 403 to new content in a terminating namespace', async () => {
    await namespace('leaving');
    await s.call('POST', '/api/v1/namespaces/leaving/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'before' } });
    expect((await s.call('DELETE', '/api/v1/namespaces/leaving')).status).toBe(200);
    const res = await s.call('POST', '/api/v1/namespaces/leaving/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'after' } });
    expect(res.status).toBe(403);
    expect(res.body.reason).toBe('Forbidden');
    expect(res.body.message).toBe('configmaps "after" is forbidden: unable to create new content in namespace leaving because it is being terminated');
    // Existing content can still change (the namespace controller empties it).
    const cm = (await s.call('GET', '/api/v1/namespaces/leaving/configmaps/before')).body;
    expect((await s.call('PUT', '/api/v1/namespaces/leaving/configmaps/before', { ...cm, data: { a: 'b' } })).status).toBe(200);
  });

  it.each(['default', 'svc-system', 'svc-public'])('refuses to delete the %s namespace (403), leaving it Active', async (name) => {
    const res = await s.call('DELETE', `/api/v1/namespaces/${name}`);
    expect(res.status).toBe(403);
    expect(res.body.message).toBe(`namespaces "${name}" is forbidden: this namespace may not be deleted`);
    expect((await s.call('GET', `/api/v1/namespaces/${name}`)).body.status.phase).toBe('Active');
    // Nor in a dry run.
    expect((await s.call('DELETE', `/api/v1/namespaces/${name}?dryRun=All`)).status).toBe(403);
  });
});

describe('ServiceAccount', () => {
  it('makes no account itself (the serviceaccount loop does): a pod in a namespace without its default account is refused', async () => {
    expect((await s.call('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'no-accounts' } })).status).toBe(201);
    expect((await s.call('GET', '/api/v1/namespaces/no-accounts/serviceaccounts/default')).status).toBe(404);
    const res = await s.call('POST', '/api/v1/namespaces/no-accounts/pods', pod('early'));
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('pods "early" is forbidden: error looking up service account no-accounts/default: serviceaccount "default" not found');
    expect((await s.call('GET', '/api/v1/namespaces/no-accounts/pods/early')).status).toBe(404);
  });

  it('defaults serviceAccountName and mounts the API credentials into every container', async () => {
    const res = await s.call('POST', '/api/v1/namespaces/default/pods', pod('sa-default', { initContainers: [{ name: 'init', image: 'busybox' }] }, [{ name: 'a', image: 'busybox' }, { name: 'b', image: 'busybox' }]));
    expect(res.status).toBe(201);
    const spec = res.body.spec;
    expect(spec.serviceAccountName).toBe('default');
    const volume = spec.volumes.find((v: { name: string }) => v.name.startsWith('svc-api-access-'));
    expect(volume.name).toMatch(/^svc-api-access-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    expect(volume.projected.sources).toEqual([
      { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
    ]);
    for (const c of [...spec.containers, ...spec.initContainers]) {
      expect(c.volumeMounts).toContainEqual({ name: volume.name, readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' });
    }
    const stored = (await s.call('GET', '/api/v1/namespaces/default/pods/sa-default')).body;
    expect(stored.spec.volumes).toEqual(spec.volumes);
  });

  it('mounts nothing when the pod or its ServiceAccount opts out', async () => {
    const off = await s.call('POST', '/api/v1/namespaces/default/pods', pod('sa-off', { automountServiceAccountToken: false }));
    expect(off.body.spec.serviceAccountName).toBe('default');
    expect(off.body.spec.volumes).toBeUndefined();
    await s.call('POST', '/api/v1/namespaces/default/serviceaccounts', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'quiet' }, automountServiceAccountToken: false });
    const quiet = await s.call('POST', '/api/v1/namespaces/default/pods', pod('sa-quiet', { serviceAccountName: 'quiet' }));
    expect(quiet.status).toBe(201);
    expect(quiet.body.spec.volumes).toBeUndefined();
  });

  it('answers 403 to a pod whose ServiceAccount does not exist, storing nothing', async () => {
    const res = await s.call('POST', '/api/v1/namespaces/default/pods', pod('sa-missing', { serviceAccountName: 'ghost' }));
    expect(res.status).toBe(403);
    expect(res.body.message).toBe('pods "sa-missing" is forbidden: error looking up service account default/ghost: serviceaccount "ghost" not found');
    expect((await s.call('GET', '/api/v1/namespaces/default/pods/sa-missing')).status).toBe(404);
  });
});

describe('LimitRanger', () => {
  beforeAll(async () => {
    await namespace('limited');
    const res = await s.call('POST', '/api/v1/namespaces/limited/limitranges', {
      apiVersion: 'v1',
      kind: 'LimitRange',
      metadata: { name: 'limits' },
      spec: {
        limits: [
          { type: 'Container', default: { cpu: '500m', memory: '256Mi' }, defaultRequest: { cpu: '100m' }, max: { cpu: '1', memory: '1Gi' }, min: { cpu: '50m' }, maxLimitRequestRatio: { cpu: '5' } },
          { type: 'Pod', max: { cpu: '1500m' } },
          { type: 'PersistentVolumeClaim', max: { storage: '2Gi' }, min: { storage: '100Mi' } },
        ],
      },
    });
    expect(res.status).toBe(201);
  });
  const POD = '/api/v1/namespaces/limited/pods';

  it('fills in default limits and requests', async () => {
    const res = await s.call('POST', POD, pod('defaulted'));
    expect(res.status).toBe(201);
    expect(res.body.spec.containers[0].resources).toEqual({ requests: { cpu: '100m', memory: '256Mi' }, limits: { cpu: '500m', memory: '256Mi' } });
  });

  it('keeps what the container sets', async () => {
    const res = await s.call('POST', POD, pod('own', {}, [{ name: 'c', image: 'busybox', resources: { requests: { cpu: '200m' }, limits: { cpu: '800m', memory: '512Mi' } } }]));
    expect(res.status).toBe(201);
    expect(res.body.spec.containers[0].resources).toEqual({ requests: { cpu: '200m', memory: '512Mi' }, limits: { cpu: '800m', memory: '512Mi' } });
  });

  it.each([
    ['a limit above max', { limits: { cpu: '2' } }, 'maximum cpu usage per Container is 1, but limit is 2'],
    ['a request below min', { requests: { cpu: '10m' } }, 'minimum cpu usage per Container is 50m, but request is 10m'],
    ['a limit-to-request ratio above max', { requests: { cpu: '50m' }, limits: { cpu: '500m' } }, 'cpu max limit to request ratio per Container is 5, but provided ratio is 10.000000'],
  ])('refuses %s (403), storing nothing', async (_what, resources, message) => {
    const res = await s.call('POST', POD, pod('violator', {}, [{ name: 'c', image: 'busybox', resources }]));
    expect(res.status).toBe(403);
    expect(res.body.reason).toBe('Forbidden');
    // Defaults fill in the rest first, so other limits may be broken too: every problem is listed.
    expect(res.body.message).toMatch(/^pods "violator" is forbidden: /);
    expect(res.body.message).toContain(message);
    expect((await s.call('GET', `${POD}/violator`)).status).toBe(404);
  });

  it('bounds the sum over a pod\'s containers (type Pod) and lists every problem', async () => {
    const big = { name: 'a', image: 'busybox', resources: { limits: { cpu: '900m' } } };
    const res = await s.call('POST', POD, pod('too-big', {}, [big, { ...big, name: 'b' }]));
    expect(res.status).toBe(403);
    expect(res.body.message).toContain('maximum cpu usage per Pod is 1500m, but limit is 1800m');
  });

  it('bounds the storage a PersistentVolumeClaim requests', async () => {
    const claim = (name: string, storage: string) => ({
      apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } } },
    });
    expect((await s.call('POST', '/api/v1/namespaces/limited/persistentvolumeclaims', claim('ok', '1Gi'))).status).toBe(201);
    const big = await s.call('POST', '/api/v1/namespaces/limited/persistentvolumeclaims', claim('big', '5Gi'));
    expect(big.status).toBe(403);
    expect(big.body.message).toBe('persistentvolumeclaims "big" is forbidden: maximum storage usage per PersistentVolumeClaim is 2Gi, but request is 5Gi');
    const small = await s.call('POST', '/api/v1/namespaces/limited/persistentvolumeclaims', claim('small', '10Mi'));
    expect(small.status).toBe(403);
    expect(small.body.message).toContain('minimum storage usage per PersistentVolumeClaim is 100Mi, but request is 10Mi');
  });

  it('leaves pods in namespaces without LimitRanges alone', async () => {
    const res = await s.call('POST', '/api/v1/namespaces/default/pods', pod('unlimited'));
    // Nothing set: the empty struct every container answers (the kind's defaults), no limits or requests.
    expect(res.body.spec.containers[0].resources).toEqual({});
  });
});

describe('ResourceQuota', () => {
  const quota = (name: string, hard: Record<string, string>) => ({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name }, spec: { hard } });
  const cm = (name: string) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } });
  const statusOf = async (ns: string, name: string) => (await s.call('GET', `/api/v1/namespaces/${ns}/resourcequotas/${name}`)).body.status;

  it('counts objects in status.used and refuses the one over the limit with 403 exceeded quota', async () => {
    await namespace('quota-count');
    expect((await s.call('POST', '/api/v1/namespaces/quota-count/resourcequotas', quota('objects', { configmaps: '2', 'count/secrets': '1' }))).status).toBe(201);
    const CMS = '/api/v1/namespaces/quota-count/configmaps';
    expect((await s.call('POST', CMS, cm('one'))).status).toBe(201);
    expect((await s.call('POST', CMS, cm('two'))).status).toBe(201);
    expect((await statusOf('quota-count', 'objects')).used).toMatchObject({ configmaps: '2' });
    const over = await s.call('POST', CMS, cm('three'));
    expect(over.status).toBe(403);
    expect(over.body.reason).toBe('Forbidden');
    expect(over.body.message).toBe('configmaps "three" is forbidden: exceeded quota: objects, requested: configmaps=1, used: configmaps=2, limited: configmaps=2');
    expect((await s.call('GET', `${CMS}/three`)).status).toBe(404);

    const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's1' } };
    expect((await s.call('POST', '/api/v1/namespaces/quota-count/secrets', secret)).status).toBe(201);
    const second = await s.call('POST', '/api/v1/namespaces/quota-count/secrets', { ...secret, metadata: { name: 's2' } });
    expect(second.status).toBe(403);
    expect(second.body.message).toContain('exceeded quota: objects, requested: count/secrets=1, used: count/secrets=1, limited: count/secrets=1');
  });

  it('gives the charge back when the create then fails (the name is taken)', async () => {
    await namespace('quota-taken');
    await s.call('POST', '/api/v1/namespaces/quota-taken/resourcequotas', quota('q', { configmaps: '2' }));
    const CMS = '/api/v1/namespaces/quota-taken/configmaps';
    expect((await s.call('POST', CMS, cm('same'))).status).toBe(201);
    expect((await s.call('POST', CMS, cm('same'))).status).toBe(409);
    expect((await statusOf('quota-taken', 'q')).used).toEqual({ configmaps: '1' });
    expect((await s.call('POST', CMS, cm('other'))).status).toBe(201);
  });

  it('gives usage back when objects are deleted', async () => {
    await namespace('quota-release');
    await s.call('POST', '/api/v1/namespaces/quota-release/resourcequotas', quota('one', { configmaps: '1' }));
    const CMS = '/api/v1/namespaces/quota-release/configmaps';
    expect((await s.call('POST', CMS, cm('a'))).status).toBe(201);
    expect((await s.call('POST', CMS, cm('b'))).status).toBe(403);
    expect((await s.call('DELETE', `${CMS}/a`)).status).toBe(200);
    await expect.poll(async () => (await statusOf('quota-release', 'one')).used).toEqual({ configmaps: '0' });
    expect((await s.call('POST', CMS, cm('b'))).status).toBe(201);
  });

  it('charges nothing for a dry run, which is still refused over quota', async () => {
    await namespace('quota-dry');
    await s.call('POST', '/api/v1/namespaces/quota-dry/resourcequotas', quota('q', { configmaps: '1' }));
    const CMS = '/api/v1/namespaces/quota-dry/configmaps';
    expect((await s.call('POST', `${CMS}?dryRun=All`, cm('dry'))).status).toBe(201);
    expect((await s.call('POST', `${CMS}?dryRun=All`, cm('dry'))).status).toBe(201);
    expect((await statusOf('quota-dry', 'q')).used ?? { configmaps: '0' }).toEqual({ configmaps: '0' });
    expect((await s.call('POST', CMS, cm('real'))).status).toBe(201);
    expect((await s.call('POST', `${CMS}?dryRun=All`, cm('dry-over'))).status).toBe(403);
  });

  it('sums pod requests and limits, and requires every container to set what a quota limits', async () => {
    await namespace('quota-compute');
    await s.call('POST', '/api/v1/namespaces/quota-compute/resourcequotas', quota('compute', { pods: '10', 'requests.cpu': '1', 'limits.memory': '1Gi' }));
    const PODS = '/api/v1/namespaces/quota-compute/pods';
    const sized = (cpu: string, memory: string) => ({ name: 'c', image: 'busybox', resources: { requests: { cpu }, limits: { memory } } });
    const unset = await s.call('POST', PODS, pod('unset'));
    expect(unset.status).toBe(403);
    expect(unset.body.message).toBe('pods "unset" is forbidden: failed quota: compute: must specify limits.memory for: c; requests.cpu for: c');
    expect((await s.call('POST', PODS, pod('p1', {}, [sized('600m', '512Mi')]))).status).toBe(201);
    expect((await statusOf('quota-compute', 'compute')).used).toEqual({ pods: '1', 'requests.cpu': '600m', 'limits.memory': '512Mi' });
    const over = await s.call('POST', PODS, pod('p2', {}, [sized('600m', '256Mi')]));
    expect(over.status).toBe(403);
    expect(over.body.message).toBe('pods "p2" is forbidden: exceeded quota: compute, requested: requests.cpu=600m, used: requests.cpu=600m, limited: requests.cpu=1');
    expect((await s.call('POST', PODS, pod('p3', {}, [sized('400m', '512Mi')]))).status).toBe(201);
  });

  it('counts the storage claims request', async () => {
    await namespace('quota-storage');
    await s.call('POST', '/api/v1/namespaces/quota-storage/resourcequotas', quota('storage', { 'requests.storage': '3Gi', persistentvolumeclaims: '5' }));
    const claim = (name: string, storage: string) => ({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } } } });
    const PVC = '/api/v1/namespaces/quota-storage/persistentvolumeclaims';
    expect((await s.call('POST', PVC, claim('a', '2Gi'))).status).toBe(201);
    const over = await s.call('POST', PVC, claim('b', '2Gi'));
    expect(over.status).toBe(403);
    expect(over.body.message).toContain('requested: requests.storage=2Gi, used: requests.storage=2Gi, limited: requests.storage=3Gi');
    expect((await statusOf('quota-storage', 'storage')).used).toEqual({ 'requests.storage': '2Gi', persistentvolumeclaims: '1' });
  });

  it('lets no more concurrent creates through than the quota allows', async () => {
    await namespace('quota-race');
    await s.call('POST', '/api/v1/namespaces/quota-race/resourcequotas', quota('race', { configmaps: '3' }));
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => s.call('POST', '/api/v1/namespaces/quota-race/configmaps', cm(`c${i}`))));
    expect(results.filter((r) => r.status === 201)).toHaveLength(3);
    expect(results.filter((r) => r.status === 403)).toHaveLength(9);
    expect((await s.call('GET', '/api/v1/namespaces/quota-race/configmaps')).body.items).toHaveLength(3);
    expect((await statusOf('quota-race', 'race')).used).toEqual({ configmaps: '3' });
  });

  it('counts only the pods in a scoped quota\'s scopes', async () => {
    await namespace('quota-scoped');
    await s.call('POST', '/api/v1/namespaces/quota-scoped/resourcequotas', { ...quota('best-effort', { pods: '1' }), spec: { hard: { pods: '1' }, scopes: ['BestEffort'] } });
    await s.call('POST', '/api/v1/namespaces/quota-scoped/resourcequotas', {
      ...quota('deadline', { pods: '1' }),
      spec: { hard: { pods: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'Terminating', operator: 'Exists' }] } },
    });
    const PODS = '/api/v1/namespaces/quota-scoped/pods';
    const sized = [{ name: 'c', image: 'busybox', resources: { requests: { cpu: '100m' } } }];
    expect((await s.call('POST', PODS, pod('free-1'))).status).toBe(201);
    const second = await s.call('POST', PODS, pod('free-2'));
    expect(second.status).toBe(403);
    expect(second.body.message).toContain('exceeded quota: best-effort');
    expect((await s.call('POST', PODS, pod('sized-1', {}, sized))).status).toBe(201);
    expect((await s.call('POST', PODS, pod('sized-2', {}, sized))).status).toBe(201);
    expect((await s.call('POST', PODS, pod('ends-1', { activeDeadlineSeconds: 60 }, sized))).status).toBe(201);
    const ends = await s.call('POST', PODS, pod('ends-2', { activeDeadlineSeconds: 60 }, sized));
    expect(ends.status).toBe(403);
    expect(ends.body.message).toContain('exceeded quota: deadline');
    expect((await s.call('POST', '/api/v1/namespaces/quota-scoped/configmaps', cm('untracked'))).status).toBe(201);
  });

  it('fills in status.hard and status.used of a new quota from what the namespace holds', async () => {
    await namespace('quota-late');
    for (const name of ['x', 'y']) await s.call('POST', '/api/v1/namespaces/quota-late/configmaps', cm(name));
    await s.call('POST', '/api/v1/namespaces/quota-late/resourcequotas', quota('late', { configmaps: '5', 'count/configmaps': '5' }));
    await expect.poll(() => statusOf('quota-late', 'late')).toEqual({ hard: { configmaps: '5', 'count/configmaps': '5' }, used: { configmaps: '2', 'count/configmaps': '2' } });
  });
});

describe('StorageObjectInUseProtection', () => {
  const claim = (name: string, finalizers?: string[]) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, ...(finalizers ? { finalizers } : {}) },
    spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'none', resources: { requests: { storage: '1Gi' } } },
  });
  const volume = (name: string) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name },
    spec: { capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], hostPath: { path: '/tmp/x' } },
  });

  it('creates claims and volumes with their protection finalizers (no loop runs here)', async () => {
    const pvc = await s.call('POST', '/api/v1/namespaces/default/persistentvolumeclaims', claim('protected'));
    expect(pvc.status, JSON.stringify(pvc.body)).toBe(201);
    expect(pvc.body.metadata.finalizers).toEqual(['kubernetes.io/pvc-protection']);
    const pv = await s.call('POST', '/api/v1/persistentvolumes', volume('protected-pv'));
    expect(pv.status, JSON.stringify(pv.body)).toBe(201);
    expect(pv.body.metadata.finalizers).toEqual(['kubernetes.io/pv-protection']);
    // A deleted claim therefore stays Terminating until the finalizer goes.
    expect((await s.call('DELETE', '/api/v1/namespaces/default/persistentvolumeclaims/protected')).status).toBe(200);
    const kept = await s.call('GET', '/api/v1/namespaces/default/persistentvolumeclaims/protected');
    expect(kept.body.metadata.deletionTimestamp).toBeDefined();
  });

  it('keeps the client\'s finalizers, adds its own once, and never puts it back on update', async () => {
    const pvc = await s.call('POST', '/api/v1/namespaces/default/persistentvolumeclaims', claim('mine', ['example.com/keep', 'kubernetes.io/pvc-protection']));
    expect(pvc.body.metadata.finalizers).toEqual(['example.com/keep', 'kubernetes.io/pvc-protection']);
    const other = await s.call('POST', '/api/v1/namespaces/default/persistentvolumeclaims', claim('theirs', ['example.com/keep']));
    expect(other.body.metadata.finalizers).toEqual(['example.com/keep', 'kubernetes.io/pvc-protection']);
    const patched = await s.call('PATCH', '/api/v1/namespaces/default/persistentvolumeclaims/theirs', { metadata: { finalizers: [] } }, { headers: { 'content-type': 'application/merge-patch+json' } });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.metadata.finalizers ?? []).toEqual([]);
  });

  it('leaves other kinds alone, and adds nothing when turned off', async () => {
    const cm = await s.call('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'not-storage' } });
    expect(cm.body.metadata.finalizers).toBeUndefined();
    const bare = await startTestServer('memory', { admissionPlugins: { disable: ['StorageObjectInUseProtection'] } });
    try {
      const pvc = await bare.call('POST', '/api/v1/namespaces/default/persistentvolumeclaims', claim('plain'));
      expect(pvc.status).toBe(201);
      expect(pvc.body.metadata.finalizers).toBeUndefined();
    } finally {
      await bare.close();
    }
  });
});

describe('turning plugins off', () => {
  it('skips a disabled plugin', async () => {
    const bare = await startTestServer('memory', { admissionPlugins: { disable: ['ServiceAccount', 'NamespaceLifecycle'] } });
    try {
      const res = await bare.call('POST', '/api/v1/namespaces/default/pods', pod('plain', { serviceAccountName: 'ghost' }));
      expect(res.status).toBe(201);
      expect(res.body.spec.volumes).toBeUndefined();
      expect((await bare.call('DELETE', '/api/v1/namespaces/svc-public')).status).toBe(200);
    } finally {
      await bare.close();
    }
  });
});
