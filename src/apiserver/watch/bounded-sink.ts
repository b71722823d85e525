import { Observable, type Observer, type Subscriber, type Subscription, type Unsubscribable } from 'rxjs';

/** A watcher let more than `limit` events wait for it; it is ended (and resumes or relists). */
export class WatcherTooSlowError extends Error {
  override readonly name = 'WatcherTooSlowError';
  readonly code = 'TooSlow';

  constructor(readonly limit: number) {
    super(`the watcher fell more than ${limit} events behind and was closed`);
  }
}

/** A consumer with stream.write's contract: the HTTP response of a watch, say. */
export interface BoundedSinkOptions<E> {
  /**
   * How many events may wait for the consumer. One more and the watch is ended with
   * WatcherTooSlowError (kube closes a watcher it cannot hand an event to, too).
   */
  readonly limit: number;
  /**
   * Hands one event to the consumer. `true`: send more. `false`: the event was taken, but the
   * consumer is full; hold the next ones until `onDrain` fires (what `stream.write` returns).
   */
  write(event: E): boolean;
  /**
   * Calls `listener` once, the next time the consumer can take more (`stream.once('drain', …)`).
   * May return a function that cancels the registration; it is called when the sink ends first.
   */
  onDrain(listener: () => void): (() => void) | void;
  /**
   * Whether an event handed over now counts against `limit` (default: every one does). Those
   * that do not are held without bound, ahead of the counted ones: a watch's replay (its
   * initial state, or the events since its start revision) arrives in one synchronous burst
   * that no socket takes at once, and is not the consumer falling behind the live events.
   * Must turn true once and stay true.
   */
  counts?(): boolean;
}

/**
 * Drives `source` into a consumer that can push back, holding at most `limit` events while the
 * consumer is full, and ends the watch rather than buffer without bound. Like `subscribe`, but
 * the observer is a writable stream.
 *
 * ```
 * source:   --a--b--c--d--e--|
 * write:      T  F              (false: full)
 * pending:          [c][c,d]…   drain → c, d, e written in order
 * result:   -------------------|  or  ---#  (WatcherTooSlowError once pending > limit)
 * ```
 *
 * The returned Observable emits nothing: it completes when the source has completed and every
 * event was written, errors with the source's error after the held events are written, or
 * errors with WatcherTooSlowError (dropping what was held: the watcher must relist or resume).
 * Unsubscribing it unsubscribes the source (a client that went away).
 *
 * @example
 * boundedSink(cache.watch({ fromRevision }), {
 *   limit: 1000,
 *   write: (event) => response.write(encodeWatchEvent(event)),
 *   onDrain: (listener) => {
 *     response.once('drain', listener);
 *     return () => response.off('drain', listener);
 *   },
 * }).subscribe({ error: (e) => endWithError(response, e), complete: () => response.end() });
 */
export function boundedSink<E>(source: Observable<E>, options: BoundedSinkOptions<E>): Observable<never> {
  const { limit } = options;
  if (!Number.isSafeInteger(limit) || limit < 0) throw new RangeError(`limit must be a non-negative integer, got ${limit}`);
  return new Observable<never>((subscriber) => {
    const sink = new Sink(subscriber, options);
    subscriber.add(sink);
    const subscription = source.subscribe(sink);
    // A source that emits synchronously (initial events) can overflow the sink inside subscribe,
    // before there was a subscription to end.
    if (subscriber.closed) subscription.unsubscribe();
    else sink.source = subscription;
  });
}

/**
 * One sink's state, and the observer of its source. A class rather than closures: a server holds
 * one per open watch, and an idle one should cost a few fields.
 */
class Sink<E> implements Observer<E>, Unsubscribable {
  source: Subscription | undefined;
  /** Events waiting for a drain; allocated the first time the consumer is full. */
  private held: E[] | undefined;
  private head = 0;
  /** Held events at the front that do not count against the limit (see `counts`). */
  private free = 0;
  private full = false;
  private ended: { error: unknown } | 'complete' | undefined;
  private cancelDrain: (() => void) | undefined;
  private readonly drained = () => this.onDrained();

  constructor(
    private readonly subscriber: Subscriber<never>,
    private readonly options: BoundedSinkOptions<E>,
  ) {}

  next(event: E): void {
    if (this.subscriber.closed) return;
    if (!this.full) return void this.give(event);
    const held = (this.held ??= []);
    if (this.options.counts?.() === false) this.free++;
    else if (held.length - this.head - this.free >= this.options.limit) return this.subscriber.error(new WatcherTooSlowError(this.options.limit));
    held.push(event);
  }

  error(error: unknown): void {
    this.ended = { error };
    if (!this.full) this.finish();
  }

  complete(): void {
    this.ended = 'complete';
    if (!this.full) this.finish();
  }

  unsubscribe(): void {
    this.source?.unsubscribe();
    this.cancelDrain?.();
    this.cancelDrain = undefined;
    this.held = undefined;
  }

  /** Writes `event`; false when the consumer is now full (or failed). */
  private give(event: E): boolean {
    let more: boolean;
    try {
      more = this.options.write(event);
    } catch (error) {
      this.subscriber.error(error);
      return false;
    }
    if (!more && !this.subscriber.closed) {
      this.full = true;
      this.cancelDrain = this.options.onDrain(this.drained) ?? undefined;
    }
    return more;
  }

  private onDrained(): void {
    this.cancelDrain = undefined;
    if (this.subscriber.closed) return;
    this.full = false;
    const held = this.held;
    if (held) {
      while (this.head < held.length) {
        const event = held[this.head]!;
        held[this.head++] = undefined as E;
        if (this.free > 0) this.free--;
        if (!this.give(event)) return;
      }
      held.length = 0;
      this.head = 0;
    }
    this.finish();
  }

  private finish(): void {
    if (this.ended === 'complete') this.subscriber.complete();
    else if (this.ended) this.subscriber.error(this.ended.error);
  }
}
