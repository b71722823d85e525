import { firstValueFrom, lastValueFrom, take, takeWhile, toArray, type Observable } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_KEY_LENGTH, jsonCodec, isStorageError, storePages, type Store, type StoreEvent, type ValueCodec } from '../../src/storage/index.js';

/** What one backend gives the contract: a store over fresh data that can be opened again. */
export interface StorageHarness {
  /** Opens the store (again) over this harness's data; call `close` before reopening. */
  open<V = Uint8Array>(codec?: ValueCodec<V>): Promise<Store<V>>;
  /** Closes what is open and discards the data. */
  dispose(): Promise<void>;
}

const enc = new TextEncoder();
const dec = new TextDecoder();
const b = (text: string) => enc.encode(text);
const text = (bytes: Uint8Array | undefined) => (bytes === undefined ? undefined : dec.decode(bytes));

async function expectCode(promise: Promise<unknown>, code: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, `expected StorageError ${code}`).toBeDefined();
  expect(isStorageError(error) ? error.code : error).toBe(code);
}

function collect<V>(events: Observable<StoreEvent<V>>, count: number): Promise<StoreEvent<V>[]> {
  return firstValueFrom(events.pipe(take(count), toArray()));
}

function collectUntil<V>(events: Observable<StoreEvent<V>>, revision: number): Promise<StoreEvent<V>[]> {
  return lastValueFrom(events.pipe(takeWhile((e) => e.revision < revision, true), toArray()));
}

/**
 * The storage contract: every backend (memory, sqlite, etcd) passes these same cases.
 * `makeHarness` gives each test its own data.
 */
