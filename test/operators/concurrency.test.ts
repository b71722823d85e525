import { defer, map, of, range, take, toArray, type Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { concurrency, type Task } from '../../operators/index.js';
import { testScheduler } from './marbles.js';

describe('concurrency', () => {
  it('runs at most n tasks at once and starts the next when one ends', () => {
    testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const a = cold('----1|');
      const b = cold('----2|');
      const c = cold('--3|');
      const source = hot<Observable<string>>('a-bc-----|', { a, b, c });
      expectObservable(source.pipe(concurrency(2))).toBe('----1-23-|');
      expectSubscriptions(source.subscriptions).toBe('^--------!');
      expectSubscriptions(a.subscriptions).toBe('^----!');
      expectSubscriptions(b.subscriptions).toBe('--^----!');
      expectSubscriptions(c.subscriptions).toBe('-----^--!');
    });
  });

  it('runs one task at a time by default', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const a = cold('--1|');
      const b = cold('-2|');
      expectObservable(cold<Observable<string>>('(ab)|', { a, b }).pipe(concurrency())).toBe('--1-2|');
    });
  });

  it('calls a task function only when a slot is free', () => {
    const scheduler = testScheduler();
    const started: string[] = [];
    scheduler.run(({ cold, expectObservable }) => {
      const task = (name: string, frames: string): Task<string> => () => (started.push(`${name}@${scheduler.now()}`), cold(frames));
      expectObservable(cold<Task<string>>('(ab)|', { a: task('a', '--1|'), b: task('b', '-2|') }).pipe(concurrency(1))).toBe('--1-2|');
    });
    expect(started).toEqual(['a@0', 'b@3']);
  });

  it('completes at once on an empty source', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<Observable<string>>('|');
      expectObservable(source.pipe(concurrency(2))).toBe('|');
      expectSubscriptions(source.subscriptions).toBe('(^!)');
    });
  });

  it('emits nothing and stays subscribed on a source that never emits', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<Observable<string>>('-');
      expectObservable(source.pipe(concurrency(2))).toBe('-');
      expectSubscriptions(source.subscriptions).toBe('^');
    });
  });

  it('passes an error of the source or a task on at once and unsubscribes the rest', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const slow = cold('-----1|');
      const source = cold<Observable<string>>('a-#', { a: slow });
      expectObservable(source.pipe(concurrency(2))).toBe('--#');
      expectSubscriptions(slow.subscriptions).toBe('^-!');
      const failing = cold('-#');
      const other = cold('-----1|');
      expectObservable(cold<Observable<string>>('(ab)', { a: other, b: failing }).pipe(concurrency(2))).toBe('-#');
    });
  });

  it('unsubscribes the source and the running tasks when unsubscribed early', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('--1--2|');
      const source = cold<Observable<string>>('a---|', { a });
      expectObservable(source.pipe(concurrency(1)), '^---!').toBe('--1-');
      expectSubscriptions(source.subscriptions).toBe('^---!');
      expectSubscriptions(a.subscriptions).toBe('^---!');
    });
  });

  it('takes a synchronous source of synchronous tasks', () => {
    testScheduler().run(({ expectObservable }) => {
      expectObservable(of(of(1), [2, 3], defer(() => of(4))).pipe(concurrency(1))).toBe('(abcd|)', { a: 1, b: 2, c: 3, d: 4 });
    });
    let firstThree: number[] = [];
    range(0, 1e9)
      .pipe(
        map((n): Task<number> => [n]),
        concurrency(1),
        take(3),
        toArray(),
      )
      .subscribe((values) => (firstThree = values));
    expect(firstThree).toEqual([0, 1, 2]);
  });

  it('rejects a bad n when created', () => {
    expect(() => concurrency(0)).toThrow(RangeError);
    expect(() => concurrency(1.5)).toThrow(RangeError);
    expect(concurrency(Infinity)).toBeTypeOf('function');
  });
});
