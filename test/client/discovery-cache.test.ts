import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { customResourceDefinitions, DiscoveryCache, Informer, type Discovery } from '../../src/client/index.js';
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
});
