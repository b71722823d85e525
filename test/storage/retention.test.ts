import { describe, expect, it } from 'vitest';
import { MemoryStore, Retention, isStorageError } from '../../src/storage/index.js';

const b = (s: string) => new TextEncoder().encode(s);

describe('Retention', () => {
  it('keeps five minutes of history by default and compacts what is older', async () => {
    const store = new MemoryStore();
    let clock = 0;
    const retention = new Retention(store, { now: () => clock });
    expect(retention.windowMs).toBe(300_000);

    await store.create('/registry/a', b('1'));
    const oldRevision = await store.revision();
    await retention.tick(); // t = 0: remembers oldRevision
    clock = 120_000;
    await store.create('/registry/b', b('2'));
    const midRevision = await store.revision();
    expect(await retention.tick()).toBeUndefined(); // t = 2 min: nothing is 5 minutes old yet
    expect(await store.compactedRevision()).toBe(0);

    clock = 300_000;
    await store.create('/registry/c', b('3'));
    expect(await retention.tick()).toBe(oldRevision); // t = 5 min: the t = 0 sample fell out
    expect(await store.compactedRevision()).toBe(oldRevision);
    expect((await store.get('/registry/a', { revision: oldRevision }))?.value).toEqual(b('1'));

    clock = 420_000;
    expect(await retention.tick()).toBe(midRevision);
    const error = await store.get('/registry/a', { revision: oldRevision }).catch((e: unknown) => e);
    expect(isStorageError(error, 'Compacted')).toBe(true);
    await store.close();
  });

  it('honours a configured window', async () => {
    const store = new MemoryStore();
    let clock = 0;
    const retention = new Retention(store, { windowMs: 10_000, now: () => clock });
    await store.create('/registry/a', b('1'));
    await retention.tick();
    const rev = await store.revision();
    clock = 9_999;
    expect(await retention.tick()).toBeUndefined();
    clock = 10_000;
    expect(await retention.tick()).toBe(rev);
    await store.close();
  });
});
