import { concat, defer, interval, map, merge, of, Subject, type Observable } from 'rxjs';
import type { WorkqueueMetrics } from '../../operators/index.js';
import type { ControllersSnapshot, ControllersUpdate, ReconcileRecord } from '../../src/browser-safe/index.js';
import type { ControllerResult } from '../controller.js';

/**
 * What the runtime's loops are doing, for people watching (the dashboard's Controllers view):
 * every reconcile's result as it happens, and each work queue's depth, adds and retries. Fed by
 * the same hooks as the Prometheus metrics and by the results the runtime already subscribes to,
 * so it costs a few counters per queue and nothing at all while nobody watches (a Subject with
 * no subscriber drops what it is given).
 */

interface Counters {
  depth: number;
  adds: number;
  retries: number;
  results: number;
  /** The duration the queue reported just before it emitted its result (same tick). */
  lastDurationMs: number | undefined;
}

export class LoopActivity {
  readonly #queues = new Map<string, Counters>();
  readonly #results = new Subject<ReconcileRecord>();

  constructor(private readonly state: () => Omit<ControllersSnapshot, 'queues' | 'at'>) {}

  #counters(name: string): Counters {
    let counters = this.#queues.get(name);
    if (counters === undefined) this.#queues.set(name, (counters = { depth: 0, adds: 0, retries: 0, results: 0, lastDurationMs: undefined }));
    return counters;
  }

  /** Wraps the metrics hook of the controller `name`: counts here, then reports on. */
  instrument(name: string, inner: WorkqueueMetrics | undefined): WorkqueueMetrics {
    const counters = this.#counters(name);
    return {
      add: (key) => {
        counters.adds++;
        inner?.add?.(key);
      },
      depth: (waiting) => {
        counters.depth = waiting;
        inner?.depth?.(waiting);
      },
      retry: (key) => {
        counters.retries++;
        inner?.retry?.(key);
      },
      ...(inner?.queueDuration ? { queueDuration: inner.queueDuration.bind(inner) } : {}),
      workDuration: (ms, result) => {
        counters.lastDurationMs = ms;
        inner?.workDuration?.(ms, result);
      },
    };
  }

  /** A result of the loop `loop`, as the runtime receives it. */
  record(loop: string, result: ControllerResult<unknown>): void {
    const counters = this.#counters(result.controller);
    counters.results++;
    const durationMs = counters.lastDurationMs;
    counters.lastDurationMs = undefined;
    if (!this.#results.observed) return;
    const failed = result.type === 'retry' || result.type === 'terminal';
    this.#results.next({
      loop,
      controller: result.controller,
      key: result.key,
      outcome: result.type,
      attempts: result.attempts,
      at: Date.now(),
      ...(durationMs !== undefined ? { durationMs } : {}),
      ...(result.type === 'retry' || result.type === 'requeueAfter' ? { afterMs: result.after } : {}),
      ...(failed ? { error: result.error instanceof Error ? result.error.message : String(result.error) } : {}),
    });
  }

  snapshot(): ControllersSnapshot {
    const queues = [...this.#queues].map(([name, c]) => ({ name, depth: c.depth, adds: c.adds, retries: c.retries, results: c.results }));
    return { ...this.state(), queues, at: Date.now() };
  }

  /** Every result from now on. */
  get results$(): Observable<ReconcileRecord> {
    return this.#results.asObservable();
  }

  /**
   * The live view: a snapshot at once and every `snapshotMs` after (queue depth and leadership
   * change without a result to carry them), and every result between.
   */
  updates$(snapshotMs = 1_000): Observable<ControllersUpdate> {
    return defer(() =>
      merge(
        concat(of(0), interval(snapshotMs)).pipe(map((): ControllersUpdate => ({ kind: 'snapshot', snapshot: this.snapshot() }))),
        this.#results.pipe(map((result): ControllersUpdate => ({ kind: 'result', result }))),
      ),
    );
  }
}
