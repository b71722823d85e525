import { of, range, take, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { batch } from '../../operators/index.js';
import { testScheduler } from './marbles.js';

describe('batch', () => {
  it('emits a batch `period` after its first item, or early when it holds `max` items', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('a-b-------c-d-e-f---|');
      const sub = '        ^-------------------!';
      const expected = '   -----x--------y-----(z|)';
      expectObservable(source.pipe(batch({ period: 5, max: 3 }))).toBe(expected, { x: ['a', 'b'], y: ['c', 'd', 'e'], z: ['f'] });
      expectSubscriptions(source.subscriptions).toBe(sub);
    });
  });

  it('opens the window at the first item, not on a fixed clock, and never emits an empty batch', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('------a-----b 10ms |').pipe(batch({ period: 3 }))).toBe('---------x-----y 7ms |', { x: ['a'], y: ['b'] });
    });
  });

  it('emits each item alone with max 1, and at the next timer with period 0', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('ab|').pipe(batch({ period: 100, max: 1 }))).toBe('xy|', { x: ['a'], y: ['b'] });
      expectObservable(cold('(ab)|').pipe(batch({ period: 0 }))).toBe('x---|', { x: ['a', 'b'] });
    });
  });

  it('completes at once on an empty source', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('|');
      expectObservable(source.pipe(batch({ period: 5 }))).toBe('|');
      expectSubscriptions(source.subscriptions).toBe('(^!)');
    });
  });

  it('emits nothing and stays subscribed on a source that never emits', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-');
      expectObservable(source.pipe(batch({ period: 5 }))).toBe('-');
      expectSubscriptions(source.subscriptions).toBe('^');
    });
  });

  it('passes an error on at once and drops the open batch', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('ab#');
      expectObservable(source.pipe(batch({ period: 5 }))).toBe('--#');
      expectSubscriptions(source.subscriptions).toBe('^-!');
    });
  });

  it('stops the source and the timer when unsubscribed early', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('ab-----c|');
      expectObservable(source.pipe(batch({ period: 5 })), '^--!').toBe('---');
      expectSubscriptions(source.subscriptions).toBe('^--!');
    });
  });

  it('batches a synchronous source by max, emitting the rest at completion', () => {
    testScheduler().run(({ expectObservable }) => {
      expectObservable(of(1, 2, 3, 4, 5).pipe(batch({ period: 10, max: 2 }))).toBe('(xyz|)', { x: [1, 2], y: [3, 4], z: [5] });
    });
    let batches: number[][] = [];
    range(0, 1e9)
      .pipe(batch({ period: 10, max: 2 }), take(2), toArray())
      .subscribe((values) => (batches = values));
    expect(batches).toEqual([[0, 1], [2, 3]]);
  });

  it('rejects bad options when created', () => {
    expect(() => batch({ period: -1 })).toThrow(RangeError);
    expect(() => batch({ period: Number.NaN })).toThrow(RangeError);
    expect(() => batch({ period: 1, max: 0 })).toThrow(RangeError);
    expect(() => batch({ period: 1, max: 2.5 })).toThrow(RangeError);
  });
});
