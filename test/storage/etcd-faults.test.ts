import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isStorageError, type StoreEvent } from '../../src/storage/index.js';
import { openEtcdStore } from '../../src/storage/etcd.js';
import { findLeader, startEtcdCluster, type EtcdCluster } from '../support/etcd.js';

const enc = new TextEncoder();
const dec = new TextDecoder();
const b = (text: string) => enc.encode(text);
const text = (bytes: Uint8Array | undefined) => (bytes === undefined ? undefined : dec.decode(bytes));

describe('etcd store when a cluster member dies', () => {
  let cluster: EtcdCluster;

  beforeAll(async () => {
    cluster = await startEtcdCluster(3);
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  it('keeps every acknowledged write through a SIGKILL of the leader, and the watch misses none', async () => {
    const prefix = '/faults/';
    const store = await openEtcdStore({ endpoints: [...cluster.endpoints], prefix });
    const victim = await findLeader(cluster);
    // A watch served by the victim only: killing it forces the watch to reconnect and resume.
    const watchStore = await openEtcdStore({ endpoints: [victim.endpoint], prefix });
    const start = await store.revision();
    const watched: StoreEvent[] = [];
    let watchError: unknown;
    const subscription = watchStore.watch(prefix, start).subscribe({
      next: (event) => watched.push(event),
      error: (error: unknown) => (watchError = error),
    });

    const killAfter = 100;
    const ackedAfterKill = 200;
    const maxAttempts = 5000;
    /** The last acknowledged version of each key whose state is certain. */
    const acked = new Map<string, { value: string; modRevision: number }>();
    let ackCount = 0;
    let ackedSinceKill = 0;
    let killed = false;
    const failures: unknown[] = [];
    for (let i = 0; ackedSinceKill < ackedAfterKill && i < maxAttempts; i++) {
      if (!killed && ackCount >= killAfter) {
        victim.kill();
        killed = true;
      }
      const key = `${prefix}k${i}`;
      const previous = acked.get(`${prefix}k${i - 1}`);
      try {
        const created = await store.create(key, b(`v${i}`));
        acked.set(key, { value: `v${i}`, modRevision: created.modRevision });
        ackCount++;
        if (killed) ackedSinceKill++;
      } catch (error) {
        failures.push(error);
        acked.delete(key);
      }
      // Every third round also updates the previous key (compare-and-swap).
      if (i % 3 === 0 && previous) {
        const prevKey = `${prefix}k${i - 1}`;
        try {
          const updated = await store.update(prevKey, b(`u${i}`), previous.modRevision);
          acked.set(prevKey, { value: `u${i}`, modRevision: updated.modRevision });
          ackCount++;
          if (killed) ackedSinceKill++;
        } catch (error) {
          // The update may or may not have been applied: that key's state is no longer known.
          failures.push(error);
          acked.delete(prevKey);
        }
      }
    }
    expect(killed).toBe(true);
    expect(ackedSinceKill).toBeGreaterThanOrEqual(ackedAfterKill);
    // A failed write is reported as Unavailable: never a false AlreadyExists/Conflict from a
    // blind retry of a write that was in fact applied.
    for (const failure of failures) expect(isStorageError(failure) ? failure.code : failure).toBe('Unavailable');

    for (const [key, version] of acked) {
      const got = await store.get(key);
      expect(got && [text(got.value), got.modRevision], key).toEqual([version.value, version.modRevision]);
    }
    for (let i = 0; i < 10; i++) await store.create(`${prefix}after/${i}`, b('new'));

    // Bring the victim back: the watch reconnects to it and resumes where it stopped.
    await victim.restart();
    const final = await store.revision();
    await new Promise<void>((resolve, reject) => {
      const check = setInterval(() => {
        if (watchError !== undefined) reject(watchError as Error);
        else if ((watched[watched.length - 1]?.revision ?? start) >= final) resolve();
        else return;
        clearInterval(check);
      }, 50);
    });
    subscription.unsubscribe();
    // Only this store writes to the cluster, so every revision after `start` is one of its writes.
    expect(watched.map((e) => e.revision)).toEqual(Array.from({ length: final - start }, (_, i) => start + 1 + i));
    const lastWatched = new Map<string, string | undefined>();
    for (const event of watched) lastWatched.set(event.key, event.type === 'put' ? text(event.value) : undefined);
    for (const [key, version] of acked) expect(lastWatched.get(key), key).toBe(version.value);

    await watchStore.close();
    await store.close();
  });
});
