import { spawnSync } from 'node:child_process';
import { chmodSync, closeSync, constants, mkdtempSync, open, openSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SqliteStore, type Store } from '../../src/storage/index.js';
import { runStorageContract } from './contract.js';

runStorageContract('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-sqlite-'));
  let open: Store<unknown> | undefined;
  return {
    async open(codec) {
      const store = new SqliteStore({ path: join(dir, 'state.db'), ...(codec ? { codec } : {}) });
      open = store as Store<unknown>;
      return store;
    },
    async dispose() {
      await open?.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('the sqlite file', () => {
  it('is the owner\'s only (0600), with its WAL, whatever the umask and the directory\'s mode', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-sqlite-mode-'));
    chmodSync(dir, 0o755);
    const path = join(dir, 'state.db');
    // A file an older version left world-readable is narrowed too.
    writeFileSync(path, '', { mode: 0o644 });
    chmodSync(path, 0o644);
    const umask = process.umask(0o022);
    try {
      const store = new SqliteStore({ path });
      await store.create('/registry/secrets/default/s', new Uint8Array([1]));
      // (No -shm file: the store locks exclusively, so SQLite keeps the WAL index in memory.)
      for (const file of [path, `${path}-wal`]) expect((statSync(file).mode & 0o777).toString(8), file).toBe('600');
      await store.close();
    } finally {
      process.umask(umask);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('group commits synced off the event loop', () => {
  it('publish each write to watchers before its writer hears of it, and reads never see a write before its watchers do', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-sqlite-sync-'));
    const store = new SqliteStore({ path: join(dir, 'state.db') });
    try {
      const seen = new Map<string, number>();
      let published = 0;
      const subscription = store.watch('/registry/', 0).subscribe({
        next: (event) => {
          seen.set(event.key, event.revision);
          published = event.revision;
        },
        error: () => {}, // the store's close ends it
      });
      // Reads made while commits are syncing answer no revision a watcher has not been handed.
      const reads: number[] = [];
      const reader = setInterval(() => void store.revision().then((rev) => reads.push(rev - published)), 0);
      const writes = Array.from({ length: 200 }, (_, i) =>
        store.create(`/registry/configmaps/default/cm-${i}`, new Uint8Array([i % 256])).then((kv) => {
          expect(seen.get(kv.key)).toBe(kv.modRevision);
          return kv.modRevision;
        }),
      );
      const revisions = await Promise.all(writes);
      clearInterval(reader);
      expect(new Set(revisions).size).toBe(200);
      expect(reads.every((ahead) => ahead <= 0)).toBe(true);
      expect(await store.revision()).toBe(Math.max(...revisions));
      // A write that lost a race to one still syncing is answered after it: reading again finds the winner.
      const first = store.update('/registry/configmaps/default/cm-0', new Uint8Array([7]), revisions[0]!);
      const second = store.update('/registry/configmaps/default/cm-0', new Uint8Array([8]), revisions[0]!);
      await expect(second).rejects.toMatchObject({ code: 'Conflict' });
      expect(Array.from((await store.get('/registry/configmaps/default/cm-0'))!.value)).toEqual([7]);
      await first;
      subscription.unsubscribe();
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('hold writes requested while an fsync runs, and commit them together in one transaction when it ends', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-sqlite-held-'));
    const path = join(dir, 'state.db');
    const store = new SqliteStore({ path });
    const key = (i: number) => `/registry/configmaps/default/cm-${i}`;
    const walBytes = () => statSync(`${path}-wal`).size;
    const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
    const fifos: string[] = [];
    const blocked: Promise<void>[] = [];
    // Each FIFO gets a writer, held until every reader's open has returned. Opened O_RDWR, a FIFO's
    // end never blocks and never fails for want of a reader (Linux): a pool thread that has not
    // reached its open yet (a loaded machine) opens at once when it does. An O_WRONLY|O_NONBLOCK
    // writer failed with ENXIO then, and the reader it should have released blocked forever.
    let released: Promise<void> | undefined;
    const release = () =>
      (released ??= (async () => {
        const writers = fifos.map((fifo) => openSync(fifo, constants.O_RDWR));
        try {
          await Promise.all(blocked);
        } finally {
          for (const fd of writers) closeSync(fd);
        }
      })());
    try {
      const created = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => store.create(key(i), new Uint8Array([i]))));
      const revs = new Map(created.map((kv) => [kv.key, kv.modRevision]));
      const revision = await store.revision();
      // What three updates in one transaction add to the WAL.
      const beforeGroup = walBytes();
      for (const kv of await Promise.all([1, 2, 3].map((i) => store.update(key(i), new Uint8Array([10 + i]), revs.get(key(i))!)))) revs.set(kv.key, kv.modRevision);
      const oneGroup = walBytes() - beforeGroup;
      expect(oneGroup).toBeGreaterThan(0);

      // Every thread of libuv's pool blocked (each opening a FIFO nobody writes yet), so the next fsync waits until released.
      for (let t = 0; t < Number(process.env['UV_THREADPOOL_SIZE'] ?? 4); t++) {
        const fifo = join(dir, `fifo-${t}`);
        expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
        fifos.push(fifo);
        blocked.push(new Promise<void>((resolve) => open(fifo, 'r', (error, fd) => (error ? resolve() : (closeSync(fd), resolve())))));
      }
      let firstDone = false;
      const first = store.update(key(4), new Uint8Array([14]), revs.get(key(4))!).then((kv) => ((firstDone = true), kv));
      await nextTurn();
      await nextTurn();
      const whileSyncing = walBytes();
      expect(whileSyncing).toBeGreaterThan(beforeGroup + oneGroup); // the first write committed; its fsync waits
      // Three writes, one per loop turn, while that fsync has not run.
      const held = [];
      for (const i of [5, 6, 1]) {
        held.push(store.update(key(i), new Uint8Array([20 + i]), revs.get(key(i))!));
        await nextTurn();
      }
      expect(firstDone).toBe(false);
      // Held, not committed one transaction each.
      expect(walBytes()).toBe(whileSyncing);
      await release();
      const [written, ...others] = await Promise.all([first, ...held]);
      // One transaction after the fsync: what one group of three adds, in order after the first write.
      expect(walBytes() - whileSyncing).toBe(oneGroup);
      expect([written!, ...others].map((kv) => kv.modRevision)).toEqual([revision + 4, revision + 5, revision + 6, revision + 7]);
      expect(Array.from((await store.get(key(1)))!.value)).toEqual([21]);
    } finally {
      await release();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('answers every write committed before close, and refuses the ones after', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-sqlite-close-'));
    const path = join(dir, 'state.db');
    try {
      const store = new SqliteStore({ path });
      const writes = Array.from({ length: 50 }, (_, i) => store.create(`/registry/configmaps/default/cm-${i}`, new Uint8Array([i])));
      await store.close();
      await Promise.all(writes);
      await expect(store.create('/registry/configmaps/default/late', new Uint8Array([1]))).rejects.toMatchObject({ code: 'Closed' });
      const reopened = new SqliteStore({ path });
      expect((await reopened.list('/registry/configmaps/')).items).toHaveLength(50);
      await reopened.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
