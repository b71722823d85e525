import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import etcd3 from 'etcd3';
import { firstValueFrom, take, toArray } from 'rxjs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ExpirySweep, MemoryStore, SqliteStore, isStorageError, type Store, type StoreEvent } from '../../src/storage/index.js';
import { openEtcdStore } from '../../src/storage/etcd.js';
import { sqliteDatabase } from '../../src/storage/sqlite-driver.js';
import { startEtcd } from '../support/etcd.js';

/*
 * Keys written with a time to live (`WriteOptions.ttlSeconds`). sqlite and memory keep each key's
 * expiry by a clock the test owns and delete what is due when `expire` runs: every case moves the
 * clock and calls it, so nothing here depends on how long anything takes. etcd keeps the time in
 * a lease that etcd itself runs out: those cases wait for the delete event etcd sends.
 */

const enc = new TextEncoder();
const dec = new TextDecoder();
const b = (text: string) => enc.encode(text);
const text = (bytes: Uint8Array | undefined) => (bytes === undefined ? undefined : dec.decode(bytes));
const MINUTE = 60_000;

const prevText = (event: StoreEvent | undefined) => (event?.type === 'delete' ? text(event.prevValue) : undefined);

const firstEvents = (store: Store, from: number, count: number): Promise<StoreEvent[]> =>
  firstValueFrom(store.watch(store.prefix, from).pipe(take(count), toArray()));

interface ClockedBackend {
  name: string;
  /** A store over fresh data whose ttl clock is `now`; `reopen` opens it again over the same data. */
  open(now: () => number): { store: Store; reopen(): Store; dispose(): Promise<void> };
}

