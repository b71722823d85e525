// ResourceCaches.sourceOf: the one place that picks the cache or the store for a read or a watch
// start, here on a real memory store (in-process: the cache learns every commit before the write
// returns). Over HTTP, on every backend, the read and watch suites cover the same rule.
import { afterEach, describe, expect, it } from 'vitest';
import { builtinRegistry, isStatusError } from '../../src/api/index.js';
import { ResourceCaches } from '../../src/apiserver/resource-caches.js';
import { MemoryStore } from '../../src/storage/index.js';

const registry = builtinRegistry();
const configMaps = registry.lookup('', 'v1', 'configmaps')!;
const bytes = (name: string) => new TextEncoder().encode(JSON.stringify({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name, namespace: 'default' } }));

describe('ResourceCaches.sourceOf', () => {
  let caches: ResourceCaches | undefined;
  afterEach(() => caches?.stop());

  async function started(store: MemoryStore) {
    caches = new ResourceCaches({ store, registry, tooLargeWaitMs: 50 });
    await caches.start();
    return caches;
  }

  it('answers a consistent read from the cache at once, without a promise, on an in-process store', async () => {
    const store = new MemoryStore();
    const caches = await started(store);
    await store.create('/registry/core/configmaps/default/a', bytes('a'));
    expect(caches.sourceOf(configMaps, { kind: 'MostRecent' })).toBe('cache');
    // The cache has the write already: the in-process store handed it over before create returned.
    expect(caches.of(configMaps).get('/registry/core/configmaps/default/a')).toBeDefined();
  });

  it('serves Any, Continuation and a reached revision from the cache once it holds its first list', async () => {
    const store = new MemoryStore();
    const caches = await started(store);
    const { modRevision } = await store.create('/registry/core/configmaps/default/a', bytes('a'));
    await expect(caches.sourceOf(configMaps, { kind: 'Any' })).resolves.toBe('cache');
    await expect(caches.sourceOf(configMaps, { kind: 'Continuation', token: 'x' })).resolves.toBe('cache');
    await expect(caches.sourceOf(configMaps, { kind: 'NotOlderThan', revision: modRevision })).resolves.toBe('cache');
    await expect(caches.sourceOf(configMaps, { kind: 'Exact', revision: modRevision })).resolves.toBe('cache');
  });

  it('refuses a revision the server does not reach in time with 504 Too large resource version', async () => {
    const store = new MemoryStore();
    const caches = await started(store);
    const current = await store.revision();
    const error = await Promise.resolve(caches.sourceOf(configMaps, { kind: 'NotOlderThan', revision: current + 10 })).catch((e: unknown) => e);
    expect(isStatusError(error)).toBe(true);
    expect((error as { toStatus(): { code: number; message: string } }).toStatus()).toMatchObject({ code: 504, message: expect.stringContaining('Too large resource version') });
  });

  it('waits for a revision committed during the wait, and serves it from the cache', async () => {
    const store = new MemoryStore();
    const caches = await started(store);
    const next = (await store.revision()) + 1;
    const source = caches.sourceOf(configMaps, { kind: 'Exact', revision: next });
    await store.create('/registry/core/configmaps/default/b', bytes('b'));
    await expect(source).resolves.toBe('cache');
  });
});
