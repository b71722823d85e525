import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customResourceDefinitions, discoverResources, DiscoveryCache, Informer, typeAtVersion, type Discovery } from '../../src/client/index.js';
import { startClientTestServer, type ClientTestServer } from './support.js';
import { waitUntil } from '../support/wait.js';
import { createOpenCrd } from '../support/crds.js';

// The shared discovery (docs/client.md#discovery): counted in requests the server saw, which do not
// depend on how fast the machine is.

let t: ClientTestServer;
beforeAll(async () => {
  t = await startClientTestServer();
});
afterAll(() => t.close());

/** The discovery requests the server saw from index `from` on: roots (`/api`, `/apis`) and resource lists. */
function discoveryRequests(from: number): { roots: string[]; lists: string[] } {
  const seen = t.requests.slice(from).filter((url) => !url.includes('?') && /^\/apis?(\/[^/]+){0,2}$/.test(url));
  return { roots: seen.filter((url) => url === '/api' || url === '/apis'), lists: seen.filter((url) => url !== '/api' && url !== '/apis') };
}

/** The subresources of `kind` at exactly `apiVersion`, sorted; undefined when not found. */
function subresourcesAt(discovery: Discovery, apiVersion: string, kind: string): string[] | undefined {
  const found = typeAtVersion(discovery, apiVersion, kind);
  return found.served && found.type ? [...(found.type.subresources ?? [])].sort() : undefined;
}

