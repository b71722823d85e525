import {
  asyncScheduler,
  from,
  Observable,
  Subscription,
  type ObservableInput,
  type OperatorFunction,
  type SchedulerLike,
} from 'rxjs';
import { DelayHeap } from './delayHeap.js';
import { retryUnlessTerminal, type ErrorPolicy, type Outcome, type WorkResult } from './outcome.js';
import { subscribeSource } from './subscribeSource.js';
import { TokenBucket, type TokenBucketOptions } from './tokenBucket.js';
import { requireCount, requireFunction, requireNonNegative, requirePositive } from './validate.js';

/** Per-key exponential back-off for failed runs: `min(max, base · factor^(failures−1))`, plus jitter. */
export interface BackoffOptions {
  /** Delay after the first failure, in ms. Default: 5 (client-go). */
  base?: number;
  /** Cap, in ms. Default: 1,000,000 (1000 s, client-go). */
  max?: number;
  /** Growth per failure. Default: 2. */
  factor?: number;
  /** Adds up to this fraction of the delay at random (0.1: up to +10%). Default: 0 (client-go parity). */
  jitter?: number;
}

/** What a work function may return: an outcome, nothing (= awaitChange), or a promise or observable of one. */
export type WorkReturn<R> = Outcome<R> | void | PromiseLike<Outcome<R> | void> | ObservableInput<Outcome<R> | void>;

/** Passed to each run of the work function. */
export interface WorkContext {
  /** The item's key. */
  readonly key: string;
  /** 1 for the first run, n for the n-th run in a row after n−1 failures. */
  readonly attempt: number;
}

/**
 * Where a work queue reports what it does, after client-go's workqueue metrics. Every method is
 * optional and is called synchronously on the queue's path, so it must be cheap (a counter).
 */
export interface WorkqueueMetrics {
  /** A key was queued: not counted when it was already waiting (coalesced), as client-go's `adds_total`. */
  add?(key: string): void;
  /** Keys waiting for a worker, after each change (client-go's `depth`). */
  depth?(waiting: number): void;
  /** A failed run will be retried after back-off (client-go's `retries_total`). */
  retry?(key: string): void;
  /**
   * A worker took a key `ms` milliseconds (scheduler time) after it was added: from the add that
   * made it waiting (later coalesced adds do not reset it; an add during a run counts from then)
   * to the start of its run, as client-go's `queue_duration_seconds`.
   */
  queueDuration?(ms: number): void;
  /** A run ended after `ms` milliseconds of the queue's scheduler, with its result's type. */
  workDuration?(ms: number, result: WorkResult<unknown, unknown>['type']): void;
}

/** Options of {@link workqueue}. */
export interface WorkqueueOptions<T, R = undefined> {
  /**
   * The work for one item. Required. Its outcome decides what happens to the key next: return
   * nothing or `awaitChange()` when done, `requeueAfter(ms)` to look again later, throw (or reject,
   * or error) to retry with back-off, throw a `TerminalError` to give up. An observable's last
   * value is its outcome; unsubscribing from the queue unsubscribes the running work.
   */
  work: (item: T, context: WorkContext) => WorkReturn<R>;
  /** The key that identifies an item. Default: `String(item)`, right for the keys `toKey` emits. */
  key?: (item: T) => string;
  /** Keys worked on at once. Default: 1 (client-go's default per controller). */
  concurrency?: number;
  /** Per-key back-off for retries, or `false` for none. Default: `{ base: 5, max: 1_000_000, factor: 2, jitter: 0 }`. */
  backoff?: BackoffOptions | false;
  /**
   * A bucket every retry takes a token from; a retry waits for the larger of its back-off and its
   * token. `false` for none. Default: `{ qps: 10, burst: 100 }` (client-go).
   */
  bucket?: TokenBucketOptions | false;
  /** Decides whether a failure is retried or terminal. Default: `TerminalError` is terminal, all else retried. */
  errorPolicy?: ErrorPolicy<T>;
  /** Clock and timers. Default: `asyncScheduler`. */
  scheduler?: SchedulerLike;
  /** Random numbers in [0, 1) for jitter. Default: `Math.random`. */
  random?: () => number;
  /** Instrumentation (queue depth, adds, retries, queue wait, work duration). Default: none. */
  metrics?: WorkqueueMetrics;
}

