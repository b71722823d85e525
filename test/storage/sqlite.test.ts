import { mkdtempSync, rmSync } from 'node:fs';
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
