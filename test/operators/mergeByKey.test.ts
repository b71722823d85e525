import { EMPTY, NEVER, Subject, of, type Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { mergeByKey } from '../../operators/index.js';
import { testScheduler } from './marbles.js';

const byName = (member: string) => member;

describe('mergeByKey', () => {
  it('runs each member while it is in the set, keeping members that stay subscribed once', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const streams: Record<string, ReturnType<typeof cold<string>>> = {
        x: cold('1-1-1---1---'),
        y: cold('-2---2---2---2---'),
        z: cold('3--3--|'),
      };
      const source = cold<string[]>('a-----b-----c--|', { a: ['x', 'y'], b: ['y', 'z'], c: ['z'] });
      expectObservable(source.pipe(mergeByKey(byName, (m) => streams[m]!))).toBe('121-123--(23)--|');
      expectSubscriptions(streams['x']!.subscriptions).toBe('^-----!');
      expectSubscriptions(streams['y']!.subscriptions).toBe('^-----------!');
      expectSubscriptions(streams['z']!.subscriptions).toBe('------^-----!');
      expectSubscriptions(source.subscriptions).toBe('^--------------!');
    });
  });

  it('subscribes a member again when it leaves the set and comes back', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const x = cold('1-1-1-1-1-1-');
      const source = cold<string[]>('a--b--c-----', { a: ['x'], b: [], c: ['x'] });
      expectObservable(source.pipe(mergeByKey(byName, () => x))).toBe('1-1---1-1-1-1-1-1');
      expectSubscriptions(x.subscriptions).toBe(['^--!', '------^']);
    });
  });

  it('completes at once on an empty source', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<string[]>('|');
      expectObservable(source.pipe(mergeByKey(byName, () => EMPTY))).toBe('|');
      expectSubscriptions(source.subscriptions).toBe('(^!)');
    });
  });

  it('emits nothing and stays subscribed on a source that never emits', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<string[]>('-');
      expectObservable(source.pipe(mergeByKey(byName, () => EMPTY))).toBe('-');
      expectSubscriptions(source.subscriptions).toBe('^');
    });
  });

  it('waits for running members after the source completes', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const source = cold<string[]>('a|', { a: ['x'] });
      expectObservable(source.pipe(mergeByKey(byName, () => cold('--1--|')))).toBe('--1--|');
    });
  });

  it('passes an error of the source on and unsubscribes the members', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const x = cold('1-1-1-1');
      const source = cold<string[]>('a--#', { a: ['x'] });
      expectObservable(source.pipe(mergeByKey(byName, () => x))).toBe('1-1#');
      expectSubscriptions(x.subscriptions).toBe('^--!');
    });
  });

  it('passes an error of a member on and unsubscribes the source and the others', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const streams: Record<string, Observable<string>> = { x: cold('--#'), y: cold('1-1-1') };
      const source = cold<string[]>('a-----', { a: ['x', 'y'] });
      expectObservable(source.pipe(mergeByKey(byName, (m) => streams[m]!))).toBe('1-#');
      expectSubscriptions(source.subscriptions).toBe('^-!');
    });
  });

  it('unsubscribes the source and every member when the subscriber does', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const x = cold('1-1-1-1-1');
      const source = cold<string[]>('a--------', { a: ['x'] });
      expectObservable(source.pipe(mergeByKey(byName, () => x)), '^---!').toBe('1-1-');
      expectSubscriptions(source.subscriptions).toBe('^---!');
      expectSubscriptions(x.subscriptions).toBe('^---!');
    });
  });

  it('handles a synchronous source of sets whose members complete synchronously', () => {
    const seen: string[] = [];
    let completed = false;
    of(['a', 'b'], ['b', 'c'], ['a'])
      .pipe(mergeByKey(byName, (m) => of(m)))
      .subscribe({ next: (v) => seen.push(v), complete: () => (completed = true) });
    // b completed and stayed in the set: not projected again; a left with [b, c] and came back.
    expect(seen).toEqual(['a', 'b', 'c', 'a']);
    expect(completed).toBe(true);
  });

  it('projects each member once with its key, however often the set repeats it', () => {
    const sets = new Subject<{ id: string }[]>();
    const projected: string[] = [];
    const sub = sets.pipe(mergeByKey((m) => m.id, (_m, key) => (projected.push(key), NEVER))).subscribe();
    sets.next([{ id: 'pods' }]);
    sets.next([{ id: 'pods' }, { id: 'secrets' }]);
    sets.next([{ id: 'secrets' }, { id: 'pods' }]);
    expect(projected).toEqual(['pods', 'secrets']);
    sub.unsubscribe();
  });

  it('rejects options that are not functions', () => {
    expect(() => mergeByKey(undefined as unknown as (m: string) => string, () => EMPTY)).toThrow(TypeError);
  });
});
