import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryStore, StorageError, isStorageError } from '../../src/storage/index.js';
import { WatchExpiredError, type WatchCache } from '../../src/watch-cache/index.js';
import { FaultyStore, bytes, key, lines, newCache, record, red, thing, type Thing } from './fixtures.js';

/*
 * A cache that keeps no objects (`holdsObjects: false`, the API server's Events with
 * `--watch-cache-events=false`): it follows the store and keeps the history and the live stream,
 * and nothing else. Its watches must say what the cache that keeps the objects says.
 */
describe('a watch cache that keeps no objects', () => {
  let store: MemoryStore;
  let cache: WatchCache<Thing>;

  beforeEach(() => {
    store = new MemoryStore();
  });
  afterEach(async () => {
    cache?.stop();
    await store.close();
  });

  it('starts at the store\'s revision without listing it, and holds none of its objects', async () => {
    for (let i = 0; i < 3; i++) await store.create(key(`o${i}`), bytes(thing(`o${i}`)));
    cache = newCache(store, { holdsObjects: false });
    await cache.ready;
    expect(cache.holdsObjects).toBe(false);
    expect(cache.revision).toBe(await store.revision());
    expect(cache.stats().objects).toBe(0);
    for (const read of [() => cache.get(key('o1')), () => cache.list(), () => cache.watch({ initialEvents: true })]) {
      let error: unknown;
      try {
        read();
      } catch (e) {
        error = e;
      }
      expect(isStorageError(error, 'InvalidArgument')).toBe(true);
    }
    // No state at any revision: the caller reads the store.
    expect(cache.listAt(cache.revision)).toBeUndefined();
  });

  it('tells live watchers ADDED, MODIFIED and DELETED (the last state at the delete\'s revision), as a cache of the objects does', async () => {
    cache = newCache(store, { holdsObjects: false });
    const held = newCache(store);
    try {
      await Promise.all([cache.ready, held.ready]);
      const fed = record(cache.watch());
      const full = record(held.watch());
      const a = await store.create(key('a'), bytes(thing('a', 1)));
      const a2 = await store.update(key('a'), bytes(thing('a', 2)), a.modRevision);
      const gone = await store.delete(key('a'));
      expect(lines(fed.events)).toEqual([
        `ADDED a@${a.modRevision} rv=${a.modRevision}`,
        `MODIFIED a@${a2.modRevision} rv=${a2.modRevision}`,
        `DELETED a@${gone.modRevision} rv=${gone.modRevision}`,
      ]);
      expect(lines(fed.events)).toEqual(lines(full.events));
      expect(fed.events[2]!.object.object.spec.n).toBe(2);
      fed.sub.unsubscribe();
      full.sub.unsubscribe();
    } finally {
      held.stop();
    }
  });

  it('judges selector exits and entries by the version an update replaced', async () => {
    cache = newCache(store, { holdsObjects: false });
    await cache.ready;
    const b = await store.create(key('b'), bytes(thing('b', 1)));
    const w = record(cache.watch({ filter: red }));
    const b2 = await store.update(key('b'), bytes(thing('b', 2, { color: 'red' })), b.modRevision);
    const b3 = await store.update(key('b'), bytes(thing('b', 3, { color: 'red' })), b2.modRevision);
    const b4 = await store.update(key('b'), bytes(thing('b', 4)), b3.modRevision);
    await store.update(key('b'), bytes(thing('b', 5)), b4.modRevision);
    expect(lines(w.events)).toEqual([
      `ADDED b@${b2.modRevision} rv=${b2.modRevision}`,
      `MODIFIED b@${b3.modRevision} rv=${b3.modRevision}`,
      `DELETED b@${b4.modRevision} rv=${b4.modRevision}`,
    ]);
    w.sub.unsubscribe();
  });

  it('serves a watch from a past revision from its history, and from the store before that', async () => {
    const before = await store.create(key('early'), bytes(thing('early')));
    cache = newCache(store, { holdsObjects: false });
    await cache.ready;
    const c = await store.create(key('c'), bytes(thing('c')));
    const fromHistory = record(cache.watch({ fromRevision: c.modRevision - 1 }));
    const fromStore = record(cache.watch({ fromRevision: before.modRevision - 1 }));
    const d = await store.create(key('d'), bytes(thing('d')));
    expect(lines(fromHistory.events)).toEqual([`ADDED c@${c.modRevision} rv=${c.modRevision}`, `ADDED d@${d.modRevision} rv=${d.modRevision}`]);
    expect(lines(fromStore.events)).toEqual([
      `ADDED early@${before.modRevision} rv=${before.modRevision}`,
      `ADDED c@${c.modRevision} rv=${c.modRevision}`,
      `ADDED d@${d.modRevision} rv=${d.modRevision}`,
    ]);
    fromHistory.sub.unsubscribe();
    fromStore.sub.unsubscribe();
  });

  it('ends its watches when the store compacted past it (it cannot say what changed); a resume from before then expires', async () => {
    const faulty = new FaultyStore(store);
    cache = newCache(faulty, { holdsObjects: false });
    await cache.ready;
    const w = record(cache.watch());
    const a = await store.create(key('a'), bytes(thing('a')));
    faulty.dropping = true;
    await store.delete(key('a'), a.modRevision);
    const last = (await store.create(key('b'), bytes(thing('b')))).modRevision;
    await store.compact(last);
    faulty.dropping = false;
    faulty.cut(new StorageError('Compacted', 'compacted', { compactedRevision: last }));
    expect(await cache.waitForRevision(last, 60_000)).toBe(true);
    expect(w.completed).toBe(true);
    expect(lines(w.events)).toEqual([`ADDED a@${a.modRevision} rv=${a.modRevision}`]);
    expect(cache.stats().relists).toBe(1);

    const resumed = record(cache.watch({ fromRevision: a.modRevision }));
    await new Promise((resolve) => setImmediate(resolve));
    expect(resumed.error).toBeInstanceOf(WatchExpiredError);

    // And it follows the store again.
    const live = record(cache.watch());
    const c = await store.create(key('c'), bytes(thing('c')));
    expect(lines(live.events)).toEqual([`ADDED c@${c.modRevision} rv=${c.modRevision}`]);
    live.sub.unsubscribe();
  });
});
