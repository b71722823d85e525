// One contract for the four `…Changed` predicates; each predicate's test file calls it with a pair
// of objects whose watched field is the same and a pair where it differs.
import { of, type MonoTypeOperatorFunction } from 'rxjs';
import { describe, expect, it } from 'vitest';
import type { ObjectLike, UpdateEvent } from '../../operators/index.js';
import { testScheduler } from './marbles.js';

export interface ChangedCase {
  /** `new` differs from `old` only outside the watched field. */
  same: [ObjectLike, ObjectLike];
  /** The watched field differs. */
  changed: [ObjectLike, ObjectLike];
}

export function runChangedPredicateContract(name: string, predicate: () => MonoTypeOperatorFunction<UpdateEvent>, c: ChangedCase): void {
  describe(`${name} (predicate contract)`, () => {
    const values: Record<string, UpdateEvent> = {
      a: { new: c.same[0] },
      s: { old: c.same[0], new: c.same[1] },
      c: { old: c.changed[0], new: c.changed[1] },
      d: { old: c.same[0] },
    };

    it('drops updates where the field is unchanged, keeps changes, adds and deletes', () => {
      testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold('a-s-c-d-|', values);
        expectObservable(source.pipe(predicate())).toBe('a---c-d-|', values);
        expectSubscriptions(source.subscriptions).toBe('^-------!');
      });
    });

    it('completes at once on an empty source', () => {
      testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold<UpdateEvent>('|');
        expectObservable(source.pipe(predicate())).toBe('|');
        expectSubscriptions(source.subscriptions).toBe('(^!)');
      });
    });

    it('emits nothing and stays subscribed on a source that never emits', () => {
      testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
        const source = cold<UpdateEvent>('-');
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
      const kept: UpdateEvent[] = [];
      of(values.s!, values.c!, values.s!).pipe(predicate()).subscribe((e) => kept.push(e));
      expect(kept).toEqual([values.c]);
    });
  });
}
