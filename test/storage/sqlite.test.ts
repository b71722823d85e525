import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
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
