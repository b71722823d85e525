import { randomBytes } from 'node:crypto';
import etcd3 from 'etcd3';
import { afterAll, beforeAll } from 'vitest';
import type { Store } from '../../src/storage/index.js';
import { openEtcdStore } from '../../src/storage/etcd.js';
import { startEtcd } from '../support/etcd.js';
import { runStorageContract } from './contract.js';

// One real etcd for the whole file; each test gets its own key prefix in it. Tests in a file run
// one at a time, so each sees only its own writes advance etcd's global revision.
let etcd: Awaited<ReturnType<typeof startEtcd>>;

beforeAll(async () => {
  etcd = await startEtcd();
});

afterAll(async () => {
  await etcd?.stop();
});

runStorageContract('etcd', async () => {
  const prefix = `/t-${randomBytes(6).toString('hex')}/`;
  let open: Store<unknown> | undefined;
  return {
    async open(codec) {
      const store = await openEtcdStore({ endpoints: [etcd.endpoint], prefix, ...(codec ? { codec } : {}) });
      open = store as Store<unknown>;
      return store;
    },
    async dispose() {
      await open?.close();
      // Discard this test's keys (etcd itself lives until the file ends).
      const client = new etcd3.Etcd3({ hosts: [etcd.endpoint] });
      try {
        await client.delete().prefix(prefix);
      } finally {
        client.close();
      }
    },
  };
});
