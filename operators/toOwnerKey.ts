import { Observable, type OperatorFunction } from 'rxjs';
import { keyOf, objectsOf, type KeySource, type ObjectLike } from './objectShapes.js';
import { subscribeSource } from './subscribeSource.js';

/**
 * Maps each object or event to the key of the object's controller of the given kind: the
 * `metadata.ownerReferences` entry with `controller: true` and that `kind` (and, when `group` is
 * given, that API group: the part of its `apiVersion` before the `/`, `''` for core), in the
 * object's namespace. Pass the group: two kinds of one name in different groups (a `Widget` of
 * `example.com` and one of `other.io`) are told apart only by it.
 *
 * Like `map(o => ownerKey(o))`, but it follows controller-runtime's `EnqueueRequestForOwner` with
 * `OnlyControllerOwner`: objects without such an owner emit nothing, and an update event
 * `{ type, old, object }` whose controller changed emits the key of the new owner and then of the
 * old one, so that both reconcile. Accepts objects and change events (informer and watch events).
 *
 * ```
 * source:   a-b-c-|      a = pod owned by rs web, b = pod without owner, c = update moving rs web→api
 * toOwnerKey('ReplicaSet')
 * result:   x---(yx)|    x = 'default/web', y = 'default/api'
 * ```
 *
 * @example
 * import { of } from 'rxjs';
 * import { toOwnerKey } from 'svc/operators';
 * const pod = {
 *   metadata: { namespace: 'default', name: 'web-x7k2p',
 *     ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web', uid: 'u1', controller: true }] },
 * };
 * of(pod).pipe(toOwnerKey('ReplicaSet')).subscribe(console.log); // default/web
 *
 * @see toKey — the object's own key
 * @param kind The owner's kind, e.g. `'ReplicaSet'`. Required.
 * @param group The owner's API group, e.g. `'apps'` (`''` for core). Omitted: any group.
 */
export function toOwnerKey<T extends KeySource>(kind: string, group?: string): OperatorFunction<T, string> {
  if (typeof kind !== 'string' || kind === '') throw new TypeError(`kind must be a non-empty string, got ${String(kind)}`);
  const inGroup = (apiVersion: string | undefined): boolean => {
    if (group === undefined) return true;
    if (apiVersion === undefined) return false;
    const slash = apiVersion.indexOf('/');
    return (slash < 0 ? '' : apiVersion.slice(0, slash)) === group;
  };
  const ownerKey = (object: ObjectLike): string | undefined => {
    const meta = object.metadata;
    const references = meta?.ownerReferences;
    if (references === undefined) return undefined;
    for (const reference of references) {
      if (reference.controller === true && reference.kind === kind && inGroup(reference.apiVersion)) {
        return keyOf({ name: reference.name, namespace: meta?.namespace });
      }
    }
    return undefined;
  };
  return (source) =>
    new Observable<string>((subscriber) => {
      subscribeSource(source, subscriber, {
        next(item) {
          const objects = objectsOf(item);
          const first = objects.length === 0 ? undefined : ownerKey(objects[0]!);
          if (first !== undefined) subscriber.next(first);
          if (objects.length > 1) {
            const second = ownerKey(objects[1]!);
            if (second !== undefined && second !== first) subscriber.next(second);
          }
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
    });
}
