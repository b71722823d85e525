import { of, range, take, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { rateLimit, TokenBucket } from '../../operators/index.js';
import { testScheduler } from './marbles.js';

describe('rateLimit', () => {
  it('passes a burst at once, then one item per token, in order', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('abcd-------e---|');
      const sub = '        ^--------------!';
      const expected = '   ab---c----d----(e|)';
      expectObservable(source.pipe(rateLimit({ qps: 200, burst: 2 }))).toBe(expected);
      expectSubscriptions(source.subscriptions).toBe(sub);
    });
  });

  it('refills the bucket while idle, up to the burst', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const source = cold('abc 50ms abcd|');
      // a, b pass; c waits 10; 50 ms later the bucket is full again (2 tokens): a, b pass, c and d wait.
      expectObservable(source.pipe(rateLimit({ qps: 100, burst: 2 }))).toBe('ab 8ms c 42ms ab 8ms c 9ms (d|)');
    });
  });

  it('waits for the buffer to drain before completing', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('ab|');
      expectObservable(source.pipe(rateLimit({ qps: 100, burst: 1 }))).toBe('a 9ms (b|)');
      expectSubscriptions(source.subscriptions).toBe('^-!');
    });
  });

  it('completes at once on an empty source', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('|');
      expectObservable(source.pipe(rateLimit({ qps: 1, burst: 1 }))).toBe('|');
      expectSubscriptions(source.subscriptions).toBe('(^!)');
    });
  });

  it('emits nothing and stays subscribed on a source that never emits', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-');
      expectObservable(source.pipe(rateLimit({ qps: 1, burst: 1 }))).toBe('-');
      expectSubscriptions(source.subscriptions).toBe('^');
    });
  });

  it('passes an error on at once and drops the buffered items', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('abc#');
      expectObservable(source.pipe(rateLimit({ qps: 100, burst: 1 }))).toBe('a--#');
      expectSubscriptions(source.subscriptions).toBe('^--!');
    });
  });

  it('stops the source and the timer when unsubscribed early', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('abcdef|');
      const unsub = '      ^---!';
      expectObservable(source.pipe(rateLimit({ qps: 500, burst: 1 })), unsub).toBe('a-b-');
      expectSubscriptions(source.subscriptions).toBe('^---!');
    });
  });

  it('spreads a synchronous source over time', () => {
    testScheduler().run(({ expectObservable }) => {
      expectObservable(of(1, 2, 3, 4).pipe(rateLimit({ qps: 250, burst: 2 }))).toBe('(ab)c---(d|)', { a: 1, b: 2, c: 3, d: 4 });
    });
  });

  it('stops a synchronous source as soon as the subscriber has enough', () => {
    let result: number[] = [];
    range(0, 1e9)
      .pipe(rateLimit({ qps: Infinity, burst: 1 }), take(3), toArray())
      .subscribe((values) => (result = values));
    expect(result).toEqual([0, 1, 2]);
  });

  it('rejects bad options when created', () => {
    expect(() => rateLimit({ qps: 0, burst: 1 })).toThrow(RangeError);
    expect(() => rateLimit({ qps: Number.NaN, burst: 1 })).toThrow(RangeError);
    expect(() => rateLimit({ qps: 1, burst: 0 })).toThrow(RangeError);
    expect(() => rateLimit({ qps: 1, burst: 1.5 })).toThrow(RangeError);
  });
});

describe('TokenBucket', () => {
  it('hands out the burst at once, then books one token per interval', () => {
    const bucket = new TokenBucket({ qps: 10, burst: 2 });
    expect([bucket.reserve(0), bucket.reserve(0), bucket.reserve(0), bucket.reserve(0)]).toEqual([0, 0, 100, 200]);
  });

  it('is full again after burst / qps seconds of idleness, never fuller', () => {
    const bucket = new TokenBucket({ qps: 10, burst: 2 });
    bucket.reserve(0);
    bucket.reserve(0);
    expect([bucket.reserve(10_000), bucket.reserve(10_000), bucket.reserve(10_000)]).toEqual([0, 0, 100]);
  });
});
