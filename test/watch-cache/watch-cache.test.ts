import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryStore, isStorageError, type Store } from '../../src/storage/index.js';
import { WatchCache, WatchCacheNotReadyError } from '../../src/watch-cache/index.js';
import { Clock, P, backends, bytes, decode, key, newCache, red, storeState, thing, type Thing } from './fixtures.js';
import { seededRandom as random } from '../support/prng.js';

const names = (items: readonly { object: Thing }[]) => items.map((i) => i.object.metadata.name);

describe('WatchCache: state, gets and lists', () => {
  let store: MemoryStore;
  let cache: WatchCache<Thing>;

  beforeEach(() => {
    store = new MemoryStore();
  });
  afterEach(async () => {
    cache?.stop();
    await store.close();
  });

  it('lists the store in pages at one revision, then follows its watch', async () => {
    for (const name of ['a', 'b', 'c', 'd', 'e']) await store.create(key(name), bytes(thing(name)));
    await store.create('/registry/other/x', bytes(thing('x')));
    cache = newCache(store, { listPageSize: 2 });
    await cache.ready;
    expect(cache.revision).toBe(await store.revision());
    expect(names(cache.list().items)).toEqual(['a', 'b', 'c', 'd', 'e']);

    const b = (await store.get(key('b')))!;
    await store.update(key('b'), bytes(thing('b', 1)), b.modRevision);
    await store.delete(key('c'));
    const f = await store.create(key('f'), bytes(thing('f')));
    expect(await cache.waitForRevision(f.modRevision, 60_000)).toBe(true);
    expect(names(cache.list().items)).toEqual(['a', 'b', 'd', 'e', 'f']);
    expect(cache.get(key('b'))!.object.spec.n).toBe(1);
    expect(cache.get(key('c'))).toBeUndefined();
  });

  it('holds each version once: frozen, stamped, its JSON bytes computed once and shared', async () => {
    const created = await store.create(key('a'), bytes(thing('a', 1, { color: 'red' })));
    cache = newCache(store);
    await cache.ready;
    const version = cache.get(key('a'))!;
    expect(version.revision).toBe(created.modRevision);
    expect(version.object.metadata.resourceVersion).toBe(String(created.modRevision));
    expect(Object.isFrozen(version)).toBe(true);
    expect(Object.isFrozen(version.object.metadata.labels)).toBe(true);
    expect(version.bytes()).toBe(version.bytes());
    expect(JSON.parse(new TextDecoder().decode(version.bytes()))).toEqual(version.object);
    expect(cache.list().items[0]).toBe(version);
  });

  it('pages a list in key order and counts the matching keys after the page', async () => {
    for (let i = 0; i < 10; i++) await store.create(key(`ns${i % 2}/o${i}`), bytes(thing(`o${i}`, i, { color: i % 3 === 0 ? 'red' : 'blue' })));
    cache = newCache(store);
    await cache.ready;

    const first = cache.list({ limit: 4 });
    expect(names(first.items)).toEqual(['o0', 'o2', 'o4', 'o6']);
    expect(first.remaining).toBe(6);
    const next = cache.list({ limit: 4, startKey: `${first.items[3]!.key}!` });
    expect(names(next.items)).toEqual(['o8', 'o1', 'o3', 'o5']);
    expect(next.remaining).toBe(2);

    const ns1 = cache.list({ prefix: key('ns1/'), limit: 2 });
    expect(names(ns1.items)).toEqual(['o1', 'o3']);
    expect(ns1.remaining).toBe(3);

    const reds = cache.list({ filter: red, limit: 2 });
    expect(names(reds.items)).toEqual(['o0', 'o6']);
    expect(reds.remaining).toBe(2); // o3 and o9
    expect(cache.list({ filter: red }).items).toHaveLength(4);
    expect(cache.list({ prefix: key('ns2/') })).toEqual({ items: [], revision: cache.revision, remaining: 0 });
  });

  it('rejects a prefix outside its own and a startKey outside the prefix', async () => {
    cache = newCache(store);
    await cache.ready;
    const code = (f: () => unknown) => {
      try {
        f();
      } catch (error) {
        return isStorageError(error) ? error.code : error;
      }
      return 'no error';
    };
    expect(code(() => cache.list({ prefix: '/registry/other/' }))).toBe('InvalidArgument');
    expect(code(() => cache.list({ prefix: key('a/'), startKey: key('b') }))).toBe('InvalidArgument');
    expect(code(() => cache.list({ limit: -1 }))).toBe('InvalidArgument');
    expect(code(() => cache.watch({ prefix: '/registry/' }))).toBe('InvalidArgument');
  });

  it('refuses reads before its first list is applied', () => {
    cache = new WatchCache<Thing>({ store, prefix: P, decode });
    expect(() => cache.list()).toThrow(WatchCacheNotReadyError);
    expect(() => cache.get(key('a'))).toThrow(WatchCacheNotReadyError);
  });

  it('treats a value decode rejects as absent, and says so', async () => {
    await store.create(key('good'), bytes(thing('good')));
    await store.create(key('bad'), new TextEncoder().encode('{not json'));
    const rejected: string[] = [];
    cache = newCache(store, { onDecodeError: (k) => rejected.push(k) });
    await cache.ready;
    expect(names(cache.list().items)).toEqual(['good']);
    expect(rejected).toEqual([key('bad')]);
  });
});

