import { from, Observable, type ObservableInput, type OperatorFunction, type Subscription } from 'rxjs';
import { subscribeSource } from './subscribeSource.js';
import { requireFunction } from './validate.js';

/**
 * Follows a changing set: each source value is the whole set now, and every member's projected
 * stream runs while the member is in the set; their values are merged.
 *
 * Like `switchMap(set => merge(...set.map(project)))`, but a member that stays in the set keeps its
 * one subscription (it is not restarted at each new set): only new keys are projected and
 * subscribed, and keys that left the set are unsubscribed — what following the resource types a
 * discovery finds needs (a watch per type, opened when the type appears, closed when it goes).
 * Members are told apart by `key`; a member whose stream completes stays done until its key leaves
 * a set and comes back. The output completes when the source and every running stream have
 * completed; any error is passed on at once and unsubscribes everything.
 *
 * ```
 * source:  a-----b-----c--|      a = [x, y], b = [y, z], c = [z]; x = 1-1-…, y = -2-2…, z = 3--…
 * mergeByKey((m) => m, (m) => streams[m])
 * result:  12-1-2(3)2-3--3-|     x runs 0–5, y 0–11, z from 6 on (z completes at 15)
 * ```
 *
 * @example
 * import { interval, map, of } from 'rxjs';
 * import { mergeByKey } from 'svc/operators';
 * of(['pods', 'secrets'], ['secrets'])
 *   .pipe(mergeByKey((type) => type, (type) => interval(1000).pipe(map(() => type))))
 *   .subscribe(console.log); // "secrets" every second; "pods" never (it left at once)
 *
 * @see concurrency — a bounded merge of tasks
 * @param key Tells members apart (the same key: the same member). Required.
 * @param project The stream of one member, subscribed when its key enters the set. Required.
 */
export function mergeByKey<T, R>(key: (member: T) => string, project: (member: T, key: string) => ObservableInput<R>): OperatorFunction<Iterable<T>, R> {
  requireFunction('key', key);
  requireFunction('project', project);
  return (source) =>
    new Observable<R>((subscriber) => {
      // key → its running subscription, or null once its stream completed.
      const running = new Map<string, Subscription | null>();
      let sourceDone = false;
      const maybeComplete = () => {
        if (sourceDone && [...running.values()].every((s) => s === null)) subscriber.complete();
      };
      subscribeSource(source, subscriber, {
        next(members) {
          const now = new Map<string, T>();
          for (const member of members) now.set(key(member), member);
          for (const [k, inner] of running) {
            if (now.has(k)) continue;
            running.delete(k);
            inner?.unsubscribe();
          }
          for (const [k, member] of now) {
            if (running.has(k)) continue;
            running.set(k, null);
            const inner = from(project(member, k)).subscribe({
              next: (value) => subscriber.next(value),
              error: (error: unknown) => subscriber.error(error),
              complete: () => {
                if (running.get(k) === undefined) return;
                running.set(k, null);
                maybeComplete();
              },
            });
            // A stream that completed synchronously has set its entry to null already.
            if (!inner.closed && running.has(k)) running.set(k, inner);
            subscriber.add(inner);
          }
          maybeComplete();
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => {
          sourceDone = true;
          maybeComplete();
        },
      });
    });
}
