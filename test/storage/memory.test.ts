import { MemoryData, MemoryStore, type Store } from '../../src/storage/index.js';
import { runStorageContract } from './contract.js';

runStorageContract('memory', async () => {
  // A memory store "reopens" over the same MemoryData, the way a restart finds the sqlite file.
  const data = new MemoryData();
  let open: Store<unknown> | undefined;
  return {
    async open(codec) {
      const store = new MemoryStore({ data, ...(codec ? { codec } : {}) });
      open = store as Store<unknown>;
      return store;
    },
    async dispose() {
      await open?.close();
    },
  };
});