interface Entry<T> {
  /** The latest item added under this key. */
  item: T;
  /** Added and not yet handed to a worker (client-go's dirty set). */
  dirty: boolean;
  /** A worker has it. */
  processing: boolean;
  /** Failed runs in a row. */
  failures: number;
  /** When a delayed re-add is due; Infinity when none is pending. */
  dueAt: number;
  /** When the running work started (scheduler time), for `metrics.workDuration`. */
  startedAt: number;
  /** When the key last became dirty (scheduler time), for `metrics.queueDuration`. */
  addedAt: number;
}

/**
 * Works on each item's key with at most `concurrency` workers, never two on one key, retrying
 * failures with back-off; emits one {@link WorkResult} per run.
 *
 * Like `mergeMap(work, concurrency)`, but with client-go's work-queue rules. An item whose key is
 * already waiting is coalesced into it (the latest item wins). A key is never worked on by two
 * workers at once; added again while it runs, it runs once more afterwards, however many times it
 * was added. A failure is retried after the larger of a per-key exponential back-off (5 ms
 * doubling to 1000 s) and a token from an overall bucket (10 qps, 100 burst); success forgets
 * the key's failures. `requeueAfter(ms)` re-adds the key `ms` after the run ends; of several
 * pending delayed re-adds of one key the earliest wins (and an ordinary add does not cancel it).
 * Keys wait in FIFO order.
 *
 * When the source completes, the queue drains: waiting keys and running work finish, pending
 * delayed re-adds (retries, requeues; their results still say `after`) are dropped, then the
 * output completes. A source error is passed on at once and unsubscribes the running work, as
 * does unsubscribing.
 *
 * ```
 * source:    a-b-a-a-----a-|          (work on a: 3 frames; b: 2 frames; concurrency 1)
 * workqueue
 * runs:      aaabbaaaaaa-aaa          b waits; the two re-adds of a during its run give one more run
 * result:    ---A-B--A--A---(A|)      one result per run
 * ```
 *
 * @example
 * import { Subject } from 'rxjs';
 * import { workqueue, requeueAfter, TerminalError } from 'svc/operators';
 * const keys = new Subject<string>();
 * keys.pipe(
 *   workqueue({
 *     concurrency: 2,
 *     work: async (key) => {
 *       if (key === 'bad') throw new TerminalError('invalid spec');
 *       if (key.startsWith('slow')) return requeueAfter(30_000);
 *     },
 *   }),
 * ).subscribe((result) => console.log(result.type, result.key));
 * keys.next('default/web'); keys.next('default/web'); keys.next('bad');
 * // awaitChange default/web
 * // terminal bad
 * // awaitChange default/web   (added again while it ran: exactly one more run)
 *
 * @see rateLimit — the bucket alone, for API calls
 * @see concurrency — bounded parallelism without keys or retries
 * @see toKey, toOwnerKey — turn informer events into the keys this queue expects
 */