describe('WatchCache: waitForRevision', () => {
  let store: MemoryStore;
  let cache: WatchCache<Thing>;

  beforeEach(async () => {
    store = new MemoryStore();
    cache = newCache(store);
    await cache.ready;
  });
  afterEach(async () => {
    cache.stop();
    await store.close();
  });

  it('resolves as soon as the cache has applied the revision', async () => {
    const next = cache.revision + 1;
    const reached = cache.waitForRevision(next, 60_000);
    let settled = false;
    void reached.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    await store.create(key('a'), bytes(thing('a')));
    expect(await reached).toBe(true);
    expect(cache.revision).toBeGreaterThanOrEqual(next);
  });

  it('resolves for a revision written under another prefix, which the cache never sees as an event', async () => {
    const other = await store.create('/registry/other/x', bytes(thing('x')));
    expect(await cache.waitForRevision(other.modRevision, 60_000)).toBe(true);
    expect(cache.revision).toBe(other.modRevision);
  });

  it('resolves false when the timeout passes first', async () => {
    expect(await cache.waitForRevision((await store.revision()) + 10, 5)).toBe(false);
  });

  it('resolves false for waits still open when the cache stops', async () => {
    const waiting = cache.waitForRevision(1_000, 60_000);
    cache.stop();
    expect(await waiting).toBe(false);
  });
});

