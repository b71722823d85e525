/**
 * The project's operator benches on svc/bench (bench/operators, `npm run bench:operators`): every
 * operator has its bench in the harness's list, and the benches with timers run ten minutes of
 * traffic on the virtual clock — the window passes on the clock, every item comes through.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import operatorBenches from '../../bench/operators/operators.bench.js';

describe('bench/operators on svc/bench', () => {
  beforeAll(() => {
    // Measurement is not what is tested here: the fewest samples mitata takes.
    process.env['BENCH_MS'] = '1';
  });

  it('lists a bench for every operator', () => {
    const names = operatorBenches.map((b) => b.name);
    for (const operator of ['toKey', 'toOwnerKey', 'generationChanged', 'labelsChanged', 'annotationsChanged', 'resourceVersionChanged', 'workqueue', 'rateLimit', 'batch', 'concurrency', 'resync', 'leaderElection', 'whileLeader', 'mergeByKey']) {
      expect(names).toContain(operator);
    }
  });

  const run = (name: string) => operatorBenches.find((b) => b.name === name)!.run();

  it('runs rateLimit over ten virtual minutes: the window passes on the virtual clock and the queue grows to minutes', async () => {
    const result = await run('rateLimit 50/s, 10 virtual minutes');
    expect(result.clock).toBe('virtual');
    expect(result.spanMs).toBeCloseTo(599_990, 0);
    expect(result.outputs).toBe(60_000);
    // 100/s offered to 50/s: the last items wait about ten minutes.
    expect(result.latencyMs!.max).toBeGreaterThan(9 * 60_000);
  });

  it('runs batch over ten virtual minutes: one batch per 1-second window, no item waiting longer than one', async () => {
    const result = await run('batch 1 s / 100, 10 virtual minutes');
    expect(result.clock).toBe('virtual');
    expect(result.spanMs).toBeCloseTo(599_990, 0);
    expect(result.outputs).toBe(600);
    expect(result.latencyMs!.max).toBeLessThanOrEqual(1_000);
  });
});
