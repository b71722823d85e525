import { Subscriber, type Observable, type Observer } from 'rxjs';

/**
 * Subscribes an operator's one inner subscriber to its source, chained to the downstream
 * subscriber: when `destination` unsubscribes, the source stops at once, even in the middle of a
 * synchronous emission (`range(0, 1e9).pipe(op, take(1))` ends after one item).
 * RxJS does the same with its internal `createOperatorSubscriber`.
 */
export function subscribeSource<T>(source: Observable<T>, destination: Subscriber<unknown>, observer: Observer<T>): Subscriber<T> {
  // The Subscriber constructor is marked "internal" in rxjs 7 but is the supported way to get a
  // subscriber that is itself a Subscription; it calls the observer's methods and closes itself.
  const inner = new Subscriber<T>(observer);
  destination.add(inner);
  source.subscribe(inner);
  return inner;
}