const clocked: ClockedBackend[] = [
  {
    name: 'memory',
    open(now) {
      const store = new MemoryStore({ now });
      let current: Store = store;
      return {
        store,
        reopen: () => (current = new MemoryStore({ now, data: store.data })),
        dispose: () => current.close(),
      };
    },
  },
  {
    name: 'sqlite',
    open(now) {
      const dir = mkdtempSync(join(tmpdir(), 'svc-ttl-'));
      const path = join(dir, 'state.db');
      let current: Store = new SqliteStore({ path, now, synchronous: 'NORMAL' });
      return {
        store: current,
        reopen: () => (current = new SqliteStore({ path, now, synchronous: 'NORMAL' })),
        async dispose() {
          await current.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
];

describe.each(clocked)('keys with a time to live: $name', (backend) => {
  let clock: number;
  let opened: ReturnType<ClockedBackend['open']>;
  let store: Store;
  const key = (k: string) => `${store.prefix}events/default/${k}`;

  beforeEach(() => {
    clock = Date.UTC(2026, 10, 28, 9, 0, 0);
    opened = backend.open(() => clock);
    store = opened.store;
  });
  afterEach(async () => {
    await opened.dispose();
  });

  it('are deleted once their time has passed since the write: a delete at a new revision, told to watches with the last value', async () => {
    await store.create(key('short'), b('one'), { ttlSeconds: 60 });
    await store.create(key('kept'), b('two'));
    const before = await store.revision();
    const events = firstEvents(store, before, 1);

    clock += MINUTE - 1;
    expect(await store.expire()).toBe(0);
    expect(text((await store.get(key('short')))?.value)).toBe('one');

    clock += 1;
    expect(await store.expire()).toBe(1);
    const [deleted] = await events;
    expect(deleted).toMatchObject({ type: 'delete', key: key('short') });
    expect(prevText(deleted)).toBe('one');
    expect(deleted!.revision).toBeGreaterThan(before);
    expect(await store.revision()).toBe(deleted!.revision);
    expect(await store.get(key('short'))).toBeUndefined();
    expect(text((await store.get(key('kept')))?.value)).toBe('two');
    // Nothing is due twice.
    expect(await store.expire()).toBe(0);
    expect(await store.revision()).toBe(deleted!.revision);
  });

  it('start again with every write that gives one; a write without one keeps the key for good', async () => {
    const renewed = await store.create(key('renewed'), b('1'), { ttlSeconds: 60 });
    const unleashed = await store.create(key('unleashed'), b('1'), { ttlSeconds: 60 });
    clock += 50_000;
    await store.update(key('renewed'), b('2'), renewed.modRevision, { ttlSeconds: 60 });
    await store.update(key('unleashed'), b('2'), unleashed.modRevision);

    clock += 11_000; // 61 s after the creates, 11 s after the updates
    expect(await store.expire()).toBe(0);
    expect(text((await store.get(key('renewed')))?.value)).toBe('2');

    clock += 49_000; // 60 s after the updates
    expect(await store.expire()).toBe(1);
    expect(await store.get(key('renewed'))).toBeUndefined();

    clock += 24 * 60 * MINUTE;
    expect(await store.expire()).toBe(0);
    expect(text((await store.get(key('unleashed')))?.value)).toBe('2');
  });

  it('leave a key deleted, or deleted and created again, to its own time', async () => {
    await store.create(key('gone'), b('1'), { ttlSeconds: 60 });
    await store.delete(key('gone'));
    await store.create(key('again'), b('1'), { ttlSeconds: 60 });
    await store.delete(key('again'));
    await store.create(key('again'), b('2'));
    const rev = await store.revision();
    clock += 2 * MINUTE;
    await store.expire();
    expect(await store.revision()).toBe(rev);
    expect(text((await store.get(key('again')))?.value)).toBe('2');
  });

  it('go longest overdue first, at most `limit` a call', async () => {
    await store.create(key('c'), b('c'), { ttlSeconds: 30 });
    await store.create(key('a'), b('a'), { ttlSeconds: 10 });
    await store.create(key('b'), b('b'), { ttlSeconds: 20 });
    clock += MINUTE;
    expect(await store.expire(2)).toBe(2);
    expect((await store.list(store.prefix)).items.map((kv) => kv.key)).toEqual([key('c')]);
    expect(await store.expire(2)).toBe(1);
    expect((await store.list(store.prefix)).items).toEqual([]);
  });

  it('survive the store being opened again', async () => {
    await store.create(key('durable'), b('1'), { ttlSeconds: 60 });
    await store.close();
    store = opened.reopen();
    clock += MINUTE;
    expect(await store.expire()).toBe(1);
    expect(await store.get(key('durable'))).toBeUndefined();
  });

  it('refuse a ttl that is not a whole number of seconds, at least 1, and write nothing', async () => {
    const rev = await store.revision();
    for (const ttlSeconds of [0, -1, 1.5, Number.NaN]) {
      const error = await store.create(key('bad'), b('x'), { ttlSeconds }).catch((e: unknown) => e);
      expect(isStorageError(error, 'InvalidArgument'), String(ttlSeconds)).toBe(true);
    }
    const kv = await store.create(key('good'), b('x'));
    const error = await store.update(key('good'), b('y'), kv.modRevision, { ttlSeconds: 0 }).catch((e: unknown) => e);
    expect(isStorageError(error, 'InvalidArgument')).toBe(true);
    expect(await store.revision()).toBe(kv.modRevision);
    expect(kv.modRevision).toBe(rev + 1);
  });

  it('are all deleted by one ExpirySweep tick, a batch after another', async () => {
    for (let i = 0; i < 5; i++) await store.create(key(`e${i}`), b(String(i)), { ttlSeconds: 1 + i });
    await store.create(key('kept'), b('kept'));
    clock += MINUTE;
    const sweep = new ExpirySweep(store, { batch: 2 });
    expect(await sweep.tick()).toBe(5);
    expect((await store.list(store.prefix)).items.map((kv) => kv.key)).toEqual([key('kept')]);
  });
});

describe('sqlite: a database from before keys had a time to live', () => {
  it('gets the expiry column when opened, keeps its keys, and expires keys written since', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-ttl-old-'));
    const path = join(dir, 'state.db');
    try {
      // The schema as it was: `live` without `expires`.
      const Database = sqliteDatabase();
      const old = new Database(path);
      old.exec(`
        CREATE TABLE log (rev INTEGER PRIMARY KEY, key TEXT NOT NULL, create_rev INTEGER NOT NULL, prev_rev INTEGER, deleted INTEGER NOT NULL, value BLOB);
        CREATE INDEX log_key_rev ON log (key, rev);
        CREATE TABLE live (key TEXT PRIMARY KEY, rev INTEGER NOT NULL) WITHOUT ROWID;
        CREATE TABLE meta (name TEXT PRIMARY KEY, value INTEGER NOT NULL) WITHOUT ROWID;
        INSERT INTO log VALUES (1, '/registry/configmaps/default/old', 1, NULL, 0, X'6f6c64');
        INSERT INTO live VALUES ('/registry/configmaps/default/old', 1);
      `);
      old.close();
      let clock = 0;
      const store = new SqliteStore({ path, now: () => clock, synchronous: 'NORMAL' });
      try {
        expect(text((await store.get('/registry/configmaps/default/old'))?.value)).toBe('old');
        await store.create('/registry/events/default/new', b('new'), { ttlSeconds: 1 });
        clock += 1000;
        expect(await store.expire()).toBe(1);
        expect(await store.get('/registry/events/default/new')).toBeUndefined();
        expect(text((await store.get('/registry/configmaps/default/old'))?.value)).toBe('old');
      } finally {
        await store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('keys with a time to live: etcd (leases)', () => {
  let etcd: Awaited<ReturnType<typeof startEtcd>>;
  let store: Store;
  let prefix: string;

  beforeAll(async () => {
    etcd = await startEtcd();
  });
  afterAll(async () => {
    await etcd?.stop();
  });
  beforeEach(async () => {
    prefix = `/t-${randomBytes(6).toString('hex')}/`;
    store = await openEtcdStore({ endpoints: [etcd.endpoint], prefix });
  });
  afterEach(async () => {
    await store.close();
    const client = new etcd3.Etcd3({ hosts: [etcd.endpoint] });
    try {
      await client.delete().prefix(prefix);
    } finally {
      client.close();
    }
  });

  it('are deleted by etcd when their lease runs out: a delete at a new revision, told to watches with the last value', async () => {
    const kept = await store.create(`${prefix}events/default/kept`, b('kept'));
    const events = firstEvents(store, kept.modRevision, 2);
    const short = await store.create(`${prefix}events/default/short`, b('one'), { ttlSeconds: 1 });
    const [created, deleted] = await events;
    expect(created).toMatchObject({ type: 'put', key: short.key, revision: short.modRevision });
    expect(deleted).toMatchObject({ type: 'delete', key: short.key });
    expect(prevText(deleted)).toBe('one');
    expect(deleted!.revision).toBeGreaterThan(short.modRevision);
    expect(await store.get(short.key)).toBeUndefined();
    expect(text((await store.get(kept.key))?.value)).toBe('kept');
    // etcd needs no sweep.
    expect(await store.expire()).toBe(0);
  });

  it('a write without a ttl takes the key off its lease, and keeps it for good', async () => {
    const first = await store.create(`${prefix}events/default/a`, b('1'), { ttlSeconds: 1 });
    await store.update(first.key, b('2'), first.modRevision);
    // A key leased after `a` was: its lease runs out no earlier than a's first one did.
    const marker = await store.create(`${prefix}events/default/marker`, b('m'), { ttlSeconds: 1 });
    const [gone] = await firstValueFrom(
      store.watch(prefix, marker.modRevision).pipe(take(1), toArray()),
    );
    expect(gone).toMatchObject({ type: 'delete', key: marker.key });
    expect(text((await store.get(first.key))?.value)).toBe('2');
  });

  it('refuse a ttl that is not a whole number of seconds, at least 1, and write nothing', async () => {
    const rev = await store.revision();
    const error = await store.create(`${prefix}events/default/bad`, b('x'), { ttlSeconds: 0.5 }).catch((e: unknown) => e);
    expect(isStorageError(error, 'InvalidArgument')).toBe(true);
    expect(await store.get(`${prefix}events/default/bad`)).toBeUndefined();
    expect(await store.revision()).toBe(rev);
  });
});
