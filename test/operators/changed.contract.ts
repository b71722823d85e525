// One contract for the four `…Changed` predicates; each predicate's test file calls it with a pair
// of objects whose watched field is the same and a pair where it differs.
import { of, type MonoTypeOperatorFunction } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { ChangeEvent, ObjectLike } from '../../operators/index.js';
import { testScheduler } from './marbles.js';

export interface ChangedCase {
  /** `object` differs from `old` only outside the watched field. */
  same: [ObjectLike, ObjectLike];
  /** The watched field differs. */
  changed: [ObjectLike, ObjectLike];
}

export function runChangedPredicateContract(name: string, predicate: () => MonoTypeOperatorFunction<ChangeEvent>, c: ChangedCase): void {
  describe(`${name} (predicate contract)`, () => {
    // Informer events, as informers emit them (issue #21: the predicates took another shape).
    const values: Record<string, ChangeEvent> = {
      a: { type: 'added', object: c.same[0] },
      s: { type: 'updated', old: c.same[0], object: c.same[1] },
      c: { type: 'updated', old: c.changed[0], object: c.changed[1] },
      d: { type: 'deleted', object: c.same[0] },
      r: { type: 'resync', object: c.changed[1] },
      w: { type: 'MODIFIED', object: c.changed[1] },
    };

    it('drops updates where the field is unchanged and resyncs, keeps changes, adds, deletes and watch events', () => {
      testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold('a-s-c-d-r-w-|', values);
        expectObservable(source.pipe(predicate())).toBe('a---c-d---w-|', values);
        expectSubscriptions(source.subscriptions).toBe('^-----------!');
      });
    });

    it('completes at once on an empty source', () => {
      testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold<ChangeEvent>('|');
        expectObservable(source.pipe(predicate())).toBe('|');
        expectSubscriptions(source.subscriptions).toBe('(^!)');
      });
    });

    it('emits nothing and stays subscribed on a source that never emits', () => {
      testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold<ChangeEvent>('-');
        expectObservable(source.pipe(predicate())).toBe('-');
        expectSubscriptions(source.subscriptions).toBe('^');
      });
    });

    it('passes an error on', () => {
      testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold('c-#', values);
        expectObservable(source.pipe(predicate())).toBe('c-#', values);
        expectSubscriptions(source.subscriptions).toBe('^-!');
      });
    });

    it('unsubscribes the source when unsubscribed early', () => {
      testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold('c-c-c-|', values);
        expectObservable(source.pipe(predicate()), '^--!').toBe('c-c', values);
        expectSubscriptions(source.subscriptions).toBe('^--!');
      });
    });

    it('filters a synchronous source', () => {
      const kept: ChangeEvent[] = [];
      of(values.s!, values.c!, values.s!).pipe(predicate()).subscribe((e) => kept.push(e));
      expect(kept).toEqual([values.c]);
    });
  });
}
