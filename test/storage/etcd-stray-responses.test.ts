import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/storage/index.js';
import { openEtcdStore } from '../../src/storage/etcd.js';
import { startEtcd, type EtcdMember } from '../support/etcd.js';

const enc = new TextEncoder();
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('etcd watches when etcd and the client cancel the same watch', () => {
  let etcd: EtcdMember;
  let store: Store;
  const thrown: unknown[] = [];
  const record = (error: unknown) => thrown.push(error);

  beforeAll(async () => {
    process.on('uncaughtException', record);
    etcd = await startEtcd();
    store = await openEtcdStore({ endpoints: [etcd.endpoint] });
  });
  afterAll(async () => {
    process.off('uncaughtException', record);
    await store?.close();
    await etcd?.stop();
  });

  // Watches replaying old revisions, compacted under them and unsubscribed at random moments,
  // make etcd's cancel and ours cross. Without the fix (src/storage/etcd-stray-responses.ts) the
  // client throws on the stray response and every other watch on it stops.
  it('keeps a long-lived watch delivering', async () => {
    const prefix = `${store.prefix}stray/`;
    const seen: string[] = [];
    const keep = store.watch(prefix, await store.revision()).subscribe({ next: (event) => seen.push(event.key) });
    // The long-lived watch must be open in etcd before anything is compacted under its start.
    await store.create(`${prefix}first`, enc.encode('v'));
    while (!seen.includes(`${prefix}first`) && thrown.length === 0) await pause(20);
    let n = 0;
    for (let round = 0; round < 40; round++) {
      const from = await store.revision();
      for (let k = 0; k < 3; k++) await store.create(`${prefix}k${n++}`, enc.encode('v'));
      const replays = Array.from({ length: 5 }, () => store.watch(prefix, from).subscribe({ error: () => undefined }));
      await store.compact(await store.revision());
      await Promise.all(replays.map(async (replay) => (await pause(Math.random() * 60), replay.unsubscribe())));
    }
    await store.create(`${prefix}last`, enc.encode('v'));
    while (!seen.includes(`${prefix}last`) && thrown.length === 0) await pause(20);
    keep.unsubscribe();
    expect(thrown).toEqual([]);
    expect(seen).toContain(`${prefix}last`);
  });
});