export function workqueue<T, R = undefined>(options: WorkqueueOptions<T, R>): OperatorFunction<T, WorkResult<T, R>> {
  const work = requireFunction('work', options.work);
  const keyOf = options.key === undefined ? String : requireFunction('key', options.key);
  const concurrency = requireCount('concurrency', options.concurrency ?? 1, true);
  const errorPolicy = options.errorPolicy === undefined ? retryUnlessTerminal : requireFunction('errorPolicy', options.errorPolicy);
  const scheduler = options.scheduler ?? asyncScheduler;
  const random = options.random ?? Math.random;
  const metrics = options.metrics;
  const backoff = options.backoff === false ? undefined : options.backoff ?? {};
  const base = backoff === undefined ? 0 : requirePositive('backoff.base', backoff.base ?? 5, true);
  const max = backoff === undefined ? 0 : requirePositive('backoff.max', backoff.max ?? 1_000_000);
  const factor = backoff === undefined ? 1 : requirePositive('backoff.factor', backoff.factor ?? 2, true);
  const jitter = backoff === undefined ? 0 : requireNonNegative('backoff.jitter', backoff.jitter ?? 0);
  const bucketOptions = options.bucket === false ? undefined : options.bucket ?? { qps: 10, burst: 100 };
  if (bucketOptions !== undefined) new TokenBucket(bucketOptions); // validates when the operator is created

  const backoffDelay = (failures: number): number => {
    if (backoff === undefined) return 0;
    const exp = base * Math.pow(factor, failures - 1);
    const delay = exp < max ? exp : max;
    return jitter === 0 ? delay : delay * (1 + jitter * random());
  };

  return (source) =>
    new Observable<WorkResult<T, R>>((subscriber) => {
      const bucket = bucketOptions === undefined ? undefined : new TokenBucket(bucketOptions);
      const entries = new Map<string, Entry<T>>();
      let queue: string[] = [];
      let head = 0;
      let active = 0;
      let pumping = false;
      let stopped = false;
      const delays = new DelayHeap();
      let timer: Subscription | null = null;
      let timerAt = Infinity;

      // Marks the key dirty and queues it unless a worker has it; the caller pumps afterwards.
      const depth = (): void => metrics?.depth?.(queue.length - head);

      const add = (key: string, entry: Entry<T>): void => {
        if (entry.dirty) return;
        entry.dirty = true;
        if (metrics?.queueDuration !== undefined) entry.addedAt = scheduler.now();
        metrics?.add?.(key);
        if (!entry.processing) {
          queue.push(key);
          depth();
        }
      };

      const forgetIfIdle = (key: string, entry: Entry<T>): void => {
        if (!entry.dirty && !entry.processing && entry.failures === 0 && entry.dueAt === Infinity) entries.delete(key);
      };

      const fire = (): void => {
        timer = null;
        timerAt = Infinity;
        const now = scheduler.now();
        while (delays.peekTime() <= now) {
          const key = delays.peekKey()!;
          const at = delays.peekTime();
          delays.pop();
          const entry = entries.get(key);
          if (entry === undefined || entry.dueAt !== at) continue; // superseded by an earlier time
          entry.dueAt = Infinity;
          add(key, entry);
        }
        arm();
        pump();
      };

      const arm = (): void => {
        const at = delays.peekTime();
        if (at >= timerAt) return;
        timer?.unsubscribe();
        timerAt = at;
        timer = at === Infinity ? null : scheduler.schedule(fire, Math.max(0, at - scheduler.now()));
      };

      const addAfter = (key: string, entry: Entry<T>, delay: number): void => {
        if (stopped) return;
        if (delay <= 0) {
          add(key, entry);
          return;
        }
        const at = scheduler.now() + delay;
        if (at >= entry.dueAt) return; // the earliest pending time wins
        entry.dueAt = at;
        delays.push(at, key);
        arm();
      };

      const settle = (key: string, entry: Entry<T>, result: WorkResult<T, R>): void => {
        entry.processing = false;
        active--;
        metrics?.workDuration?.(scheduler.now() - entry.startedAt, result.type);
        if (entry.dirty) {
          queue.push(key);
          depth();
        }
        switch (result.type) {
          case 'awaitChange':
          case 'terminal':
            entry.failures = 0;
            break;
          case 'requeueAfter':
            entry.failures = 0;
            addAfter(key, entry, result.after);
            break;
          case 'retry':
            addAfter(key, entry, result.after);
            break;
        }
        forgetIfIdle(key, entry);
        subscriber.next(result);
        pump();
      };

      const succeed = (key: string, entry: Entry<T>, item: T, attempts: number, outcome: Outcome<R> | void): void => {
        if (outcome === undefined || outcome === null || outcome.type === 'awaitChange') {
          settle(key, entry, { type: 'awaitChange', key, item, attempts, value: outcome?.value });
        } else {
          settle(key, entry, { type: 'requeueAfter', key, item, attempts, value: outcome.value, after: outcome.after });
        }
      };

      const fail = (key: string, entry: Entry<T>, item: T, attempts: number, error: unknown): void => {
        let verdict: 'retry' | 'terminal';
        try {
          verdict = errorPolicy(error, item, attempts);
        } catch (policyError) {
          subscriber.error(policyError);
          return;
        }
        if (verdict === 'terminal') {
          settle(key, entry, { type: 'terminal', key, item, attempts, error });
          return;
        }
        entry.failures = attempts;
        metrics?.retry?.(key);
        const perKey = backoffDelay(attempts);
        const overall = bucket === undefined ? 0 : bucket.reserve(scheduler.now());
        settle(key, entry, { type: 'retry', key, item, attempts, error, after: perKey > overall ? perKey : overall });
      };

      const run = (key: string, entry: Entry<T>): void => {
        const item = entry.item;
        const attempts = entry.failures + 1;
        entry.startedAt = scheduler.now();
        let returned: WorkReturn<R>;
        try {
          returned = work(item, { key, attempt: attempts });
        } catch (error) {
          fail(key, entry, item, attempts, error);
          return;
        }
        if (returned === undefined || returned === null || isOutcome(returned)) {
          succeed(key, entry, item, attempts, returned);
          return;
        }
        let input: Observable<Outcome<R> | void>;
        try {
          input = from(returned as ObservableInput<Outcome<R> | void>);
        } catch {
          subscriber.error(new TypeError(`work for ${key} returned ${typeof returned}, not an outcome, promise or observable`));
          return;
        }
        let last: Outcome<R> | void = undefined;
        const running = new Subscription();
        subscriber.add(running);
        running.add(
          input.subscribe({
            next: (outcome) => void (last = outcome),
            error: (error: unknown) => {
              subscriber.remove(running);
              fail(key, entry, item, attempts, error);
            },
            complete: () => {
              subscriber.remove(running);
              succeed(key, entry, item, attempts, last);
            },
          }),
        );
      };

      const pump = (): void => {
        if (pumping) return;
        pumping = true;
        while (active < concurrency && head < queue.length && !subscriber.closed) {
          const key = queue[head++]!;
          if (head > 1024 && head * 2 > queue.length) {
            queue = queue.slice(head);
            head = 0;
          }
          const entry = entries.get(key)!;
          entry.dirty = false;
          entry.processing = true;
          active++;
          depth();
          metrics?.queueDuration?.(scheduler.now() - entry.addedAt);
          run(key, entry);
        }
        pumping = false;
        if (stopped && active === 0 && head === queue.length) subscriber.complete();
      };

      subscribeSource(source, subscriber, {
        next(item) {
          let key: string;
          try {
            key = keyOf(item);
          } catch (error) {
            subscriber.error(error);
            return;
          }
          let entry = entries.get(key);
          if (entry === undefined) {
            entry = { item, dirty: false, processing: false, failures: 0, dueAt: Infinity, startedAt: 0, addedAt: 0 };
            entries.set(key, entry);
          } else {
            entry.item = item;
          }
          add(key, entry);
          pump();
        },
        error: (error: unknown) => subscriber.error(error),
        complete() {
          stopped = true;
          delays.clear();
          timer?.unsubscribe();
          timer = null;
          timerAt = Infinity;
          for (const [key, entry] of entries) {
            entry.dueAt = Infinity;
            forgetIfIdle(key, entry);
          }
          pump();
        },
      });
      return () => {
        timer?.unsubscribe();
        timer = null;
      };
    });
}

function isOutcome<R>(value: object): value is Outcome<R> {
  const type = (value as { type?: unknown }).type;
  return (type === 'awaitChange' || type === 'requeueAfter') && typeof (value as { subscribe?: unknown }).subscribe !== 'function';
}
