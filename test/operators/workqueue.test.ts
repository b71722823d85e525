import { defer, delay, lastValueFrom, map, of, range, Subject, take, tap, throwError, toArray, type Observable } from 'rxjs';
import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  awaitChange,
  requeueAfter,
  TerminalError,
  workqueue,
  type Outcome,
  type WorkResult,
} from '../../operators/index.js';
import { testScheduler } from './marbles.js';

/** One letter per result: the type's initial (upper case for key a, lower for b, c), for marbles. */
const letter = (result: WorkResult<unknown, unknown>): string => {
  const initial = { awaitChange: 'A', requeueAfter: 'Q', retry: 'R', terminal: 'T' }[result.type];
  return result.key === 'a' ? initial : `${initial}${result.key}`;
};
const letters = map(letter);
const values = { A: 'A', Q: 'Q', R: 'R', T: 'T', B: 'Ab', C: 'Ac', S: 'Rb' };

/** Work that takes `frames` of virtual time and then returns `outcome`. */
const takes = (frames: number, outcome: Outcome<unknown> = awaitChange()): Observable<Outcome<unknown>> => of(outcome).pipe(delay(frames));

describe('workqueue', () => {
  it('coalesces a key that waits and runs a key re-added while running once more afterwards', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('a-b-a-a-----a-|');
      const sub = '        ^-------------!';
      const result = source.pipe(workqueue({ work: (key: string) => takes(key === 'a' ? 3 : 2) }), letters);
      expectObservable(result).toBe('---A-B--A--A---(A|)', values);
      expectSubscriptions(source.subscriptions).toBe(sub);
    });
  });

  it('records the start of every run at the virtual time it happens', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const starts: string[] = [];
      const source = cold('a-b-a-a-----a-|');
      const result = source.pipe(
        workqueue({ work: (key: string) => (starts.push(`${key}@${scheduler.now()}`), takes(key === 'a' ? 3 : 2)) }),
        letters,
      );
      expectObservable(result).toBe('---A-B--A--A---(A|)', values);
      scheduler.flush();
      expect(starts).toEqual(['a@0', 'b@3', 'a@5', 'a@8', 'a@12']);
    });
  });

  it('runs up to `concurrency` keys at once, never one key twice at once', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const starts: string[] = [];
      const result = cold('abc--a---|').pipe(
        workqueue({ concurrency: 2, work: (key: string) => (starts.push(`${key}@${scheduler.now()}`), takes(3)) }),
        letters,
      );
      expectObservable(result).toBe('---AB-C-A|', values);
      scheduler.flush();
      expect(starts).toEqual(['a@0', 'b@1', 'c@3', 'a@5']);
    });
  });

  it('keeps a key re-added while running away from an idle worker until the run ends', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const starts: number[] = [];
      const result = cold('aa---|').pipe(workqueue({ concurrency: 2, work: () => (starts.push(scheduler.now()), takes(3)) }), letters);
      expectObservable(result).toBe('---A--(A|)', values);
      scheduler.flush();
      expect(starts).toEqual([0, 3]);
    });
  });

  it('hands a coalesced key the latest item added', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const items = { a: { name: 'a', v: 1 }, b: { name: 'b', v: 1 }, c: { name: 'a', v: 2 } };
      const result = cold('bac|', items).pipe(
        workqueue({ key: (item: { name: string; v: number }) => item.name, work: () => takes(3) }),
        map((r) => `${r.item.name}${r.item.v}`),
      );
      expectObservable(result).toBe('---x--(y|)', { x: 'b1', y: 'a2' });
    });
  });

  it('retries a failure after a per-key back-off of 5 ms doubling', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const afters: number[] = [];
      const result = cold('a 99ms |').pipe(
        workqueue({
          bucket: false,
          work: (_key: string, { attempt }) => {
            if (attempt < 4) throw new Error(`attempt ${attempt}`);
          },
        }),
        tap((r) => r.type === 'retry' && afters.push(r.after)),
        letters,
      );
      expectObservable(result).toBe('R 4ms R 9ms R 19ms A 64ms |', values);
    });
  });

  it('reports each retry delay, the larger of the back-off and the bucket token', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const afters: string[] = [];
      const result = cold('(ab) 20ms |').pipe(
        workqueue({
          concurrency: 2,
          bucket: { qps: 100, burst: 1 },
          work: (_key: string, { attempt }) => {
            if (attempt === 1) throw new Error('first');
          },
        }),
        tap((r) => r.type === 'retry' && afters.push(`${r.key}:${r.after}`)),
        letters,
      );
      // a's token was in the bucket: back-off 5 ms wins; b waits 10 ms for the next token.
      expectObservable(result).toBe('(RS)-A----B 13ms |', values);
      scheduler.flush();
      expect(afters).toEqual(['a:5', 'b:10']);
    });
  });

  it('forgets the failures of a key after a success', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const seen: string[] = [];
      const result = cold('a 20ms a 20ms |').pipe(
        workqueue({
          bucket: false,
          work: (_key: string, { attempt }) => {
            if (attempt === 1) throw new Error('first');
          },
        }),
        tap((r) => seen.push(r.type === 'retry' ? `retry ${r.attempts} after ${r.after}` : `${r.type} ${r.attempts}`)),
        letters,
      );
      expectObservable(result).toBe('R 4ms A 15ms R 4ms A 15ms |', values);
      scheduler.flush();
      expect(seen).toEqual(['retry 1 after 5', 'awaitChange 2', 'retry 1 after 5', 'awaitChange 2']);
    });
  });

  it('caps the back-off at `max` and adds jitter from `random`', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold }) => {
      const afters: number[] = [];
      cold('a 999ms |')
        .pipe(
          workqueue({
            bucket: false,
            backoff: { base: 10, max: 40, factor: 3, jitter: 0.5 },
            random: () => 0.5,
            work: (_key: string, { attempt }) => {
              if (attempt < 4) throw new Error('again');
            },
          }),
          tap((r) => r.type === 'retry' && afters.push(r.after)),
        )
        .subscribe();
      scheduler.flush();
      expect(afters).toEqual([12.5, 37.5, 50]);
    });
  });

  it('runs a requeued key again `after` ms from the end of the run', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const starts: number[] = [];
      const result = cold('a 20ms |').pipe(
        workqueue({ work: () => (starts.push(scheduler.now()), takes(3, starts.length === 1 ? requeueAfter(5) : awaitChange())) }),
        letters,
      );
      expectObservable(result).toBe('---Q-------A 9ms |', values);
      scheduler.flush();
      expect(starts).toEqual([0, 8]);
    });
  });

  /** Work that starts synchronously and returns the next of `outcomes`, logging its start time. */
  const scripted = (scheduler: { now(): number }, outcomes: Outcome<unknown>[], starts: number[]) => () => {
    starts.push(scheduler.now());
    return outcomes[starts.length - 1] ?? awaitChange();
  };

  it('keeps the earliest of two delayed re-adds: an earlier one replaces a later one', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const starts: number[] = [];
      const result = cold('a----a 30ms |').pipe(workqueue({ work: scripted(scheduler, [requeueAfter(20), requeueAfter(3)], starts) }), letters);
      expectObservable(result).toBe('Q----Q--A 27ms |', values);
      scheduler.flush();
      expect(starts).toEqual([0, 5, 8]);
    });
  });

  it('keeps the earliest of two delayed re-adds: a later one is dropped', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const starts: number[] = [];
      const result = cold('a-a 60ms |').pipe(workqueue({ work: scripted(scheduler, [requeueAfter(5), requeueAfter(50)], starts) }), letters);
      expectObservable(result).toBe('Q-Q--A 57ms |', values);
      scheduler.flush();
      expect(starts).toEqual([0, 2, 5]);
    });
  });

  it('does not cancel a delayed re-add when the key is added in between (client-go)', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const starts: number[] = [];
      const result = cold('a--a 20ms |').pipe(workqueue({ work: scripted(scheduler, [requeueAfter(10)], starts) }), letters);
      expectObservable(result).toBe('Q--A------A 13ms |', values);
      scheduler.flush();
      expect(starts).toEqual([0, 3, 10]);
    });
  });

  it('forgets a key after a terminal error instead of retrying it', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const result = cold('a 20ms |').pipe(
        workqueue({
          work: () => {
            throw new TerminalError('invalid spec');
          },
        }),
        letters,
      );
      expectObservable(result).toBe('T 20ms |', values);
    });
  });

  it('asks the error policy whether a failure is terminal', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const result = cold('a 20ms |').pipe(
        workqueue({ errorPolicy: (_error, _item, attempts) => (attempts >= 2 ? 'terminal' : 'retry'), bucket: false, work: () => throwError(() => new Error('x')) }),
        letters,
      );
      expectObservable(result).toBe('R 4ms T 15ms |', values);
    });
  });

  it('errors when the error policy throws', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      const boom = new Error('policy');
      const policy = (): 'retry' => {
        throw boom;
      };
      const result = cold('a 20ms |').pipe(workqueue({ errorPolicy: policy, work: () => throwError(() => new Error('x')) }));
      expectObservable(result).toBe('#', {}, boom);
    });
  });

  it('drains at completion: waiting and running keys finish, delayed re-adds are dropped', () => {
    testScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('ab|').pipe(workqueue({ work: () => takes(3) }), letters)).toBe('---A--(B|)', values);
      expectObservable(cold('a|').pipe(workqueue({ work: () => throwError(() => new Error('x')) }), letters)).toBe('R|', values);
      expectObservable(cold('a|').pipe(workqueue({ work: () => takes(3).pipe(map(() => requeueAfter(1))) }), letters)).toBe('---(Q|)', values);
    });
  });

  it('completes at once on an empty source', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<string>('|');
      expectObservable(source.pipe(workqueue({ work: () => undefined }))).toBe('|');
      expectSubscriptions(source.subscriptions).toBe('(^!)');
    });
  });

  it('emits nothing and stays subscribed on a source that never emits', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<string>('-');
      expectObservable(source.pipe(workqueue({ work: () => undefined }))).toBe('-');
      expectSubscriptions(source.subscriptions).toBe('^');
    });
  });

  it('passes a source error on at once and unsubscribes the running work', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('a-#');
      const work = cold('-----(x|)', { x: awaitChange() });
      expectObservable(source.pipe(workqueue({ work: () => work }))).toBe('--#');
      expectSubscriptions(source.subscriptions).toBe('^-!');
      expectSubscriptions(work.subscriptions).toBe('^-!');
    });
  });

  it('unsubscribes the source, the running work and its timers when unsubscribed early', () => {
    testScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('a-b-c-|');
      const work = cold('---(x|)', { x: requeueAfter(1) });
      const unsub = '    ^----!';
      expectObservable(source.pipe(workqueue({ work: () => work }), letters), unsub).toBe('---Q-', values);
      expectSubscriptions(source.subscriptions).toBe('^----!');
      expectSubscriptions(work.subscriptions).toBe(['^--!', '---^-!']);
    });
  });

  it('works through a synchronous source in order, coalescing what waits', () => {
    testScheduler().run(({ expectObservable }) => {
      expectObservable(of('b', 'a', 'a').pipe(workqueue({ work: () => takes(2) }), letters)).toBe('--B-(A|)', values);
      expectObservable(of('a', 'b', 'a').pipe(workqueue({ work: () => undefined }), letters)).toBe('(ABA|)', values);
    });
  });

  it('stops a synchronous source as soon as the subscriber has enough', () => {
    let results: string[] = [];
    range(0, 1e9)
      .pipe(
        workqueue({ work: () => undefined }),
        map((r) => r.key),
        take(3),
        toArray(),
      )
      .subscribe((keys) => (results = keys));
    expect(results).toEqual(['0', '1', '2']);
  });

  it('handles keys re-added synchronously from downstream without growing the stack', () => {
    const keys = new Subject<string>();
    let runs = 0;
    keys
      .pipe(
        workqueue({ work: () => void runs++ }),
        tap(() => runs < 50_000 && keys.next('a')),
      )
      .subscribe();
    keys.next('a');
    expect(runs).toBe(50_000);
  });

  it('takes promises, rejected promises and observables of outcomes', async () => {
    const results = await lastValueFrom(
      of('a', 'b', 'c').pipe(
        workqueue({
          concurrency: 3,
          bucket: false,
          work: (key: string, { attempt }) => {
            if (key === 'a') return Promise.resolve(requeueAfter(0, 'later'));
            if (key === 'b') return attempt === 1 ? Promise.reject(new Error('once')) : Promise.resolve();
            return defer(() => of(awaitChange('c done')));
          },
        }),
        map((r) => `${r.type}:${r.key}:${'value' in r ? String(r.value) : ''}`),
        toArray(),
      ),
    );
    expect(results.sort()).toEqual(['awaitChange:c:c done', 'requeueAfter:a:later', 'retry:b:']);
  });

  it('infers the item and value types of its results', () => {
    const results = of({ name: 'a' }).pipe(workqueue({ key: (item) => item.name, work: async () => requeueAfter(10, 42) }));
    expectTypeOf(results).toEqualTypeOf<Observable<WorkResult<{ name: string }, number>>>();
    const plain = of('a').pipe(workqueue({ work: () => undefined }));
    expectTypeOf(plain).toEqualTypeOf<Observable<WorkResult<string, undefined>>>();
  });

  it('rejects bad options when created', () => {
    const work = (): undefined => undefined;
    expect(() => workqueue({ work: undefined as unknown as typeof work })).toThrow(TypeError);
    expect(() => workqueue({ work, key: 'name' as unknown as (item: unknown) => string })).toThrow(TypeError);
    expect(() => workqueue({ work, concurrency: 0 })).toThrow(RangeError);
    expect(() => workqueue({ work, concurrency: 1.5 })).toThrow(RangeError);
    expect(() => workqueue({ work, backoff: { base: -1 } })).toThrow(RangeError);
    expect(() => workqueue({ work, backoff: { jitter: -1 } })).toThrow(RangeError);
    expect(() => workqueue({ work, bucket: { qps: 0, burst: 1 } })).toThrow(RangeError);
    expect(() => requeueAfter(-1)).toThrow(RangeError);
  });
});
