import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../src/storage/index.js';
import { WatcherTooSlowError, boundedSink } from '../../../src/apiserver/watch/bounded-sink.js';
import { bytes, key, newCache, thing } from '../../watch-cache/fixtures.js';

/** A consumer with stream.write's contract whose buffer the test fills and drains. */
class Socket<E> {
  readonly written: E[] = [];
  /** How many more writes it takes before reporting full. */
  room = Infinity;
  private listeners: (() => void)[] = [];
  readonly write = (event: E) => {
    this.written.push(event);
    return --this.room > 0;
  };
  set full(full: boolean) {
    this.room = full ? 0 : Infinity;
  }
  readonly onDrain = (listener: () => void) => {
    this.listeners.push(listener);
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  };
  drain(room = Infinity): void {
    this.room = room;
    for (const listener of this.listeners.splice(0)) listener();
  }
  get waiting(): number {
    return this.listeners.length;
  }
}

function run<E>(source: Subject<E>, socket: Socket<E>, limit: number) {
  const result: { error?: unknown; completed: boolean } = { completed: false };
  const sub = boundedSink(source, { limit, write: socket.write, onDrain: socket.onDrain }).subscribe({
    error: (e: unknown) => (result.error = e),
    complete: () => (result.completed = true),
  });
  return { result, sub };
}

describe('boundedSink', () => {
  it('writes each event at once while the consumer has room, and completes with its source', () => {
    const source = new Subject<number>();
    const socket = new Socket<number>();
    const { result } = run(source, socket, 2);
    source.next(1);
    source.next(2);
    source.complete();
    expect(socket.written).toEqual([1, 2]);
    expect(result.completed).toBe(true);
  });

  it('holds events while the consumer is full and writes them in order when it drains', () => {
    const source = new Subject<number>();
    const socket = new Socket<number>();
    const { result } = run(source, socket, 3);
    socket.full = true;
    source.next(1); // taken, but now full
    source.next(2);
    source.next(3);
    source.complete();
    expect(socket.written).toEqual([1]);
    expect(result.completed).toBe(false);
    socket.drain();
    expect(socket.written).toEqual([1, 2, 3]);
    expect(result.completed).toBe(true);
  });

  it('waits again when the consumer fills up while it writes what it held', () => {
    const source = new Subject<number>();
    const socket = new Socket<number>();
    const { result } = run(source, socket, 5);
    socket.full = true;
    for (let i = 1; i <= 5; i++) source.next(i);
    source.complete();
    socket.drain(2); // room for two: 2 is written, 3 fills it
    expect(socket.written).toEqual([1, 2, 3]);
    expect(socket.waiting).toBe(1);
    expect(result.completed).toBe(false);
    socket.drain();
    expect(socket.written).toEqual([1, 2, 3, 4, 5]);
    expect(result.completed).toBe(true);
  });

  it('ends a watcher that lets more than `limit` events wait with WatcherTooSlowError, and leaves the cache', async () => {
    const store = new MemoryStore();
    const cache = newCache(store);
    await cache.ready;
    const socket = new Socket<unknown>();
    socket.full = true;
    let error: unknown;
    boundedSink(cache.watch(), { limit: 2, write: socket.write, onDrain: socket.onDrain }).subscribe({ error: (e: unknown) => (error = e) });
    for (const name of ['a', 'b', 'c']) await store.create(key(name), bytes(thing(name)));
    expect(error).toBeUndefined(); // a written, b and c held
    await store.create(key('d'), bytes(thing('d')));
    expect(error).toBeInstanceOf(WatcherTooSlowError);
    expect(error).toMatchObject({ code: 'TooSlow', limit: 2 });
    expect(socket.written).toHaveLength(1);
    expect(socket.waiting).toBe(0);
    expect(cache.stats()).toMatchObject({ watchers: 0, hubListeners: 0 });
    cache.stop();
    await store.close();
  });

  it('ends a watcher whose initial events overflow it, and leaves the cache', async () => {
    const store = new MemoryStore();
    for (const name of ['a', 'b', 'c', 'd', 'e']) await store.create(key(name), bytes(thing(name)));
    const cache = newCache(store);
    await cache.ready;
    const socket = new Socket<unknown>();
    socket.full = true;
    let error: unknown;
    boundedSink(cache.watch({ initialEvents: true }), { limit: 2, write: socket.write, onDrain: socket.onDrain }).subscribe({
      error: (e: unknown) => (error = e),
    });
    expect(error).toBeInstanceOf(WatcherTooSlowError);
    expect(socket.written).toHaveLength(1);
    expect(cache.stats()).toMatchObject({ watchers: 0, hubListeners: 0 });
    cache.stop();
    await store.close();
  });

  it('holds a replay that does not count without bound, and counts only the live events after it', async () => {
    const store = new MemoryStore();
    for (const name of ['a', 'b', 'c', 'd', 'e']) await store.create(key(name), bytes(thing(name)));
    const cache = newCache(store);
    await cache.ready;
    const socket = new Socket<unknown>();
    socket.full = true;
    let live = false;
    let error: unknown;
    boundedSink(cache.watch({ initialEvents: true, onLive: () => (live = true) }), {
      limit: 2,
      counts: () => live,
      write: socket.write,
      onDrain: socket.onDrain,
    }).subscribe({ error: (e: unknown) => (error = e) });
    expect(error).toBeUndefined(); // a written, b..e held: the replay does not count
    for (const name of ['f', 'g']) await store.create(key(name), bytes(thing(name)));
    expect(error).toBeUndefined(); // two live events held: at the limit
    await store.create(key('h'), bytes(thing('h')));
    expect(error).toBeInstanceOf(WatcherTooSlowError);
    expect(socket.written).toHaveLength(1);

    const drained = new Socket<unknown>();
    drained.full = true;
    live = false;
    let done: unknown;
    boundedSink(cache.watch({ initialEvents: true, onLive: () => (live = true) }), {
      limit: 2,
      counts: () => live,
      write: drained.write,
      onDrain: drained.onDrain,
    }).subscribe({ error: (e: unknown) => (done = e) });
    drained.drain(7); // the 7 held initial events go out, and the socket is full again
    expect(drained.written).toHaveLength(8);
    for (const name of ['i', 'j']) await store.create(key(name), bytes(thing(name)));
    expect(done).toBeUndefined(); // i and j held: the drained replay no longer counts, nor frees room
    await store.create(key('k'), bytes(thing('k')));
    expect(done).toBeInstanceOf(WatcherTooSlowError);
    cache.stop();
    await store.close();
  });

  it("passes on the source's error after the events held before it", () => {
    const source = new Subject<number>();
    const socket = new Socket<number>();
    const { result } = run(source, socket, 3);
    socket.full = true;
    source.next(1);
    source.next(2);
    source.error(new Error('expired'));
    expect(result.error).toBeUndefined();
    socket.drain();
    expect(socket.written).toEqual([1, 2]);
    expect(result.error).toMatchObject({ message: 'expired' });
  });

  it('stops the source and cancels its drain wait when unsubscribed', () => {
    const source = new Subject<number>();
    const socket = new Socket<number>();
    const { sub } = run(source, socket, 3);
    socket.full = true;
    source.next(1);
    expect(socket.waiting).toBe(1);
    sub.unsubscribe();
    expect(source.observed).toBe(false);
    expect(socket.waiting).toBe(0);
  });
});