describe('WatchCache: listAt from snapshots', () => {
  for (const backend of backends) {
    it(`returns exactly the store's list at every recent revision under concurrent writes (${backend.name})`, async () => {
      const { store, dispose } = backend.open();
      const cache = newCache(store);
      try {
        await cache.ready;
        const rand = random(7);
        const live = new Map<string, number>();
        const start = await store.revision();
        for (let round = 0; round < 40; round++) {
          // Several writes in one tick: one batch for the cache (one group commit for sqlite).
          const writes: Promise<unknown>[] = [];
          for (let i = 0; i < 1 + Math.floor(rand() * 5); i++) {
            const name = `o${Math.floor(rand() * 12)}`;
            const rev = live.get(name);
            if (rev === undefined) {
              live.set(name, -1);
              writes.push(store.create(key(name), bytes(thing(name, round))).then((kv) => live.set(name, kv.modRevision)));
            } else if (rev > 0 && rand() < 0.3) {
              live.set(name, -1);
              writes.push(store.delete(key(name), rev).then(() => live.delete(name)));
            } else if (rev > 0) {
              live.set(name, -1);
              writes.push(store.update(key(name), bytes(thing(name, round)), rev).then((kv) => live.set(name, kv.modRevision)));
            }
          }
          await Promise.all(writes);
          // Every revision so far, including ones in the middle of a batch.
          const end = await store.revision();
          expect(await cache.waitForRevision(end, 60_000)).toBe(true);
          for (let r = Math.max(start, 1); r <= end; r++) {
            const fromCache = cache.listAt(r);
            expect(fromCache, `revision ${r}`).toBeDefined();
            const cached = new Map(fromCache!.items.map((v) => [v.object.metadata.name, v.revision]));
            expect(cached, `revision ${r}`).toEqual(await storeState(store, r));
          }
        }
        // Paged, at a revision in the past, under a narrower filter.
        const mid = start + Math.floor(((await store.revision()) - start) / 2);
        const all = await storeState(store, mid);
        const pages: string[] = [];
        let startKey: string | undefined;
        for (;;) {
          const page = cache.listAt(mid, { limit: 3, ...(startKey ? { startKey } : {}) })!;
          pages.push(...page.items.map((v) => v.object.metadata.name));
          if (page.remaining === 0) break;
          startKey = `${page.items[page.items.length - 1]!.key}!`;
        }
        expect(pages).toEqual([...all.keys()]);
      } finally {
        cache.stop();
        await dispose();
      }
    });
  }

  it('returns undefined for a revision older than the snapshot window or newer than the cache', async () => {
    const store = new MemoryStore();
    const clock = new Clock();
    const cache = newCache(store, { now: clock.now, snapshotWindowMs: 75_000 });
    await cache.ready;
    const a = await store.create(key('a'), bytes(thing('a')));
    const b = await store.create(key('b'), bytes(thing('b')));
    expect(names(cache.listAt(a.modRevision)!.items)).toEqual(['a']);

    clock.advance(60_000);
    const c = await store.create(key('c'), bytes(thing('c')));
    clock.advance(20_000);
    // a's state stopped being current 80 s ago, b's 20 s ago.
    expect(cache.listAt(a.modRevision)).toBeUndefined();
    expect(names(cache.listAt(b.modRevision)!.items)).toEqual(['a', 'b']);
    expect(names(cache.listAt(c.modRevision)!.items)).toEqual(['a', 'b', 'c']);
    expect(cache.listAt(c.modRevision + 1)).toBeUndefined();
    cache.stop();
    await store.close();
  });
});

describe('WatchCache: a long snapshot window', () => {
  it('answers every revision still in the window after thousands of snapshots have left it, and none that left', async () => {
    // 5,000 writes 10 ms apart through a 10 s window: about 1,000 states are kept while 4,000
    // leave from the front, so the retained list is trimmed and compacted many times over.
    const store = new MemoryStore();
    const clock = new Clock();
    const cache = newCache(store, { now: clock.now, snapshotWindowMs: 10_000 });
    await cache.ready;
    let rev = (await store.create(key('a'), bytes(thing('a', 0)))).modRevision;
    const revisions = [rev];
    for (let n = 1; n < 5000; n++) {
      clock.advance(10);
      rev = (await store.update(key('a'), bytes(thing('a', n)), rev)).modRevision;
      revisions.push(rev);
    }
    const at = (revision: number) => cache.listAt(revision)?.items.map((i) => i.object.spec.n);
    // The state at revisions[n] stopped being current at write n+1, (n+1) × 10 ms on the clock; the
    // clock is at 49,990 ms, so the window keeps n >= 3,998.
    for (const n of [0, 1000, 3000, 3997]) expect(at(revisions[n]!)).toBeUndefined();
    for (const n of [3998, 4200, 4500, 4998, 4999]) expect(at(revisions[n]!)).toEqual([n]);
    cache.stop();
    await store.close();
  });
});

describe('WatchCache: stopping', () => {
  it('completes open watches and refuses reads once stopped', async () => {
    const store: Store = new MemoryStore();
    const cache = newCache(store);
    await cache.ready;
    let completed = false;
    cache.watch().subscribe({ complete: () => (completed = true) });
    cache.stop();
    expect(completed).toBe(true);
    expect(cache.stats().watchers).toBe(0);
    expect(() => cache.list()).toThrow(/stopped/);
    await store.close();
  });

  it('rejects ready when stopped before its first list', async () => {
    const store = new MemoryStore();
    const cache = new WatchCache<Thing>({ store, prefix: P, decode });
    cache.stop();
    await expect(cache.ready).rejects.toThrow(/stopped/);
    await store.close();
  });
});
