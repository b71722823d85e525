// What a unit of work returns to the work queue, and what the queue reports back.
// After kube-rs's `Action` (requeue / await_change) with an error policy for failures.

/** Success; nothing more to do until the key is added again. The default when work returns nothing. */
export interface AwaitChange<R> {
  readonly type: 'awaitChange';
  readonly value?: R;
}

/** Success; look at the key again `after` milliseconds from the end of this work. */
export interface RequeueAfter<R> {
  readonly type: 'requeueAfter';
  readonly after: number;
  readonly value?: R;
}

/** What one run of a work function decided. A thrown error is the third outcome: see {@link ErrorPolicy}. */
export type Outcome<R = undefined> = AwaitChange<R> | RequeueAfter<R>;

/** An outcome saying: done, wait for the next change. */
export function awaitChange<R = undefined>(value?: R): AwaitChange<R> {
  return value === undefined ? { type: 'awaitChange' } : { type: 'awaitChange', value };
}

/** An outcome saying: done for now, run again `after` ms from now (0: at once). */
export function requeueAfter<R = undefined>(after: number, value?: R): RequeueAfter<R> {
  if (typeof after !== 'number' || Number.isNaN(after) || after < 0) {
    throw new RangeError(`requeueAfter must be a number >= 0, got ${String(after)}`);
  }
  return value === undefined ? { type: 'requeueAfter', after } : { type: 'requeueAfter', after, value };
}

/**
 * An error that retrying cannot fix (invalid spec, forbidden): the default error policy forgets the
 * key instead of retrying it. Throw it, or wrap another error with `new TerminalError(msg, { cause })`.
 */
export class TerminalError extends Error {
  override readonly name = 'TerminalError';
}

/** What to do with a failed run: retry it with back-off, or give up on the key until it changes. */
export type ErrorPolicy<T> = (error: unknown, item: T, attempts: number) => 'retry' | 'terminal';

/** The default policy: a {@link TerminalError} is terminal, anything else is retried. */
export const retryUnlessTerminal: ErrorPolicy<unknown> = (error) => (error instanceof TerminalError ? 'terminal' : 'retry');

interface ResultBase<T> {
  /** The item's key. */
  readonly key: string;
  /** The item this run worked on (the latest one added before it started). */
  readonly item: T;
  /** Runs in a row for this key, counting this one: 1 unless earlier runs failed. */
  readonly attempts: number;
}

/** One finished run, as the work queue emits it. */
export type WorkResult<T, R = undefined> =
  /** Success; the key is forgotten (its back-off reset). */
  | (ResultBase<T> & { readonly type: 'awaitChange'; readonly value: R | undefined })
  /** Success; the key is forgotten and will run again `after` ms after this run ended. */
  | (ResultBase<T> & { readonly type: 'requeueAfter'; readonly value: R | undefined; readonly after: number })
  /** Failure to retry: the key runs again `after` ms after this run ended. */
  | (ResultBase<T> & { readonly type: 'retry'; readonly error: unknown; readonly after: number })
  /** Failure the policy called terminal: the key is forgotten. */
  | (ResultBase<T> & { readonly type: 'terminal'; readonly error: unknown });
