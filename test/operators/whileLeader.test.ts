import { of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { whileLeader } from '../../operators/index.js';
import { testScheduler } from './marbles.js';

const lead = { t: true, f: false };

describe('whileLeader', () => {
  it('runs the source during each term of leadership and unsubscribes it at each loss', () => {
    testScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const leader$ = cold('f--t-----f---t---|', lead);
      const source = hot('  a-b-c-d-e-f-g-h-i-j');
      const expected = '    ----c-d-e-----h-i|';
      expectObservable(source.pipe(whileLeader(leader$))).toBe(expected);
      expectSubscriptions(source.subscriptions).toBe(['---^-----!', '-------------^---!']);
    });
  });

  it('does not restart the source when leader$ repeats true', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('a---b---c-');
      expectObservable(source.pipe(whileLeader(cold('t-t-t---f-|', lead)))).toBe('a---b-----|');
      expectSubscriptions(source.subscriptions).toBe('^-------!');
    });
  });

  it('lets the source complete within a term and runs it again in the next term', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('ab|');
      expectObservable(source.pipe(whileLeader(cold('t-----f-t----|', lead)))).toBe('ab------ab---|');
      expectSubscriptions(source.subscriptions).toBe(['^-!', '--------^-!']);
    });
  });

  it('never subscribes the source while leader$ is silent or false', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('a-b-');
      expectObservable(source.pipe(whileLeader(cold('-f---', lead))), '^ 20ms !').toBe('-');
      expectSubscriptions(source.subscriptions).toBe([]);
    });
  });

  it('completes at once on an empty leader$', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('a-').pipe(whileLeader(cold('|', lead)))).toBe('|');
    });
  });

  it('passes errors of the source and of leader$ on, unsubscribing the other', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const failing = cold('a-#');
      expectObservable(failing.pipe(whileLeader(cold('t------', lead)))).toBe('a-#');
      const source = cold('a----');
      const leader$ = cold('t--#', lead);
      expectObservable(source.pipe(whileLeader(leader$))).toBe('a--#');
      expectSubscriptions(source.subscriptions).toBe('^--!');
      expectSubscriptions(leader$.subscriptions).toBe('^--!');
    });
  });

  it('stops the source and leader$ when unsubscribed early', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('a-b-c-d');
      const leader$ = cold('t------', lead);
      expectObservable(source.pipe(whileLeader(leader$)), '^ 3ms !').toBe('a-b-');
      expectSubscriptions(source.subscriptions).toBe('^---!');
      expectSubscriptions(leader$.subscriptions).toBe('^---!');
    });
  });

  it('runs a synchronous source and leader$', () => {
    const seen: number[] = [];
    of(true, false, true).pipe((l) => of(1, 2).pipe(whileLeader(l))).subscribe((n) => seen.push(n));
    expect(seen).toEqual([1, 2, 1, 2]);
  });
});
