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
