// A controller on virtual time: requeue-after and back-off happen when the test moves the clock,
// never by sleeping; the same controller runs under the RxJS TestScheduler.
import { Subject, type Subscription } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { controller, type ControllerResult } from '../../controllers/index.js';
import { requeueAfter, TerminalError } from '../../operators/index.js';
import { VirtualTime } from '../../src/testing/index.js';

const summary = (r: ControllerResult<unknown>) => `${r.type} ${r.key} #${r.attempts}${'after' in r ? ` +${r.after}` : ''}`;

describe('VirtualTime', () => {
  let run: Subscription | undefined;
  afterEach(() => run?.unsubscribe());

  it('runs a requeue when the clock reaches it, not before', async () => {
    const time = new VirtualTime();
    const keys = new Subject<string>();
    const starts: number[] = [];
    const results: string[] = [];
    run = controller({
      name: 'requeue',
      for: new Subject(),
      watches: [keys],
      scheduler: time,
      reconcile: () => {
        starts.push(time.now());
        return starts.length === 1 ? requeueAfter(30_000) : undefined;
      },
    }).subscribe((r) => results.push(summary(r)));

    keys.next('ns/a');
    await time.advanceBy(0);
    expect(results).toEqual(['requeueAfter ns/a #1 +30000']);
    expect(time.nextAt()).toBe(30_000);
    await time.advanceBy(29_999);
    expect(starts).toEqual([0]);
    await time.advanceBy(1);
    expect(starts).toEqual([0, 30_000]);
    expect(results).toEqual(['requeueAfter ns/a #1 +30000', 'awaitChange ns/a #1']);
    expect(time.pending).toBe(0);
  });

  it('retries a failing async reconcile with exponential back-off on the virtual clock', async () => {
    const time = new VirtualTime(1_000);
    const keys = new Subject<string>();
    const starts: number[] = [];
    const results: string[] = [];
    run = controller({
      name: 'backoff',
      for: new Subject(),
      watches: [keys],
      scheduler: time,
      bucket: false,
      reconcile: async (_key, ctx) => {
        starts.push(time.now());
        await Promise.resolve();
        if (ctx.attempt < 4) throw new Error(`flaky ${ctx.attempt}`);
        if (ctx.attempt === 4) throw new TerminalError('gives up');
      },
    }).subscribe((r) => results.push(summary(r)));

    keys.next('ns/b');
    const end = await time.runAll();
    // 5 ms, then doubling: attempts at +0, +5, +15, +35; the terminal error ends it.
    expect(starts).toEqual([1_000, 1_005, 1_015, 1_035]);
    expect(end).toBe(1_035);
    expect(results).toEqual(['retry ns/b #1 +5', 'retry ns/b #2 +10', 'retry ns/b #3 +20', 'terminal ns/b #4']);
  });

  it('moves forward only, and says when a periodic timer never ends', async () => {
    const time = new VirtualTime(10);
    await expect(time.advanceTo(5)).rejects.toThrow(RangeError);
    expect(() => time.advanceBy(-1)).toThrow(RangeError);
    const ticks: number[] = [];
    const periodic = time.schedule(function (this: { schedule(state?: unknown, delay?: number): unknown }) {
      ticks.push(time.now());
      this.schedule(undefined, 100);
    }, 100);
    await expect(time.runAll(3)).rejects.toThrow(/timers pending after 3/);
    expect(ticks).toEqual([110, 210, 310]);
    periodic.unsubscribe();
    expect(time.pending).toBe(0);
  });
});

describe('the same controller under the RxJS TestScheduler', () => {
  it('requeues after the frames asked for', () => {
    new TestScheduler((actual, expected) => expect(actual).toEqual(expected)).run(({ hot, expectObservable }) => {
      const keys = hot('-a-------', { a: 'ns/a' });
      let runs = 0;
      const results = controller({ name: 'marbles', for: hot('-'), watches: [keys], reconcile: () => (++runs === 1 ? requeueAfter(4) : undefined) });
      expectObservable(results).toBe('-r---w---', {
        r: { type: 'requeueAfter', key: 'ns/a', item: 'ns/a', attempts: 1, after: 4, value: undefined, controller: 'marbles' },
        w: { type: 'awaitChange', key: 'ns/a', item: 'ns/a', attempts: 1, value: undefined, controller: 'marbles' },
      });
    });
  });
});
