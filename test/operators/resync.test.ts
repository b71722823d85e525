import { of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { resync } from '../../operators/index.js';
import { testScheduler } from './marbles.js';

const event = (type: string, name: string, v = 1) => ({ type, object: { metadata: { namespace: 'default', name, resourceVersion: String(v) } } });
const items = { a: event('ADDED', 'a'), b: event('ADDED', 'b'), c: event('MODIFIED', 'a', 2), d: event('DELETED', 'a', 3) };
const at0 = () => 0;

describe('resync', () => {
  it('passes items through and re-emits the latest item of every key each period', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('a-b-c 20ms |', items);
      const expected = '   a-b-c-----(cb)------(cb)-|';
      expectObservable(source.pipe(resync({ period: 10, random: at0 }))).toBe(expected, items);
      expectSubscriptions(source.subscriptions).toBe('^------------------------!');
    });
  });

  it('forgets a key at its delete', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('a-b-d-----------|', items).pipe(resync({ period: 10, random: at0 }))).toBe('a-b-d-----b-----|', items);
    });
  });

  it('waits between period and 2 × period, drawn from `random` each time', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('a 40ms |', items).pipe(resync({ period: 10, random: () => 0.5 }))).toBe('a 14ms a 14ms a 10ms |', items);
    });
  });

  it('reads informer events and takes a custom key, delete test and resync marker', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const v1 = { metadata: { name: 'n1' } };
      const updates = { u: { type: 'updated', old: v1, object: v1 }, x: { type: 'deleted', object: v1 } };
      expectObservable(cold('u---x---|', updates).pipe(resync({ period: 3, random: at0 }))).toBe('u--ux---|', updates);
      const values = { p: { id: 'p', gone: false }, q: { id: 'p', gone: true }, r: { id: 'p', gone: false, resync: true } };
      const marked = cold('p----q--|', values).pipe(
        resync<{ id: string; gone: boolean; resync?: boolean }>({
          period: 4,
          random: at0,
          key: (item) => item.id,
          isDelete: (item) => item.gone,
          resynced: (item) => ({ ...item, resync: true }),
        }),
      );
      expectObservable(marked).toBe('p---rq--|', values);
    });
  });

  it('completes at once on an empty source', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('|');
      expectObservable(source.pipe(resync({ period: 10 }))).toBe('|');
      expectSubscriptions(source.subscriptions).toBe('(^!)');
    });
  });

  it('emits nothing and stays subscribed on a source that never emits', () => {
    // The resync timer keeps rescheduling itself, so virtual time would never run out: unsubscribe.
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-');
      expectObservable(source.pipe(resync({ period: 10 })), '^ 99ms !').toBe('-');
      expectSubscriptions(source.subscriptions).toBe('^ 99ms !');
    });
  });

  it('passes an error on at once and stops resyncing', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('a-#', items);
      expectObservable(source.pipe(resync({ period: 10, random: at0 }))).toBe('a-#', items);
      expectSubscriptions(source.subscriptions).toBe('^-!');
    });
  });

  it('stops the source and the timer when unsubscribed early', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('a 30ms |', items);
      expectObservable(source.pipe(resync({ period: 10, random: at0 })), '^ 12ms !').toBe('a 9ms a', items);
      expectSubscriptions(source.subscriptions).toBe('^ 12ms !');
    });
  });

  it('passes a synchronous source through', () => {
    testScheduler().run(({ expectObservable }) => {
      expectObservable(of(items.a, items.b).pipe(resync({ period: 10 }))).toBe('(ab|)', items);
    });
  });

  it('rejects bad options when created', () => {
    expect(() => resync({ period: 0 })).toThrow(RangeError);
    expect(() => resync({ period: Infinity })).toThrow(RangeError);
    expect(() => resync({ period: 1, key: 'name' as unknown as () => string })).toThrow(TypeError);
  });
});
