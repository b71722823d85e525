// The workqueue's metrics hook: what the controller manager's /metrics counts is reported at the
// virtual time it happens, once per real add, with the depth after every change.
import { defer, delay, of, throwError, type Observable } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { awaitChange, workqueue, type Outcome, type WorkqueueMetrics } from '../../operators/index.js';
import { testScheduler } from './marbles.js';

const takes = (frames: number): Observable<Outcome<unknown>> => of(awaitChange()).pipe(delay(frames));

/** A metrics hook that logs every call as `time:event`. */
function recorder(now: () => number): { log: string[]; metrics: WorkqueueMetrics } {
  const log: string[] = [];
  return {
    log,
    metrics: {
      add: (key) => log.push(`${now()}:add ${key}`),
      depth: (n) => log.push(`${now()}:depth ${n}`),
      retry: (key) => log.push(`${now()}:retry ${key}`),
      queueDuration: (ms) => log.push(`${now()}:queued ${ms}`),
      workDuration: (ms, type) => log.push(`${now()}:work ${ms} ${type}`),
    },
  };
}

describe('workqueue metrics hook', () => {
  it('counts adds but not coalesced ones, reports depth after each change, each wait from add to run and each run duration', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const { log, metrics } = recorder(() => scheduler.now());
      const source = cold('a-b-a-a-----a-|');
      const result = source.pipe(workqueue({ work: (key: string) => takes(key === 'a' ? 3 : 2), metrics }));
      expectObservable(result, '^-------------------!').toBe('---x-x--x--x---(x|)', {
        x: expect.anything() as unknown,
      });
      scheduler.flush();
      expect(log).toEqual([
        '0:add a', '0:depth 1', '0:depth 0', '0:queued 0',
        '2:add b', '2:depth 1',
        '3:work 3 awaitChange', '3:depth 0', '3:queued 1', // b waited from 2 to 3
        '4:add a', '4:depth 1',
        '5:work 2 awaitChange', '5:depth 0', '5:queued 1',
        '6:add a', // a is running: marked for one more run, not queued; its wait counts from here
        '8:work 3 awaitChange', '8:depth 1', '8:depth 0', '8:queued 2',
        '11:work 3 awaitChange',
        '12:add a', '12:depth 1', '12:depth 0', '12:queued 0',
        '15:work 3 awaitChange',
      ]);
    });
  });

  it('counts a retry for a failed run and its re-add after the back-off', () => {
    const scheduler = testScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const { log, metrics } = recorder(() => scheduler.now());
      let failures = 0;
      const work = () => defer(() => (failures++ === 0 ? throwError(() => new Error('boom')) : takes(1)));
      const source = cold('a----|');
      const result = source.pipe(workqueue({ work, metrics, backoff: { base: 2 }, bucket: false }));
      expectObservable(result).toBe('r--a-|', { r: expect.objectContaining({ type: 'retry' }) as unknown, a: expect.objectContaining({ type: 'awaitChange' }) as unknown });
      scheduler.flush();
      expect(log).toEqual([
        '0:add a', '0:depth 1', '0:depth 0', '0:queued 0',
        '0:retry a', '0:work 0 retry',
        '2:add a', '2:depth 1', '2:depth 0', '2:queued 0', // the back-off is not queue wait: it counts from the re-add
        '3:work 1 awaitChange',
      ]);
    });
  });
});