describe('DiscoveryCache', () => {
  it('reads every resource list once, then only /api and /apis at each refresh while nothing changes', async () => {
    const start = t.requests.length;
    const cache = new DiscoveryCache(t.client, { refreshPeriodMs: 20 });
    try {
      const first = await cache.current();
      expect(first.failures).toEqual([]);
      expect(first.resources.find((r) => r.group === 'apps' && r.resource === 'deployments')).toMatchObject({ version: 'v1', kind: 'Deployment' });
      const firstRead = discoveryRequests(start);
      expect(firstRead.roots.sort()).toEqual(['/api', '/apis']);
      expect(firstRead.lists.length).toBeGreaterThan(10);
      expect(new Set(firstRead.lists).size).toBe(firstRead.lists.length);

      const afterFirst = t.requests.length;
      await waitUntil(() => discoveryRequests(afterFirst).roots.filter((url) => url === '/apis').length >= 3, 'three refreshes');
      // Three refreshes and not one resource list read again; the answer is kept.
      expect(discoveryRequests(afterFirst).lists).toEqual([]);
      expect(await cache.current()).toBe(await cache.current());
    } finally {
      cache.stop();
    }
  });

  it('fresh(): callers at the same time share one read of every list, started after their call', async () => {
    const cache = new DiscoveryCache(t.client, { refreshPeriodMs: 60_000 });
    try {
      await cache.current();
      const start = t.requests.length;
      const answers = await Promise.all(Array.from({ length: 5 }, () => cache.fresh()));
      const read = discoveryRequests(start);
      expect(read.roots.sort()).toEqual(['/api', '/apis']);
      expect(read.lists.length).toBeGreaterThan(10);
      expect(new Set(read.lists).size).toBe(read.lists.length);
      expect(new Set(answers).size).toBe(1);
    } finally {
      cache.stop();
    }
  });

  it('a CustomResourceDefinition created is in the next discovery emitted: its watch event reads the lists again', async () => {
    const crds = new Informer(t.client, customResourceDefinitions, { metadataOnly: true });
    // The refresh period is long: only the CRD's watch event can bring the new type in time.
    const cache = new DiscoveryCache(t.client, { refreshPeriodMs: 600_000, changes$: crds.events$ });
    const emitted: Discovery[] = [];
    const subscription = cache.discoveries$.subscribe((d) => emitted.push(d));
    try {
      await waitUntil(() => emitted.length === 1, 'the first discovery');
      await crds.waitForSync();
      expect(emitted[0]!.resources.some((r) => r.group === 'cache.example.com')).toBe(false);
      await createOpenCrd(t.client, { group: 'cache.example.com', plural: 'gizmos', kind: 'Gizmo' });
      await waitUntil(() => emitted.some((d) => d.resources.some((r) => r.group === 'cache.example.com' && r.resource === 'gizmos')), 'the new type in an emitted discovery');
      const last = emitted.at(-1)!;
      expect(last.resources.find((r) => r.resource === 'gizmos')).toMatchObject({ version: 'v1', kind: 'Gizmo', namespaced: true });
      // The CRD's later status writes (Established) read the lists again, which did not change: not emitted again.
      expect(emitted.filter((d) => d.resources.some((r) => r.resource === 'gizmos')).length).toBe(1);
    } finally {
      subscription.unsubscribe();
      cache.stop();
      crds.stop();
    }
  });

  it('holds every served version of a group, each type with its subresources, the preferred ones also in resources', async () => {
    // Two served versions: v1 (preferred, as Kubernetes orders them) without a scale subresource, v1beta1 with one.
    const schema = { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } };
    await t.client.create(customResourceDefinitions, {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'dials.versions.example.com' },
      spec: {
        group: 'versions.example.com',
        scope: 'Namespaced',
        names: { plural: 'dials', singular: 'dial', kind: 'Dial', listKind: 'DialList' },
        versions: [
          { name: 'v1beta1', served: true, storage: false, schema, subresources: { status: {}, scale: { specReplicasPath: '.spec.replicas', statusReplicasPath: '.status.replicas' } } },
          { name: 'v1', served: true, storage: true, schema, subresources: { status: {} } },
        ],
      },
    } as never);
    const cache = new DiscoveryCache(t.client, { refreshPeriodMs: 600_000 });
    try {
      await waitUntil(async () => (await cache.fresh()).groupVersions!.some((gv) => gv.group === 'versions.example.com' && gv.version === 'v1beta1'), 'both versions served', 100);
      const discovery = await cache.current();
      // resources: the preferred version only, as before.
      expect(discovery.resources.filter((r) => r.resource === 'dials').map((r) => r.version)).toEqual(['v1']);
      const versions = discovery.groupVersions!.filter((gv) => gv.group === 'versions.example.com');
      expect(versions.map((gv) => [gv.version, gv.preferred])).toEqual([
        ['v1', true],
        ['v1beta1', false],
      ]);
      expect(typeAtVersion(discovery, 'versions.example.com/v1beta1', 'Dial')).toMatchObject({ served: true, type: { version: 'v1beta1', resource: 'dials' } });
      expect(subresourcesAt(discovery, 'versions.example.com/v1beta1', 'Dial')).toEqual(['scale', 'status']);
      expect(subresourcesAt(discovery, 'versions.example.com/v1', 'Dial')).toEqual(['status']);
      expect(typeAtVersion(discovery, 'versions.example.com/v1', 'Dial')).toMatchObject({ served: true, type: { version: 'v1', subresources: ['status'] } });
      expect(typeAtVersion(discovery, 'versions.example.com/v2', 'Dial')).toEqual({ served: false });
      expect(typeAtVersion(discovery, 'versions.example.com/v1', 'Knob')).toEqual({ served: true });
      // Built-in kinds too: the core group, and a group with two served versions.
      expect(typeAtVersion(discovery, 'v1', 'Pod')).toMatchObject({ served: true, type: { resource: 'pods' } });
      expect(subresourcesAt(discovery, 'v1', 'Pod')).toEqual(expect.arrayContaining(['binding', 'eviction', 'log', 'status']));
      expect(subresourcesAt(discovery, 'apps/v1', 'Deployment')).toEqual(expect.arrayContaining(['scale', 'status']));
      expect(subresourcesAt(discovery, 'v1', 'ConfigMap')).toEqual([]);
      expect(typeAtVersion(discovery, 'autoscaling/v1', 'HorizontalPodAutoscaler')).toMatchObject({ served: true, type: { version: 'v1' } });
      expect(typeAtVersion(discovery, 'autoscaling/v2', 'HorizontalPodAutoscaler')).toMatchObject({ served: true, type: { version: 'v2' } });
    } finally {
      cache.stop();
    }
  });
});

describe('DiscoveryCache.typeAtVersion', () => {
  it('looks for a kind it misses in a fresh read: a type served after the latest read is found without waiting for a refresh', async () => {
    // No change feed and an hour's refresh: only the miss can make it read again.
    const cache = new DiscoveryCache(t.client, { refreshPeriodMs: 3_600_000 });
    try {
      expect(await cache.typeAtVersion('late.example.com/v1', 'Late')).toEqual({ served: false });
      await createOpenCrd(t.client, { group: 'late.example.com', plural: 'lates', kind: 'Late' });
      await waitUntil(async () => typeAtVersion(await discoverResources(t.client), 'late.example.com/v1', 'Late').served, 'the CRD served');
      // The cache's latest read is from before the CRD: current() still misses it.
      expect(typeAtVersion(await cache.current(), 'late.example.com/v1', 'Late')).toEqual({ served: false });
      expect(await cache.typeAtVersion('late.example.com/v1', 'Late')).toMatchObject({ served: true, type: { resource: 'lates', kind: 'Late' } });
      // A hit answers from the cache: no read.
      const before = t.requests.length;
      expect(await cache.typeAtVersion('apps/v1', 'Deployment')).toMatchObject({ served: true, type: { resource: 'deployments' } });
      expect(discoveryRequests(before)).toEqual({ roots: [], lists: [] });
    } finally {
      cache.stop();
    }
  });
});
