// The resource metrics' round reads the Nodes' agent endpoints from the Nodes' watch cache (each
// version parsed once), and from the store only while the cache is not ready: a round runs every
// --metric-resolution over every Node. On a real memory store that counts its lists.
import { afterEach, describe, expect, it } from 'vitest';
import { builtinRegistry } from '../../src/api/index.js';
import { ObjectReader } from '../../src/apiserver/object-reader.js';
import { ResourceCaches } from '../../src/apiserver/resource-caches.js';
import { cachedNodeEndpoints } from '../../src/apiserver/resource-metrics/index.js';
import { MemoryStore, type ListOptions } from '../../src/storage/index.js';

const registry = builtinRegistry();
const nodes = registry.lookup('', 'v1', 'nodes')!;

class CountingStore extends MemoryStore {
  nodeLists = 0;
  override list(prefix: string, options?: ListOptions) {
    if (prefix.includes('/nodes/')) this.nodeLists++;
    return super.list(prefix, options);
  }
}

const node = (name: string, port?: number) =>
  new TextEncoder().encode(
    JSON.stringify({
      kind: 'Node',
      apiVersion: 'v1',
      metadata: { name },
      ...(port === undefined ? {} : { status: { addresses: [{ type: 'InternalIP', address: '10.0.0.1' }], daemonEndpoints: { kubeletEndpoint: { Port: port } } } }),
    }),
  );

describe('cachedNodeEndpoints', () => {
  let caches: ResourceCaches | undefined;
  afterEach(() => caches?.stop());

  it('reads the store until the cache is ready, then the cache, parsing each version once', async () => {
    const store = new CountingStore();
    await store.create('/registry/core/nodes/a', node('a', 10250));
    await store.create('/registry/core/nodes/b', node('b'));
    caches = new ResourceCaches({ store, registry });
    const endpoints = cachedNodeEndpoints(caches, nodes, new ObjectReader(store));

    expect(await endpoints()).toEqual([
      { node: 'a', address: '10.0.0.1', port: 10250 },
      { node: 'b', address: undefined, port: undefined },
    ]);
    expect(store.nodeLists).toBe(1);

    await caches.start();
    const listsAfterStart = store.nodeLists;
    const first = await endpoints();
    const second = await endpoints();
    expect(first).toEqual([
      { node: 'a', address: '10.0.0.1', port: 10250 },
      { node: 'b', address: undefined, port: undefined },
    ]);
    // The same parsed endpoint for the same version: nothing read or parsed again.
    expect(second[0]).toBe(first[0]);
    expect(second[1]).toBe(first[1]);
    expect(store.nodeLists).toBe(listsAfterStart);

    // A new version (the agent reported its port) is read as it is now; a deleted Node is gone.
    const { modRevision } = (await store.get('/registry/core/nodes/b'))!;
    await store.update('/registry/core/nodes/b', node('b', 10251), modRevision);
    const deleted = await store.delete('/registry/core/nodes/a');
    await caches.of(nodes).waitForRevision(deleted.modRevision, 5_000);
    expect(await endpoints()).toEqual([{ node: 'b', address: '10.0.0.1', port: 10251 }]);
    expect(store.nodeLists).toBe(listsAfterStart);
  });
});