export function runStorageContract(name: string, makeHarness: () => Promise<StorageHarness>): void {
  describe(`Store contract: ${name}`, () => {
    let harness: StorageHarness;
    let store: Store;
    let p: string;
    const key = (k: string) => `${p}${k}`;

    beforeEach(async () => {
      harness = await makeHarness();
      store = await harness.open();
      p = store.prefix;
    });
    afterEach(async () => {
      await harness.dispose();
    });

    it('says whether it commits in this process (its watches have every commit before the write returns)', () => {
      expect(store.inProcess).toBe(store.backend !== 'etcd');
    });

    describe('create, get, update, delete', () => {
      it('creates a key at a new revision and reads it back', async () => {
        const before = await store.revision();
        const created = await store.create(key('pods/default/a'), b('one'));
        expect(created.modRevision).toBeGreaterThan(before);
        expect(created.createRevision).toBe(created.modRevision);
        expect(await store.revision()).toBe(created.modRevision);
        const got = await store.get(key('pods/default/a'));
        expect(text(got?.value)).toBe('one');
        expect(got?.modRevision).toBe(created.modRevision);
        expect(got?.createRevision).toBe(created.modRevision);
      });

      it('returns undefined for a key that does not exist', async () => {
        expect(await store.get(key('nothing/here'))).toBeUndefined();
      });

      it('refuses to create a key that exists, and writes nothing', async () => {
        await store.create(key('a'), b('one'));
        const rev = await store.revision();
        await expectCode(store.create(key('a'), b('two')), 'AlreadyExists');
        expect(await store.revision()).toBe(rev);
        expect(text((await store.get(key('a')))?.value)).toBe('one');
      });

      it('lets exactly one of many concurrent creates of one key win', async () => {
        const attempts = await Promise.allSettled(Array.from({ length: 24 }, (_, i) => store.create(key('race'), b(`w${i}`))));
        const won = attempts.filter((a) => a.status === 'fulfilled');
        expect(won).toHaveLength(1);
        for (const a of attempts) {
          if (a.status === 'rejected') expect(isStorageError(a.reason, 'AlreadyExists')).toBe(true);
        }
        const winner = (won[0] as PromiseFulfilledResult<{ value: Uint8Array }>).value;
        expect(text((await store.get(key('race')))?.value)).toBe(text(winner.value));
      });

      it('updates with compare-and-swap on the modRevision', async () => {
        const created = await store.create(key('a'), b('one'));
        const updated = await store.update(key('a'), b('two'), created.modRevision);
        expect(updated.modRevision).toBeGreaterThan(created.modRevision);
        expect(updated.createRevision).toBe(created.createRevision);
        expect(text((await store.get(key('a')))?.value)).toBe('two');
      });

      it('rejects an update with a stale revision as Conflict and keeps the value', async () => {
        const created = await store.create(key('a'), b('one'));
        const updated = await store.update(key('a'), b('two'), created.modRevision);
        const rev = await store.revision();
        const error = await store.update(key('a'), b('three'), created.modRevision).catch((e: unknown) => e);
        expect(isStorageError(error, 'Conflict')).toBe(true);
        expect(isStorageError(error) && error.details.actualRevision).toBe(updated.modRevision);
        expect(await store.revision()).toBe(rev);
        expect(text((await store.get(key('a')))?.value)).toBe('two');
      });

      it('lets one of two concurrent updates from the same revision win', async () => {
        const created = await store.create(key('a'), b('one'));
        const results = await Promise.allSettled([
          store.update(key('a'), b('x'), created.modRevision),
          store.update(key('a'), b('y'), created.modRevision),
        ]);
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        const loser = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
        expect(isStorageError(loser.reason, 'Conflict')).toBe(true);
      });

      it('answers NotFound to an update of a missing key', async () => {
        await expectCode(store.update(key('missing'), b('x'), 1), 'NotFound');
      });

      it('deletes a key, returning its last value at the revision of the delete', async () => {
        const created = await store.create(key('a'), b('one'));
        const deleted = await store.delete(key('a'));
        expect(text(deleted.value)).toBe('one');
        expect(deleted.modRevision).toBeGreaterThan(created.modRevision);
        expect(await store.revision()).toBe(deleted.modRevision);
        expect(await store.get(key('a'))).toBeUndefined();
        await expectCode(store.delete(key('a')), 'NotFound');
      });

      it('deletes with compare-and-swap when given an expected revision', async () => {
        const created = await store.create(key('a'), b('one'));
        await store.update(key('a'), b('two'), created.modRevision);
        await expectCode(store.delete(key('a'), created.modRevision), 'Conflict');
        expect(text((await store.get(key('a')))?.value)).toBe('two');
        const current = await store.get(key('a'));
        await store.delete(key('a'), current!.modRevision);
        expect(await store.get(key('a'))).toBeUndefined();
      });

      it('recreates a deleted name with a new createRevision', async () => {
        const first = await store.create(key('a'), b('one'));
        await store.delete(key('a'));
        const second = await store.create(key('a'), b('two'));
        expect(second.createRevision).toBeGreaterThan(first.createRevision);
        expect(text((await store.get(key('a')))?.value)).toBe('two');
      });

      it('forceDelete removes a key and answers NotFound when it is absent', async () => {
        await store.create(key('a'), b('one'));
        const rev = await store.forceDelete(key('a'));
        expect(await store.revision()).toBe(rev);
        expect(await store.get(key('a'))).toBeUndefined();
        await expectCode(store.forceDelete(key('a')), 'NotFound');
      });

      it('numbers every write with one increasing revision across keys', async () => {
        const revs: number[] = [];
        for (let i = 0; i < 5; i++) revs.push((await store.create(key(`k${i}`), b('v'))).modRevision);
        revs.push((await store.update(key('k0'), b('w'), revs[0]!)).modRevision);
        revs.push((await store.delete(key('k1'))).modRevision);
        for (let i = 1; i < revs.length; i++) expect(revs[i]).toBeGreaterThan(revs[i - 1]!);
      });
    });

    describe('reads at a revision', () => {
      it('gets a key as it was at a past revision', async () => {
        const created = await store.create(key('a'), b('one'));
        await store.update(key('a'), b('two'), created.modRevision);
        const deleted = await store.delete(key('a'));
        expect(text((await store.get(key('a'), { revision: created.modRevision }))?.value)).toBe('one');
        expect(await store.get(key('a'), { revision: created.modRevision - 1 })).toBeUndefined();
        expect(await store.get(key('a'), { revision: deleted.modRevision })).toBeUndefined();
      });

      it('lists a past revision as the snapshot it was', async () => {
        const a = await store.create(key('pods/a'), b('a1'));
        await store.create(key('pods/b'), b('b1'));
        const snapshot = await store.revision();
        await store.update(key('pods/a'), b('a2'), a.modRevision);
        await store.delete(key('pods/b'));
        await store.create(key('pods/c'), b('c1'));
        const then = await store.list(key('pods/'), { revision: snapshot });
        expect(then.revision).toBe(snapshot);
        expect(then.items.map((i) => [i.key, text(i.value)])).toEqual([
          [key('pods/a'), 'a1'],
          [key('pods/b'), 'b1'],
        ]);
        const now = await store.list(key('pods/'));
        expect(now.items.map((i) => [i.key, text(i.value)])).toEqual([
          [key('pods/a'), 'a2'],
          [key('pods/c'), 'c1'],
        ]);
      });

      it('rejects a read at a revision newer than the store as FutureRevision', async () => {
        await store.create(key('a'), b('one'));
        const rev = await store.revision();
        await expectCode(store.get(key('a'), { revision: rev + 1000 }), 'FutureRevision');
        await expectCode(store.list(key('cm/'), { revision: rev + 1000 }), 'FutureRevision');
      });
    });

    describe('list and paging', () => {
      it('lists only the keys under the prefix, in key order, at the current revision', async () => {
        for (const k of ['pods/ns/c', 'pods/ns/a', 'podsx/ns/z', 'pods/ns/b', 'pods/other/a']) await store.create(key(k), b(k));
        const listed = await store.list(key('pods/ns/'));
        expect(listed.items.map((i) => i.key)).toEqual([key('pods/ns/a'), key('pods/ns/b'), key('pods/ns/c')]);
        expect(listed.remaining).toBe(0);
        expect(listed.revision).toBe(await store.revision());
        const all = await store.list(store.prefix);
        expect(all.items).toHaveLength(5);
      });

      it('limits a list and counts what remains', async () => {
        for (let i = 0; i < 7; i++) await store.create(key(`cm/k${i}`), b(`${i}`));
        const page = await store.list(key('cm/'), { limit: 3 });
        expect(page.items.map((i) => text(i.value))).toEqual(['0', '1', '2']);
        expect(page.remaining).toBe(4);
        const all = await store.list(key('cm/'), { limit: 0 });
        expect(all.items).toHaveLength(7);
      });

      it('pages with startKey at one revision as a consistent snapshot under concurrent writes', async () => {
        const n = 25;
        for (let i = 0; i < n; i++) await store.create(key(`cm/k${String(i).padStart(3, '0')}`), b(`v${i}`));
        const expected = (await store.list(key('cm/'))).items.map((i) => [i.key, text(i.value)]);
        const seen: (string | undefined)[][] = [];
        let page = await store.list(key('cm/'), { limit: 4 });
        const revision = page.revision;
        let writes = 0;
        for (;;) {
          seen.push(...page.items.map((i) => [i.key, text(i.value)]));
          expect(page.remaining).toBe(n - seen.length);
          // Writers change the collection between pages: none of it may show in the snapshot.
          const victim = page.items[0]!;
          const live = await store.get(victim.key);
          if (live) await store.update(victim.key, b('changed'), live.modRevision);
          await store.create(key(`cm/k${String(writes++).padStart(3, '0')}x`), b('new'));
          await store.delete(key(`cm/k${String(n - writes).padStart(3, '0')}`));
          if (page.remaining === 0) break;
          const last = page.items[page.items.length - 1]!.key;
          page = await store.list(key('cm/'), { limit: 4, revision, startKey: `${last}!` });
          expect(page.revision).toBe(revision);
        }
        expect(seen).toEqual(expected);
      });

      it('rejects a startKey outside the listed prefix', async () => {
        await expectCode(store.list(key('cm/'), { startKey: key('pods/a') }), 'InvalidArgument');
      });

      it('storePages reads every key at the revision of its first page, whatever is written between pages', async () => {
        for (let i = 0; i < 10; i++) await store.create(key(`cm/k${i}`), b(`${i}`));
        const pages: string[][] = [];
        let revision: number | undefined;
        for await (const page of storePages(store, key('cm/'), { pageSize: 3 })) {
          revision ??= page.revision;
          expect(page.revision).toBe(revision);
          pages.push(page.items.map((i) => text(i.value)!));
          await store.create(key(`cm/k${pages.length}x`), b('new'));
        }
        expect(pages).toEqual([['0', '1', '2'], ['3', '4', '5'], ['6', '7', '8'], ['9']]);
      });

      it('storePages grows its pages as asked, starts at startKey, and reads no page past a break', async () => {
        for (let i = 0; i < 10; i++) await store.create(key(`cm/k${i}`), b(`${i}`));
        const sizes: number[] = [];
        for await (const page of storePages(store, key('cm/'), { startKey: key('cm/k1'), pageSize: 1, nextPageSize: (size) => size * 2 })) {
          sizes.push(page.items.length);
        }
        expect(sizes).toEqual([1, 2, 4, 2]);
        let pages = 0;
        for await (const page of storePages(store, key('cm/'), { pageSize: 2 })) {
          pages++;
          if (page.items.length > 0) break;
        }
        expect(pages).toBe(1);
        const whole = [];
        for await (const page of storePages(store, key('cm/'))) whole.push(page.items.length);
        expect(whole).toEqual([10]);
      });

      it('storePages pages past keys of the longest length a key may have', async () => {
        const long = (c: string) => key(`cm/${c.repeat(MAX_KEY_LENGTH - key('cm/').length)}`);
        for (const c of ['a', 'b', 'c']) await store.create(long(c), b(c));
        const seen: string[] = [];
        for await (const page of storePages(store, key('cm/'), { pageSize: 1 })) seen.push(...page.items.map((i) => text(i.value)!));
        expect(seen).toEqual(['a', 'b', 'c']);
      });
    });

    describe('watch', () => {
      it('delivers puts and deletes with their previous values', async () => {
        const start = await store.revision();
        const events = collect(store.watch(key('cm/'), start), 4);
        const a = await store.create(key('cm/a'), b('one'));
        await store.create(key('other/x'), b('ignored'));
        const a2 = await store.update(key('cm/a'), b('two'), a.modRevision);
        await store.create(key('cm/b'), b('bee'));
        const del = await store.delete(key('cm/a'));
        const got = await events;
        expect(got.map((e) => [e.type, e.key, e.type === 'put' ? text(e.value) : undefined, text(e.prevValue), e.revision])).toEqual([
          ['put', key('cm/a'), 'one', undefined, a.modRevision],
          ['put', key('cm/a'), 'two', 'one', a2.modRevision],
          ['put', key('cm/b'), 'bee', undefined, a2.modRevision + 1],
          ['delete', key('cm/a'), undefined, 'two', del.modRevision],
        ]);
        expect(got[0]!.type === 'put' && got[0]!.createRevision).toBe(a.modRevision);
        expect(got[1]!.type === 'put' && got[1]!.createRevision).toBe(a.modRevision);
      });

      it('replays history after the start revision, then follows live writes', async () => {
        const start = await store.revision();
        for (let i = 0; i < 5; i++) await store.create(key(`cm/k${i}`), b(`${i}`));
        const events = collect(store.watch(key('cm/'), start + 2), 5);
        for (let i = 5; i < 7; i++) await store.create(key(`cm/k${i}`), b(`${i}`));
        const got = await events;
        expect(got.map((e) => e.revision)).toEqual([start + 3, start + 4, start + 5, start + 6, start + 7]);
      });

      it('delivers every event after N exactly once and in order while writers race the watch setup', async () => {
        const keys = 12;
        for (let i = 0; i < keys; i++) await store.create(key(`w/k${i}`), b('0'));
        const from = await store.revision();
        const rounds = 8;
        // Writers run while the watch subscribes; the watch must still see each commit after `from`.
        const writers = Array.from({ length: keys }, async (_, i) => {
          for (let r = 1; r <= rounds; r++) {
            const current = await store.get(key(`w/k${i}`));
            await store.update(key(`w/k${i}`), b(String(r)), current!.modRevision);
          }
          if (i % 3 === 0) await store.delete(key(`w/k${i}`));
        });
        await Promise.resolve();
        const expectedCount = keys * rounds + Math.ceil(keys / 3);
        const watched = collect(store.watch(key('w/'), from), expectedCount);
        await Promise.all(writers);
        const events = await watched;
        const revisions = events.map((e) => e.revision);
        const final = await store.revision();
        expect(revisions).toEqual(Array.from({ length: final - from }, (_, i) => from + 1 + i));
        const perKey = new Map<string, string[]>();
        for (const e of events) perKey.set(e.key, [...(perKey.get(e.key) ?? []), e.type === 'put' ? text(e.value)! : 'deleted']);
        for (let i = 0; i < keys; i++) {
          const expected = Array.from({ length: rounds }, (_, r) => String(r + 1));
          if (i % 3 === 0) expected.push('deleted');
          expect(perKey.get(key(`w/k${i}`))).toEqual(expected);
        }
      });

      it('stops delivering once unsubscribed', async () => {
        const seen: number[] = [];
        const sub = store.watch(key('cm/'), await store.revision()).subscribe((e) => seen.push(e.revision));
        await store.create(key('cm/a'), b('1'));
        await collect(store.watch(key('cm/'), (await store.revision()) - 1), 1);
        sub.unsubscribe();
        await store.create(key('cm/b'), b('2'));
        const last = await store.revision();
        await collect(store.watch(key('cm/'), last - 1), 1);
        expect(seen.every((r) => r < last)).toBe(true);
      });
    });

    describe('compaction', () => {
      it('fails reads and watches below the compacted revision and keeps the state at it', async () => {
        const a = await store.create(key('cm/a'), b('a1'));
        await store.update(key('cm/a'), b('a2'), a.modRevision);
        await store.create(key('cm/b'), b('b1'));
        await store.delete(key('cm/b'));
        const at = (await store.create(key('cm/c'), b('c1'))).modRevision;
        const after = await store.update(key('cm/a'), b('a3'), (await store.get(key('cm/a')))!.modRevision);
        await store.compact(at);
        expect(await store.compactedRevision()).toBe(at);
        await expectCode(store.get(key('cm/a'), { revision: at - 1 }), 'Compacted');
        await expectCode(store.list(key('cm/'), { revision: at - 1 }), 'Compacted');
        const snapshot = await store.list(key('cm/'), { revision: at });
        expect(snapshot.items.map((i) => [i.key, text(i.value)])).toEqual([
          [key('cm/a'), 'a2'],
          [key('cm/c'), 'c1'],
        ]);
        await expectCode(collect(store.watch(key('cm/'), at - 2), 1), 'Compacted');
        const resumed = await collect(store.watch(key('cm/'), at), 1);
        expect(resumed.map((e) => e.revision)).toEqual([after.modRevision]);
        expect(text((await store.get(key('cm/a')))?.value)).toBe('a3');
      });

      it('treats compacting an already compacted revision as done, and a future one as an error', async () => {
        await store.create(key('cm/a'), b('1'));
        const rev = (await store.create(key('cm/b'), b('2'))).modRevision;
        await store.compact(rev);
        await store.compact(rev - 1);
        expect(await store.compactedRevision()).toBe(rev);
        await expectCode(store.compact(rev + 1000), 'FutureRevision');
      });
    });

    describe('durability across reopen', () => {
      it('keeps the data and continues the revision after a reopen', async () => {
        const a = await store.create(key('cm/a'), b('one'));
        await store.update(key('cm/a'), b('two'), a.modRevision);
        const rev = await store.revision();
        await store.close();
        store = await harness.open();
        expect(await store.revision()).toBe(rev);
        expect(text((await store.get(key('cm/a')))?.value)).toBe('two');
        expect(text((await store.get(key('cm/a'), { revision: a.modRevision }))?.value)).toBe('one');
        const next = await store.create(key('cm/b'), b('three'));
        expect(next.modRevision).toBe(rev + 1);
      });
    });

    describe('corrupt values', () => {
      it('raises Corrupt naming the key, and forceDelete removes it', async () => {
        await store.create(key('cm/good'), b('{"ok":true}'));
        const bad = await store.create(key('cm/bad'), b('{not json'));
        await store.close();
        const typed = await harness.open(jsonCodec<{ ok: boolean }>());
        try {
          expect((await typed.get(key('cm/good')))?.value).toEqual({ ok: true });
          const error = await typed.get(key('cm/bad')).catch((e: unknown) => e);
          expect(isStorageError(error, 'Corrupt')).toBe(true);
          expect(isStorageError(error) && error.details.key).toBe(key('cm/bad'));
          await expectCode(typed.list(key('cm/')), 'Corrupt');
          await expectCode(typed.update(key('cm/bad'), { ok: false }, bad.modRevision), 'Corrupt');
          await expectCode(typed.delete(key('cm/bad')), 'Corrupt');
          expect(await typed.forceDelete(key('cm/bad'))).toBeGreaterThan(bad.modRevision);
          expect(await typed.get(key('cm/bad'))).toBeUndefined();
          expect((await typed.list(key('cm/'))).items.map((i) => i.value)).toEqual([{ ok: true }]);
        } finally {
          await typed.close();
        }
        store = await harness.open();
      });
    });

    describe('bad input', () => {
      const bad: [string, (s: Store) => Promise<unknown>][] = [
        ['an empty key', (s) => s.create('', b('x'))],
        ['a key outside the prefix', (s) => s.create('/elsewhere/a', b('x'))],
        ['the bare prefix as a key', (s) => s.create(s.prefix, b('x'))],
        ['a key with a space', (s) => s.create(`${s.prefix}a b`, b('x'))],
        ['a non-ASCII key', (s) => s.create(`${s.prefix}é`, b('x'))],
        ['a key that is not a string', (s) => s.create(42 as unknown as string, b('x'))],
        ['a value of the wrong type', (s) => s.create(`${s.prefix}a`, 'text' as unknown as Uint8Array)],
        ['a negative revision', (s) => s.get(`${s.prefix}a`, { revision: -1 })],
        ['a fractional revision', (s) => s.list(s.prefix, { revision: 1.5 })],
        ['a NaN revision', (s) => s.get(`${s.prefix}a`, { revision: Number.NaN })],
        ['a string revision', (s) => s.get(`${s.prefix}a`, { revision: '3' as unknown as number })],
        ['a negative limit', (s) => s.list(s.prefix, { limit: -1 })],
        ['a negative expected revision', (s) => s.update(`${s.prefix}a`, b('x'), -2)],
        ['a negative compaction revision', (s) => s.compact(-5)],
        ['a watch outside the prefix', async (s) => s.watch('/elsewhere/', 0)],
        ['a watch from a negative revision', async (s) => s.watch(s.prefix, -1)],
      ];
      for (const [what, call] of bad) {
        it(`rejects ${what} as InvalidArgument and writes nothing`, async () => {
          await store.create(key('seed'), b('x'));
          const rev = await store.revision();
          const error = await Promise.resolve()
            .then(() => call(store))
            .catch((e: unknown) => e);
          expect(isStorageError(error, 'InvalidArgument')).toBe(true);
          expect(await store.revision()).toBe(rev);
          expect((await store.list(store.prefix)).items.map((i) => i.key)).toEqual([key('seed')]);
        });
      }
    });

    describe('close', () => {
      it('fails calls after close and ends open watches', async () => {
        const watching = lastValueFrom(store.watch(store.prefix, await store.revision())).catch((e: unknown) => e);
        await store.close();
        await expectCode(store.get(key('a')), 'Closed');
        const ended = await watching;
        expect(ended === undefined || isStorageError(ended, 'Closed')).toBe(true);
        store = await harness.open();
      });
    });
  });
}

