// What one object counts against a ResourceQuota (src/api/quota), the calculation quota admission
// and the resourcequota loop share: each rule on plain objects.
import { describe, expect, it } from 'vitest';
import { canonicalQuotaName, observedUsage, quotaTracks, typeCounted, usageOf, type KubeObject } from '../../src/api/index.js';

const POD = { group: '', resource: 'pods' } as const;
const pod = (spec: Record<string, unknown>, extra: Partial<KubeObject> = {}): KubeObject => ({ metadata: { name: 'p', namespace: 'n' }, spec, ...extra });
const milli = (usage: Map<string, number>) => Object.fromEntries(usage);
const quota = (spec: Record<string, unknown>): KubeObject => ({ metadata: { name: 'q', namespace: 'n' }, spec });

describe('usageOf', () => {
  it('a pod: requests default to limits, init containers and overhead, hugepages and extended resources', () => {
    const usage = usageOf(
      POD,
      pod({
        overhead: { cpu: '50m' },
        initContainers: [{ name: 'i', resources: { requests: { cpu: '1' } } }],
        containers: [
          { name: 'a', resources: { limits: { cpu: '200m', memory: '64Mi', 'hugepages-2Mi': '4Mi', 'example.com/gpu': '1' } } },
          { name: 'b', resources: { requests: { cpu: '300m', 'ephemeral-storage': '1Gi' } } },
        ],
      }),
    );
    expect(milli(usage)).toMatchObject({
      'count/pods': 1000,
      pods: 1000,
      'requests.cpu': 1050, // max(200m + 300m, 1) + 50m overhead
      cpu: 1050,
      'limits.cpu': 250,
      'requests.memory': 64 * 2 ** 20 * 1000,
      'limits.memory': 64 * 2 ** 20 * 1000,
      'requests.ephemeral-storage': 2 ** 30 * 1000,
      'requests.hugepages-2Mi': 4 * 2 ** 20 * 1000,
      'hugepages-2Mi': 4 * 2 ** 20 * 1000,
      'requests.example.com/gpu': 1000,
    });
    expect(usage.has('limits.example.com/gpu')).toBe(false);
    // Overhead is requested even where no container requests that resource; a limit needs one set.
    const overheadOnly = usageOf(POD, pod({ overhead: { memory: '10Mi' }, containers: [{ name: 'a', resources: { requests: { cpu: '1' } } }] }));
    expect(overheadOnly.get('requests.memory')).toBe(10 * 2 ** 20 * 1000);
    expect(overheadOnly.has('limits.memory')).toBe(false);
  });

  it('a finished pod, or one past its deletion grace period, counts only in count/pods', () => {
    expect(milli(usageOf(POD, pod({ containers: [] }, { status: { phase: 'Failed' } })))).toEqual({ 'count/pods': 1000 });
    const deleting = pod({ containers: [] });
    deleting.metadata = { ...deleting.metadata, deletionTimestamp: '2026-01-01T00:00:00Z', deletionGracePeriodSeconds: 30 };
    expect(milli(usageOf(POD, deleting, { now: () => Date.parse('2026-01-01T00:00:10Z') }))).toEqual({ 'count/pods': 1000, pods: 1000 });
    expect(milli(usageOf(POD, deleting, { now: () => Date.parse('2026-01-01T00:00:31Z') }))).toEqual({ 'count/pods': 1000 });
  });

  it('services: node ports of NodePort and LoadBalancer, those allocated only when allocateLoadBalancerNodePorts is false', () => {
    const svc = (spec: Record<string, unknown>) => milli(usageOf({ group: '', resource: 'services' }, { metadata: { name: 's' }, spec }));
    expect(svc({ type: 'ClusterIP', ports: [{ port: 1 }] })).toEqual({ 'count/services': 1000, services: 1000 });
    expect(svc({ type: 'NodePort', ports: [{ port: 1 }, { port: 2 }] })).toMatchObject({ 'services.nodeports': 2000 });
    expect(svc({ type: 'LoadBalancer', allocateLoadBalancerNodePorts: false, ports: [{ port: 1, nodePort: 30001 }, { port: 2 }] })).toMatchObject({
      'services.loadbalancers': 1000,
      'services.nodeports': 1000,
    });
  });

  it('claims: storage per class (spec or beta annotation), the larger of request and allocation', () => {
    const claim = (spec: Record<string, unknown>, extra: Partial<KubeObject> = {}) => milli(usageOf({ group: '', resource: 'persistentvolumeclaims' }, { metadata: { name: 'c' }, spec, ...extra }));
    expect(claim({ storageClassName: 'gold', resources: { requests: { storage: '1Gi' } } }, { status: { allocatedResources: { storage: '2Gi' } } })).toEqual({
      'count/persistentvolumeclaims': 1000,
      persistentvolumeclaims: 1000,
      'requests.storage': 2 * 2 ** 30 * 1000,
      'gold.storageclass.storage.k8s.io/requests.storage': 2 * 2 ** 30 * 1000,
      'gold.storageclass.storage.k8s.io/persistentvolumeclaims': 1000,
    });
    const annotated = claim({ resources: { requests: { storage: '1' } } }, { metadata: { name: 'c', annotations: { 'volume.beta.kubernetes.io/storage-class': 'slow' } } });
    expect(annotated['slow.storageclass.storage.k8s.io/persistentvolumeclaims']).toBe(1000);
  });

  it('other types count once under count/<resource>.<group>', () => {
    expect(milli(usageOf({ group: 'apps', resource: 'deployments' }, { metadata: { name: 'd' } }))).toEqual({ 'count/deployments.apps': 1000 });
  });
});

