import { Observable, type OperatorFunction } from 'rxjs';
import { keyOf, objectsOf, type KeySource } from './objectShapes.js';
import { subscribeSource } from './subscribeSource.js';

/**
 * Maps each object or event to its object's key, `namespace/name` (`name` when cluster-scoped).
 *
 * Like `map(o => \`${o.metadata.namespace}/${o.metadata.name}\`)`, but it accepts what informers
 * and watches emit — an object or a change event `{ type, object, old? }` (the key of `object`)
 * — and it skips items whose object has no name instead of emitting
 * `"undefined"`: client-go's `MetaNamespaceKeyFunc`.
 *
 * ```
 * source:   a-b-c-|      a = {ns: default, name: web}, b = {name: node-1}, c = {no name}
 * toKey()
 * result:   x-y---|      x = 'default/web', y = 'node-1'
 * ```
 *
 * @example
 * import { of } from 'rxjs';
 * import { toKey } from 'svc/operators';
 * of({ metadata: { namespace: 'default', name: 'web' } }).pipe(toKey()).subscribe(console.log);
 * // default/web
 *
 * @see toOwnerKey — the key of the object's controller instead
 * @see workqueue — which takes these keys
 */
export function toKey<T extends KeySource>(): OperatorFunction<T, string> {
  return (source) =>
    new Observable<string>((subscriber) => {
      subscribeSource(source, subscriber, {
        next(item) {
          const objects = objectsOf(item);
          const key = objects.length === 0 ? undefined : keyOf(objects[0]!.metadata);
          if (key !== undefined) subscriber.next(key);
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
    });
}
