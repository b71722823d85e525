import { afterEach, describe, expect, it } from 'vitest';
import { MemoryStore } from '../../src/storage/index.js';
import type { CacheEvent, WatchCache } from '../../src/watch-cache/index.js';
import { bytes, key, newCache, record, thing, type Thing } from './fixtures.js';

// The trigger of a thing is its `color` label (standing in for a pod's node name).
const colorOf = (t: Thing) => t.metadata.labels?.['color'];
const ofColor = (color: string) => (o: { object: Thing }) => colorOf(o.object) === color;
const short = (events: readonly CacheEvent<Thing>[]) => events.map((e) => `${e.type} ${e.object.object.metadata.name}`);

describe('WatchCache watches with a trigger', () => {
  let store: MemoryStore;
  let cache: WatchCache<Thing>;
  afterEach(async () => {
    cache?.stop();
    await store.close();
  });

  it('see exactly what filtered watches see, including objects that move in and out of their value', async () => {
    store = new MemoryStore();
    cache = newCache(store, { triggerOf: colorOf });
    await cache.ready;
    const indexed = record(cache.watch({ filter: ofColor('red'), trigger: 'red' }));
    const plain = record(cache.watch({ filter: ofColor('red') }));
    const blue = record(cache.watch({ filter: ofColor('blue'), trigger: 'blue' }));

    const a = await store.create(key('a'), bytes(thing('a', 0, { color: 'red' })));
    await store.create(key('b'), bytes(thing('b', 0, { color: 'blue' })));
    const moved = await store.update(key('a'), bytes(thing('a', 1, { color: 'blue' })), a.modRevision);
    const back = await store.update(key('a'), bytes(thing('a', 2, { color: 'red' })), moved.modRevision);
    await store.delete(key('a'), back.modRevision);

    expect(short(indexed.events)).toEqual(['ADDED a', 'DELETED a', 'ADDED a', 'DELETED a']);
    expect(short(indexed.events)).toEqual(short(plain.events));
    expect(short(blue.events)).toEqual(['ADDED b', 'ADDED a', 'DELETED a']);
    expect(cache.stats().hubListeners).toBe(3);
    indexed.sub.unsubscribe();
    blue.sub.unsubscribe();
    expect(cache.stats().hubListeners).toBe(1);
  });

  it('are not handed events of other values at all', async () => {
    store = new MemoryStore();
    let judged = 0;
    cache = newCache(store, { triggerOf: colorOf });
    await cache.ready;
    const watch = record(cache.watch({ filter: (o) => (judged++, ofColor('green')(o)), trigger: 'green' }));
    for (let i = 0; i < 10; i++) await store.create(key(`r${i}`), bytes(thing(`r${i}`, 0, { color: 'red' })));
    await store.create(key('g'), bytes(thing('g', 0, { color: 'green' })));
    expect(short(watch.events)).toEqual(['ADDED g']);
    expect(judged).toBe(1);
  });
});
