import { firstValueFrom, take, toArray } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryStore, StorageError, type Store, type StoreEvent } from '../../src/storage/index.js';
import { WatchExpiredError, type CacheEvent, type WatchCache } from '../../src/watch-cache/index.js';
import { FaultyStore, P, backends, bytes, key, lines, newCache, record, red, storeState, thing, type Thing } from './fixtures.js';

const pad = (i: number) => `o${String(i).padStart(2, '0')}`;

/** The store's own account of what happened under `prefix` after `from`, as `type name@rev`. */
async function storeEvents(store: Store, prefix: string, from: number, count: number): Promise<string[]> {
  const events = await firstValueFrom(store.watch(prefix, from).pipe(take(count), toArray()));
  return events.map((e: StoreEvent) => `${e.type === 'delete' ? 'DELETED' : e.prevValue ? 'MODIFIED' : 'ADDED'} ${e.key.slice(P.length)}@${e.revision}`);
}
const short = (events: readonly CacheEvent<Thing>[]) => events.map((e) => `${e.type} ${e.object.object.metadata.name}@${e.revision}`);

describe('WatchCache.watch', () => {
  let store: MemoryStore;
  let cache: WatchCache<Thing>;

  beforeEach(() => {
    store = new MemoryStore();
  });
  afterEach(async () => {
    cache?.stop();
    await store.close();
  });

  describe('with initial events', () => {
    it('sends every object as ADDED in key order, then live events, with nothing lost or doubled by writes made meanwhile', async () => {
      for (let i = 0; i < 20; i++) await store.create(key(pad(i)), bytes(thing(pad(i))));
      cache = newCache(store);
      await cache.ready;
      const at = cache.revision;
      const o10 = (await store.get(key('o10')))!;
      const seen: CacheEvent<Thing>[] = [];
      let endedAfter: number | undefined;
      const sub = cache
        .watch({ initialEvents: true, onInitialEventsEnd: (revision) => (endedAfter = (expect(revision).toBe(at), seen.length)) })
        .subscribe((event) => {
          seen.push(event);
          // Writes from inside the initial events: they commit (and reach the cache) right now.
          if (seen.length === 5) {
            void store.create(key('new'), bytes(thing('new')));
            void store.update(key('o10'), bytes(thing('o10', 1)), o10.modRevision);
          }
        });
      expect(endedAfter).toBe(20);
      expect(short(seen.slice(0, 20))).toEqual(Array.from({ length: 20 }, (_, i) => `ADDED ${pad(i)}@${at}`));
      expect(seen[10]!.object.object.spec.n).toBe(0);
      expect(short(seen.slice(20))).toEqual([`ADDED new@${at + 1}`, `MODIFIED o10@${at + 2}`]);

      await store.delete(key('o03'));
      expect(short(seen.slice(22))).toEqual([`DELETED o03@${at + 3}`]);
      sub.unsubscribe();
    });

    it('sends only the objects its prefix and filter select', async () => {
      await store.create(key('a/x'), bytes(thing('ax', 0, { color: 'red' })));
      await store.create(key('a/y'), bytes(thing('ay', 0, { color: 'blue' })));
      await store.create(key('b/z'), bytes(thing('bz', 0, { color: 'red' })));
      cache = newCache(store);
      await cache.ready;
      const w = record(cache.watch({ initialEvents: true, prefix: key('a/'), filter: red }));
      expect(short(w.events)).toEqual([`ADDED ax@${cache.revision}`]);
      w.sub.unsubscribe();
    });

    it('waits for the cache to reach a requested revision before taking the initial state', async () => {
      cache = newCache(store);
      await cache.ready;
      const target = cache.revision + 2;
      const w = record(cache.watch({ initialEvents: true, fromRevision: target }));
      await store.create(key('a'), bytes(thing('a')));
      expect(w.events).toEqual([]);
      await store.create(key('b'), bytes(thing('b')));
      expect(short(w.events)).toEqual([`ADDED a@${target}`, `ADDED b@${target}`]);
      w.sub.unsubscribe();
    });
  });

  describe('from a revision', () => {
    it('replays the history after that revision, then follows live events', async () => {
      cache = newCache(store);
      await cache.ready;
      const a = await store.create(key('a'), bytes(thing('a')));
      const b = await store.create(key('b'), bytes(thing('b')));
      await store.update(key('a'), bytes(thing('a', 1)), a.modRevision);
      const w = record(cache.watch({ fromRevision: b.modRevision - 1 }));
      expect(short(w.events)).toEqual([`ADDED b@${b.modRevision}`, `MODIFIED a@${b.modRevision + 1}`]);
      expect(w.events[1]!.prev!.object.spec.n).toBe(0);
      await store.delete(key('b'));
      expect(short(w.events).slice(2)).toEqual([`DELETED b@${b.modRevision + 2}`]);
      expect(cache.stats()).toMatchObject({ hubListeners: 1, replaying: 0 });
      w.sub.unsubscribe();
    });

    it('waits for a revision newer than the cache', async () => {
      cache = newCache(store);
      await cache.ready;
      const w = record(cache.watch({ fromRevision: cache.revision + 2 }));
      await store.create(key('a'), bytes(thing('a')));
      await store.create(key('b'), bytes(thing('b')));
      const c = await store.create(key('c'), bytes(thing('c')));
      expect(short(w.events)).toEqual([`ADDED c@${c.modRevision}`]);
      w.sub.unsubscribe();
    });

    it('errors with WatchExpiredError when the store has compacted what the history lost', async () => {
      cache = newCache(store, { maxHistory: 3 });
      await cache.ready;
      for (let i = 1; i <= 10; i++) await store.create(key(pad(i)), bytes(thing(pad(i))));
      await store.compact(8);
      const w = record(cache.watch({ fromRevision: 2 }));
      expect(w.error).toBeInstanceOf(WatchExpiredError);
      // The history holds 8..10 (a watch can start after 7); the store, compacted at 8, also from 7.
      expect(w.error).toMatchObject({ code: 'Expired', requested: 2, oldest: 7, message: 'too old resource version: 2 (7)' });
      expect(cache.stats()).toMatchObject({ watchers: 0, replaying: 0 });
      const ok = record(cache.watch({ fromRevision: 7 }));
      expect(short(ok.events)).toEqual(['ADDED o08@8', 'ADDED o09@9', 'ADDED o10@10']);
      ok.sub.unsubscribe();
    });
  });

  for (const backend of backends) {
    it(`replays from the store what the history no longer holds, then hands over to live events exactly once, in order (${backend.name})`, async () => {
      const { store: s, dispose } = backend.open();
      const c = newCache(s, { maxHistory: 3 });
      try {
        await c.ready;
        const from = await s.revision();
        for (let i = 0; i < 10; i++) await s.create(key(pad(i)), bytes(thing(pad(i))));
        const first = (await s.get(key('o00')))!;
        let wrote = false;
        const seen: CacheEvent<Thing>[] = [];
        const sub = c.watch({ fromRevision: from }).subscribe((event) => {
          seen.push(event);
          // A write from inside the replay: it must arrive once, after everything before it.
          if (!wrote) {
            wrote = true;
            void s.update(key('o00'), bytes(thing('o00', 1)), first.modRevision);
          }
        });
        for (let i = 10; i < 15; i++) await s.create(key(pad(i)), bytes(thing(pad(i))));
        await s.delete(key('o05'));
        const end = await s.revision();
        expect(await c.waitForRevision(end, 60_000)).toBe(true);
        expect(short(seen)).toEqual(await storeEvents(s, P, from, 17));
        expect(c.stats()).toMatchObject({ watchers: 1, hubListeners: 1, replaying: 0 });
        sub.unsubscribe();
        expect(c.stats()).toMatchObject({ watchers: 0, hubListeners: 0, replaying: 0 });
      } finally {
        c.stop();
        await dispose();
      }
    });
  }

  describe('with a filter', () => {
    it('turns updates that leave the filter into DELETED, that enter it into ADDED, and hides the rest', async () => {
      cache = newCache(store);
      await cache.ready;
      const w = record(cache.watch({ filter: red }));
      let kv = await store.create(key('a'), bytes(thing('a', 0, { color: 'red' })));
      kv = await store.update(key('a'), bytes(thing('a', 1, { color: 'red' })), kv.modRevision);
      kv = await store.update(key('a'), bytes(thing('a', 2, { color: 'blue' })), kv.modRevision);
      const left = kv.modRevision;
      kv = await store.update(key('a'), bytes(thing('a', 3, { color: 'blue' })), kv.modRevision);
      kv = await store.update(key('a'), bytes(thing('a', 4, { color: 'red' })), kv.modRevision);
      const gone = await store.delete(key('a'));
      await store.create(key('b'), bytes(thing('b', 0, { color: 'blue' })));
      expect(short(w.events)).toEqual([
        `ADDED a@${left - 2}`,
        `MODIFIED a@${left - 1}`,
        `DELETED a@${left}`,
        `ADDED a@${left + 2}`,
        `DELETED a@${gone.modRevision}`,
      ]);
      // Leaving the filter carries the new state; a real delete the last state at the delete.
      expect(w.events[2]!.object.object).toMatchObject({ spec: { n: 2 }, metadata: { labels: { color: 'blue' }, resourceVersion: String(left) } });
      expect(w.events[4]!.object.object).toMatchObject({ spec: { n: 4 }, metadata: { resourceVersion: String(gone.modRevision) } });
      w.sub.unsubscribe();
    });
  });

  it('sends a DELETED carrying the last state stamped with the revision of the delete', async () => {
    cache = newCache(store);
    await cache.ready;
    const kv = await store.create(key('a'), bytes(thing('a', 7)));
    const w = record(cache.watch());
    const gone = await store.delete(key('a'), kv.modRevision);
    expect(w.events).toHaveLength(1);
    const [deleted] = w.events;
    expect(deleted).toMatchObject({ type: 'DELETED', revision: gone.modRevision, object: { key: key('a'), revision: gone.modRevision } });
    expect(deleted!.object.object).toEqual({ metadata: { name: 'a', resourceVersion: String(gone.modRevision) }, spec: { n: 7 } });
    expect(deleted!.prev!.revision).toBe(kv.modRevision);
    w.sub.unsubscribe();
  });

  it('delivers every event to every watcher in revision order, even when a watcher writes from its callback', async () => {
    cache = newCache(store);
    await cache.ready;
    const first: string[] = [];
    const second = record(cache.watch());
    const sub = cache.watch().subscribe((event) => {
      first.push(`${event.object.object.metadata.name}@${event.revision}`);
      const { n } = event.object.object.spec;
      if (event.type !== 'DELETED' && n < 5) void store.update(event.object.key, bytes(thing(event.object.object.metadata.name, n + 1)), event.object.revision);
    });
    const third = record(cache.watch());
    await store.create(key('a'), bytes(thing('a')));
    await store.create(key('b'), bytes(thing('b')));
    expect(first).toHaveLength(12);
    for (const other of [second, third]) {
      expect(other.events.map((e) => `${e.object.object.metadata.name}@${e.revision}`)).toEqual(first);
    }
    const revisions = second.events.map((e) => e.revision);
    expect(revisions).toEqual([...revisions].sort((x, y) => x - y));
    sub.unsubscribe();
    second.sub.unsubscribe();
    third.sub.unsubscribe();
  });

  it('stops delivering on unsubscribe and leaves no listener behind', async () => {
    cache = newCache(store, { maxHistory: 2 });
    await cache.ready;
    for (let i = 0; i < 5; i++) await store.create(key(pad(i)), bytes(thing(pad(i))));

    const live = record(cache.watch());
    expect(cache.stats()).toMatchObject({ watchers: 1, hubListeners: 1 });
    live.sub.unsubscribe();
    await store.create(key('after'), bytes(thing('after')));
    expect(live.events).toEqual([]);

    // A watch still replaying from the store (nothing under its prefix has reached the history).
    const replaying = record(cache.watch({ prefix: key('quiet/'), fromRevision: 1 }));
    expect(cache.stats()).toMatchObject({ watchers: 1, hubListeners: 0, replaying: 1 });
    replaying.sub.unsubscribe();

    // One that ends itself in the middle of its initial events.
    const three = await firstValueFrom(cache.watch({ initialEvents: true }).pipe(take(3), toArray()));
    expect(three).toHaveLength(3);

    expect(cache.stats()).toMatchObject({ watchers: 0, hubListeners: 0, replaying: 0 });
  });

  /**
   * A cache whose store watch goes deaf while `lose` writes; the store then compacts past those
   * writes and the watch fails with Compacted, so the cache must relist. Answers the revision of
   * the last write (the relist's).
   */
  async function lostToCompaction(faulty: FaultyStore, lose: () => Promise<number>): Promise<number> {
    faulty.dropping = true;
    const last = await lose();
    await store.compact(last);
    faulty.dropping = false;
    faulty.cut(new StorageError('Compacted', 'compacted', { compactedRevision: last }));
    expect(await cache.waitForRevision(last, 60_000)).toBe(true);
    return last;
  }

  it('re-lists after its store watch fails with Compacted and turns the differences into events for live watchers', async () => {
    const faulty = new FaultyStore(store);
    cache = newCache(faulty);
    await cache.ready;
    const a = await store.create(key('a'), bytes(thing('a', 1)));
    const b = await store.create(key('b'), bytes(thing('b', 1)));
    await store.create(key('d'), bytes(thing('d', 1)));
    const w = record(cache.watch());
    const filtered = record(cache.watch({ filter: red }));

    // The cache's watch loses these events, then the store compacts them away.
    let b2!: { modRevision: number };
    const at = await lostToCompaction(faulty, async () => {
      await store.delete(key('a'), a.modRevision);
      b2 = await store.update(key('b'), bytes(thing('b', 2, { color: 'red' })), b.modRevision);
      return (await store.create(key('c'), bytes(thing('c', 1)))).modRevision;
    });
    expect(lines(w.events)).toEqual([
      `MODIFIED b@${b2.modRevision} rv=${b2.modRevision}`,
      `DELETED a@${at} rv=${at}`,
      `ADDED c@${at} rv=${at}`,
    ]);
    expect(short(filtered.events)).toEqual([`ADDED b@${b2.modRevision}`]);
    const cached = new Map(cache.list().items.map((v) => [v.object.metadata.name, v.revision]));
    expect(cached).toEqual(await storeState(store));
    expect(cache.stats().relists).toBe(1);

    // And it follows the store again.
    const e = await store.create(key('e'), bytes(thing('e')));
    expect(short(w.events.slice(3))).toEqual([`ADDED e@${e.modRevision}`]);
    w.sub.unsubscribe();
    filtered.sub.unsubscribe();
  });

  it("expires a watch that resumes from a relist's revision when that relist told several changes at it", async () => {
    const faulty = new FaultyStore(store);
    cache = newCache(faulty);
    await cache.ready;
    const a = await store.create(key('a'), bytes(thing('a', 1)));
    const b = await store.create(key('b'), bytes(thing('b', 1)));
    const live = record(cache.watch());

    // Both deletes are lost to the cache and compacted away: the relist's diff gives both at its revision.
    const at = await lostToCompaction(faulty, async () => {
      await store.delete(key('a'), a.modRevision);
      await store.delete(key('b'), b.modRevision);
      return (await store.create(key('c'), bytes(thing('c', 1)))).modRevision;
    });
    expect(lines(live.events)).toEqual([`DELETED a@${at} rv=${at}`, `DELETED b@${at} rv=${at}`, `ADDED c@${at} rv=${at}`]);

    // A client cut after the first of them resumes from `at`: nothing can give it b's delete.
    const resumed = record(cache.watch({ fromRevision: at }));
    expect(resumed.error).toBeInstanceOf(WatchExpiredError);
    // After the next change, a watch from it is served as ever.
    const d = await store.create(key('d'), bytes(thing('d', 1)));
    expect(await cache.waitForRevision(d.modRevision, 60_000)).toBe(true);
    const after = record(cache.watch({ fromRevision: d.modRevision }));
    expect(after.error).toBeUndefined();
    live.sub.unsubscribe();
    after.sub.unsubscribe();
  });

  it('resumes its store watch after a transient failure without relisting or losing an event', async () => {
    const faulty = new FaultyStore(store);
    cache = newCache(faulty);
    await cache.ready;
    const w = record(cache.watch());
    faulty.cut(new StorageError('Unavailable', 'connection lost'));
    expect(faulty.watches).toBe(0);
    await store.create(key('a'), bytes(thing('a')));
    const b = await store.create(key('b'), bytes(thing('b')));
    expect(await cache.waitForRevision(b.modRevision, 60_000)).toBe(true);
    expect(short(w.events)).toEqual([`ADDED a@${b.modRevision - 1}`, `ADDED b@${b.modRevision}`]);
    expect(cache.stats().relists).toBe(0);
    w.sub.unsubscribe();
  });
});