describe('names', () => {
  it('an upstream group in count/ is svc’s; a storage class in svc’s group is upstream’s', () => {
    expect(canonicalQuotaName('count/roles.rbac.authorization.k8s.io')).toBe('count/roles.rbac.authorization.svc.io');
    expect(canonicalQuotaName('count/deployments.apps')).toBe('count/deployments.apps');
    expect(canonicalQuotaName('gold.storageclass.storage.svc.io/requests.storage')).toBe('gold.storageclass.storage.k8s.io/requests.storage');
  });

  it('which type a name counts', () => {
    expect(typeCounted('requests.cpu')).toEqual(POD);
    expect(typeCounted('requests.example.com/gpu')).toEqual(POD);
    expect(typeCounted('hugepages-1Gi')).toEqual(POD);
    expect(typeCounted('services.nodeports')).toEqual({ group: '', resource: 'services' });
    expect(typeCounted('gold.storageclass.storage.k8s.io/persistentvolumeclaims')).toEqual({ group: '', resource: 'persistentvolumeclaims' });
    expect(typeCounted('count/widgets.example.com')).toEqual({ group: 'example.com', resource: 'widgets' });
    expect(typeCounted('nonsense')).toBeUndefined();
  });
});

describe('scopes', () => {
  const bestEffort = pod({ containers: [{ name: 'c' }] });
  const burstable = pod({ priorityClassName: 'high', activeDeadlineSeconds: 10, containers: [{ name: 'c', resources: { requests: { cpu: '1' } } }] });
  it('each scope, a scope in `scopes` meaning Exists, and other types never tracked by a scoped quota', () => {
    expect(quotaTracks(quota({ scopes: ['BestEffort'] }), POD, bestEffort)).toBe(true);
    expect(quotaTracks(quota({ scopes: ['NotBestEffort'] }), POD, bestEffort)).toBe(false);
    expect(quotaTracks(quota({ scopes: ['Terminating', 'NotBestEffort'] }), POD, burstable)).toBe(true);
    expect(quotaTracks(quota({ scopes: ['NotTerminating'] }), POD, burstable)).toBe(false);
    expect(quotaTracks(quota({ scopes: ['PriorityClass'] }), POD, burstable)).toBe(true);
    expect(quotaTracks(quota({ scopes: ['PriorityClass'] }), POD, bestEffort)).toBe(false);
    const notIn = quota({ scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'NotIn', values: ['high'] }] } });
    expect(quotaTracks(notIn, POD, burstable)).toBe(false);
    expect(quotaTracks(notIn, POD, bestEffort)).toBe(true);
    expect(quotaTracks(quota({ scopes: ['BestEffort'] }), { group: '', resource: 'services' }, { metadata: { name: 's' } })).toBe(false);
    expect(quotaTracks(quota({ scopes: ['CrossNamespacePodAffinity'] }), POD, bestEffort)).toBe(false);
  });

  it('observedUsage sums the tracked objects by the quota’s own names', () => {
    const q = quota({ hard: { pods: '10', 'count/roles.rbac.authorization.k8s.io': '5' } });
    const objects: Record<string, KubeObject[]> = { '/pods': [bestEffort, burstable, pod({}, { status: { phase: 'Succeeded' } })], 'rbac.authorization.svc.io/roles': [{ metadata: { name: 'r' } }] };
    const usage = observedUsage(q, (type) => objects[`${type.group}/${type.resource}`]);
    expect(milli(usage)).toEqual({ pods: 2000, 'count/roles.rbac.authorization.k8s.io': 1000 });
  });
});
