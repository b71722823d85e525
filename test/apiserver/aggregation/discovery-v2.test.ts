import { describe, expect, it } from 'vitest';
import { versionDiscovery } from '../../../src/apiserver/aggregation/discovery-v2.js';

describe('a remote APIResourceList as aggregated discovery (v2)', () => {
  const list = {
    kind: 'APIResourceList',
    groupVersion: 'metrics.k8s.io/v1beta1',
    resources: [
      { name: 'nodes', singularName: '', namespaced: false, kind: 'NodeMetrics', verbs: ['get', 'list'] },
      { name: 'pods', singularName: 'pod', namespaced: true, kind: 'PodMetrics', verbs: ['get', 'list'], shortNames: ['pm'], categories: ['metrics'] },
      { name: 'pods/status', namespaced: true, kind: 'PodMetrics', verbs: ['get'] },
    ],
  };

  it('folds subresources into their resource and keeps names, scope, verbs, short names and categories', () => {
    expect(versionDiscovery('metrics.k8s.io', 'v1beta1', list, true)).toEqual({
      version: 'v1beta1',
      freshness: 'Current',
      resources: [
        { resource: 'nodes', responseKind: { group: 'metrics.k8s.io', version: 'v1beta1', kind: 'NodeMetrics' }, scope: 'Cluster', singularResource: '', verbs: ['get', 'list'] },
        {
          resource: 'pods',
          responseKind: { group: 'metrics.k8s.io', version: 'v1beta1', kind: 'PodMetrics' },
          scope: 'Namespaced',
          singularResource: 'pod',
          verbs: ['get', 'list'],
          shortNames: ['pm'],
          categories: ['metrics'],
          subresources: [{ subresource: 'status', responseKind: { group: 'metrics.k8s.io', version: 'v1beta1', kind: 'PodMetrics' }, verbs: ['get'] }],
        },
      ],
    });
  });

  it('is Stale while the remote fails, and empty for a document that is no resource list', () => {
    expect(versionDiscovery('metrics.k8s.io', 'v1beta1', list, false).freshness).toBe('Stale');
    expect(versionDiscovery('metrics.k8s.io', 'v1beta1', 'not json', true)).toEqual({ version: 'v1beta1', resources: [], freshness: 'Current' });
  });
});
