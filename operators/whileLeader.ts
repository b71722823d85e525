import { Observable, type MonoTypeOperatorFunction, type Subscriber } from 'rxjs';
import { subscribeSource } from './subscribeSource.js';

/**
 * Runs the source only while `leader$` says this process leads: subscribes it when `leader$` turns
 * `true` and unsubscribes it when `leader$` turns `false`.
 *
 * Like `leader$.pipe(distinctUntilChanged(), switchMap((leads) => (leads ? source : EMPTY)))`, but
 * the output completes as soon as `leader$` completes (stopping the source: without elections
 * nobody can say this process still leads). Each term of leadership subscribes the source afresh;
 * a source that completes during a term is not restarted until the next term. An error of either
 * is passed on at once.
 *
 * ```
 * leader$:  f--t-----f---t---|     t = true, f = false
 * source:   a-b-c-d-e-f-g-h-i-j   (hot)
 * whileLeader(leader$)
 * result:   ----c-d-e-----h-i|    subscribed 3–9 and 13–17
 * ```
 *
 * @example
 * import { interval } from 'rxjs';
 * import { Client, builtin } from 'svc/client';
 * import { leaderElection, whileLeader } from 'svc/operators';
 * const client = await Client.fromSvcconfig('admin.svcconfig');
 * const leader$ = leaderElection({ client, resource: builtin.leases, lease: { namespace: 'default', name: 'demo' }, identity: `${process.pid}` });
 * interval(1000).pipe(whileLeader(leader$)).subscribe((n) => console.log('leading, tick', n));
 *
 * @see leaderElection — the `leader$` this is made for
 */
export function whileLeader<T>(leader$: Observable<boolean>): MonoTypeOperatorFunction<T> {
  return (source) =>
    new Observable<T>((subscriber) => {
      let leading = false;
      let term: Subscriber<T> | null = null;
      const stop = (): void => {
        term?.unsubscribe();
        term = null;
      };
      subscribeSource(leader$, subscriber, {
        next(leads) {
          if (leads === leading) return;
          leading = leads;
          if (!leads) return stop();
          term = subscribeSource(source, subscriber, {
            next: (value) => subscriber.next(value),
            error: (error: unknown) => subscriber.error(error),
            complete: () => undefined,
          });
        },
        error: (error: unknown) => subscriber.error(error),
        complete() {
          stop();
          subscriber.complete();
        },
      });
    });
}
