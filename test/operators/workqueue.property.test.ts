// Property test of the work-queue invariants (FRAMEWORK-TARGETS "Our bar" 5), on virtual time with
// a seeded random generator: no wall-clock timing is asserted. Each trial drives `workqueue` with
// random adds, random work durations and random outcomes, logs what happened, and replays the log
// through a model of client-go's queue (a dirty set, a processing set, one pending delay per key):
//   - one worker per key: a key never starts while it runs;
//   - coalescing and exactly one follow-up: every start consumes a pending add (a key added many
//     times while it waits or runs starts once more, not zero times, not twice);
//   - earliest delay wins: a key's pending delayed re-add is the minimum of the requested times,
//     counted from the end of the run, and it starts then unless every worker is busy;
//   - the queue is work-conserving and bounded: never more than `concurrency` runs, never an idle
//     worker while a key waits; at the end nothing is left waiting or running.
import { asyncScheduler, mergeMap, Observable, of, tap, throwError, timer } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { awaitChange, requeueAfter, TerminalError, workqueue, type Outcome, type WorkResult } from '../../operators/index.js';
import { seededRandom as seeded } from '../support/prng.js';
import { testScheduler } from './marbles.js';


type Planned = { kind: 'ok'; outcome: Outcome<unknown> } | { kind: 'retry' } | { kind: 'terminal' };
type LogEntry =
  | { t: number; kind: 'add'; key: string }
  | { t: number; kind: 'start'; key: string }
  | { t: number; kind: 'end'; key: string; planned: Planned }
  | { t: number; kind: 'sourceComplete' };

const BACKOFF = { base: 1.25, max: 40, factor: 2 };
const backoffAfter = (failures: number): number => Math.min(BACKOFF.max, BACKOFF.base * BACKOFF.factor ** (failures - 1));

interface Trial {
  log: LogEntry[];
  results: WorkResult<string, unknown>[];
  completed: boolean;
  concurrency: number;
  keys: string[];
}

function runTrial(seed: number): Trial {
  const rng = seeded(seed);
  const keys = Array.from({ length: 1 + Math.floor(rng() * 6) }, (_, i) => `k${i}`);
  const concurrency = rng() < 0.3 ? keys.length : 1 + Math.floor(rng() * 3);
  const adds = Array.from({ length: 10 + Math.floor(rng() * 70) }, () => ({ t: Math.floor(rng() * 200), key: keys[Math.floor(rng() * keys.length)]! }));
  adds.sort((a, b) => a.t - b.t);
  const end = 200 + Math.floor(rng() * 100);
  const log: LogEntry[] = [];
  const results: WorkResult<string, unknown>[] = [];
  let completed = false;

  const scheduler = testScheduler();
  scheduler.run(() => {
    const source = new Observable<string>((subscriber) => {
      for (const { t, key } of adds) asyncScheduler.schedule(() => subscriber.next(key), t);
      asyncScheduler.schedule(() => subscriber.complete(), end);
    });
    const plan = (): Planned => {
      const r = rng();
      if (r < 0.45) return { kind: 'ok', outcome: awaitChange() };
      if (r < 0.7) return { kind: 'ok', outcome: requeueAfter(0.001 + rng() * 30) };
      if (r < 0.92) return { kind: 'retry' };
      return { kind: 'terminal' };
    };
    source
      .pipe(
        tap({
          next: (key) => log.push({ t: scheduler.now(), kind: 'add', key }),
          complete: () => log.push({ t: scheduler.now(), kind: 'sourceComplete' }),
        }),
        workqueue({
          concurrency,
          backoff: BACKOFF,
          bucket: false,
          work: (key: string) => {
            log.push({ t: scheduler.now(), kind: 'start', key });
            const planned = plan();
            return timer(0.001 + rng() * 12).pipe(
              mergeMap(() => {
                log.push({ t: scheduler.now(), kind: 'end', key, planned });
                if (planned.kind === 'ok') return of(planned.outcome);
                return throwError(() => (planned.kind === 'terminal' ? new TerminalError('no') : new Error('again')));
              }),
            );
          },
        }),
      )
      .subscribe({ next: (result) => results.push(result), complete: () => (completed = true) });
  });
  return { log, results, completed, concurrency, keys };
}

