import { defer, mergeMap, type ObservableInput, type OperatorFunction } from 'rxjs';
import { requireCount } from './validate.js';

/** A unit of work for {@link concurrency}: an observable input, or a function that starts one. */
export type Task<T> = ObservableInput<T> | (() => ObservableInput<T>);

/**
 * Runs the tasks of a source at most `n` at a time, starting each when a slot frees, in arrival
 * order; emits their values as they come.
 *
 * Like `mergeAll(n)`, but a task may also be a function that starts the work (`() => fetch(...)`),
 * called only when a slot is free — a promise passed as such is already running, so the limit
 * could not hold for it. Tasks that wait are buffered without bound. The output completes when the
 * source and every task have completed; any error is passed on at once and unsubscribes the rest.
 *
 * ```
 * source:    a-bc-----|         a = ----1|, b = ----2|, c = --3|
 * concurrency(2)
 * result:    ----1-23-|         c waits until a ends (frame 5)
 * ```
 *
 * @example
 * import { from } from 'rxjs';
 * import { concurrency } from 'svc/operators';
 * const names = ['a', 'b', 'c', 'd'];
 * from(names.map((name) => () => fetch(`https://example.com/${name}`))).pipe(concurrency(2))
 *   .subscribe((response) => console.log(response.status));
 *
 * @see workqueue — keyed concurrency with coalescing, retries and back-off
 * @param n Tasks running at once: an integer >= 1, or Infinity. Default: 1.
 */
export function concurrency<T>(n = 1): OperatorFunction<Task<T>, T> {
  const limit = requireCount('concurrency', n, true);
  return mergeMap((task: Task<T>) => (typeof task === 'function' ? defer(task) : task), limit);
}
