/**
 * Waits for an informer's cache to catch up with a test's writes. A write's answer does not mean
 * a loop's caches have it: the watch event is a separate frame, sent after the answer, and a busy
 * watch's frames wait up to `--watch-write-interval` more (10 ms by default,
 * docs/watch.md#write-interval). A test that writes and then moves a virtual clock to run a pass
 * that reads the caches waits here first, else the pass may judge the state from before the write
 * (docs/testing.md#virtual-time).
 */
import type { KubeObject } from '../../src/api/index.js';
import { resourceVersionOf, type Informer } from '../../src/client/index.js';
import { waitUntil } from './wait.js';

/** The cache's key of an object: `namespace/name`, or `name` for a cluster-scoped one. */
const keyOf = (object: KubeObject): string => (object.metadata.namespace ? `${object.metadata.namespace}/${object.metadata.name}` : `${object.metadata.name}`);

/** svc's stores write resourceVersions as revisions (integers); the kit compares them so. */
const revision = (version: string | undefined, what: string): bigint => {
  if (version === undefined || !/^\d+$/.test(version)) throw new Error(`${what}: resourceVersion ${String(version)} is not a revision`);
  return BigInt(version);
};

/**
 * Resolves once `informer`'s cache holds each of `written` (the answers of the test's writes) at
 * its resourceVersion or a later one: the cache has every change up to that write. Later
 * versions count because the loop itself may have written the object since.
 */
export async function cacheHolds<T extends KubeObject>(informer: Informer<T>, ...written: readonly T[]): Promise<void> {
  const wanted = written.map((object) => ({ key: keyOf(object), revision: revision(object.metadata.resourceVersion, keyOf(object)) }));
  const what = `the cache holds ${wanted.map(({ key, revision: at }) => `${key}@${at}`).join(', ')}`;
  await waitUntil(
    () =>
      wanted.every(({ key, revision: at }) => {
        const cached = informer.store.get(key);
        return cached !== undefined && revision(resourceVersionOf(cached), key) >= at;
      }),
    what,
  );
}