/** Replays a trial's log through the model; returns the first violated invariant, or undefined. */
function check(trial: Trial): string | undefined {
  type KeyState = { dirty: boolean; processing: boolean; due: number; failures: number };
  const state = new Map<string, KeyState>(trial.keys.map((k) => [k, { dirty: false, processing: false, due: Infinity, failures: 0 }]));
  let active = 0;
  let sourceDone = false;
  let lastTime = 0;
  const expectedResults: string[] = [];

  const fireDue = (t: number): void => {
    for (const s of state.values()) {
      if (s.due <= t) {
        s.due = Infinity;
        s.dirty = true;
      }
    }
  };
  const conserving = (at: number): string | undefined => {
    if (active >= trial.concurrency) return undefined;
    for (const [key, s] of state) if (s.dirty && !s.processing) return `t=${at}: ${key} waits while a worker is idle`;
    return undefined;
  };

  for (const entry of trial.log) {
    if (entry.t > lastTime) {
      const idle = conserving(lastTime);
      if (idle !== undefined) return idle;
      lastTime = entry.t;
    }
    fireDue(entry.t);
    if (entry.kind === 'sourceComplete') {
      sourceDone = true;
      for (const s of state.values()) s.due = Infinity;
      continue;
    }
    const s = state.get(entry.key)!;
    switch (entry.kind) {
      case 'add':
        s.dirty = true;
        break;
      case 'start':
        if (s.processing) return `t=${entry.t}: ${entry.key} started while already running`;
        if (!s.dirty) return `t=${entry.t}: ${entry.key} started without a pending add (not coalesced, or a second follow-up)`;
        s.dirty = false;
        s.processing = true;
        if (++active > trial.concurrency) return `t=${entry.t}: ${active} runs at once, concurrency ${trial.concurrency}`;
        break;
      case 'end': {
        s.processing = false;
        active--;
        const { planned } = entry;
        const delayed = (after: number): void => {
          if (!sourceDone) s.due = Math.min(s.due, entry.t + after);
        };
        if (planned.kind === 'terminal') {
          s.failures = 0;
          expectedResults.push(`terminal ${entry.key}`);
        } else if (planned.kind === 'retry') {
          s.failures++;
          expectedResults.push(`retry ${entry.key} ${backoffAfter(s.failures)}`);
          delayed(backoffAfter(s.failures));
        } else if (planned.outcome.type === 'requeueAfter') {
          s.failures = 0;
          expectedResults.push(`requeueAfter ${entry.key} ${planned.outcome.after}`);
          delayed(planned.outcome.after);
        } else {
          s.failures = 0;
          expectedResults.push(`awaitChange ${entry.key}`);
        }
        break;
      }
    }
  }
  const idle = conserving(lastTime);
  if (idle !== undefined) return idle;
  if (!trial.completed) return 'the output did not complete';
  for (const [key, s] of state) if (s.dirty || s.processing) return `${key} left ${s.dirty ? 'waiting' : 'running'} at completion`;
  const actual = trial.results.map((r) => (r.type === 'retry' || r.type === 'requeueAfter' ? `${r.type} ${r.key} ${r.after}` : `${r.type} ${r.key}`));
  expect(actual).toEqual(expectedResults);
  return undefined;
}

describe('workqueue invariants (seeded property test on virtual time)', () => {
  const trials = 400;

  it(`hold for ${trials} random trials: one worker per key, one follow-up, coalescing, earliest delay, no idle worker`, () => {
    let starts = 0;
    let coalesced = 0;
    for (let seed = 1; seed <= trials; seed++) {
      const trial = runTrial(seed);
      const violation = check(trial);
      expect(violation, `seed ${seed}`).toBeUndefined();
      const adds = trial.log.filter((e) => e.kind === 'add').length;
      const runs = trial.log.filter((e) => e.kind === 'start').length;
      starts += runs;
      coalesced += Math.max(0, adds - runs);
    }
    // The trials exercise the interesting cases, not just idle queues.
    expect(starts).toBeGreaterThan(trials * 10);
    expect(coalesced).toBeGreaterThan(trials);
  });

  it('finds the violation when the model is given a queue that runs a key twice at once', () => {
    const trial = runTrial(7);
    const start = trial.log.find((e) => e.kind === 'start')!;
    const broken: Trial = { ...trial, log: [...trial.log.slice(0, trial.log.indexOf(start) + 1), { ...start, kind: 'start' }, ...trial.log.slice(trial.log.indexOf(start) + 1)] };
    expect(check(broken)).toMatch(/already running/);
  });
});
