import { Observable, isObservable } from 'rxjs';
import type { KubeObject } from '../src/api/index.js';
import type { InformerEvent } from '../src/client/index.js';
import type { SyncedSource } from './controller.js';
import { controllerOf, groupOfApiVersion } from './controller-ref.js';
import type { Expectations } from './expectations.js';

/** The owner type whose expectations an owned type's events settle. */
export interface ObservedOwner {
  /** The owner's API group (`''` for core). */
  readonly group: string;
  readonly kind: string;
}

/**
 * Reports an owned type's events to `expectations`, under the key of each object's controller of
 * the owner's group and kind (`namespace/name`, the controller's key): an object added is a
 * creation observed; one deleted, or marked for deletion (`deletionTimestamp` set), a deletion
 * observed (upstream's ReplicaSet controller counts a pod as gone from the moment its deletion
 * begins). Objects with another controller, or none, are not reported.
 *
 * Emits the owner's key after each observation: give the result to `controller({ watches })`,
 * so that a reconcile that found its expectations unsatisfied runs again once they are observed,
 * whatever the order in which the controller's other triggers saw the same event. An informer
 * (or `SyncedSource`) gives a `SyncedSource` back, waited for like the informer itself.
 *
 * @example
 * const expectations = new Expectations();
 * controller({
 *   name: 'widgets', for: widgets,
 *   owns: [{ events: configMaps, group: 'example.com', kind: 'Widget' }],
 *   watches: [observeOwned(expectations, configMaps, { group: 'example.com', kind: 'Widget' })],
 *   reconcile: async (key) => {
 *     if (!expectations.satisfied(key)) return;     // the cache is behind our own writes
 *     ...
 *     expectations.expectCreations(key, missing);
 *     for (...) await client.create(...).catch((error) => { expectations.creationObserved(key); throw error; });
 *   },
 * });
 */
export function observeOwned<T extends KubeObject>(expectations: Expectations, source: SyncedSource<InformerEvent<T>>, owner: ObservedOwner): SyncedSource<string>;
export function observeOwned<T extends KubeObject>(expectations: Expectations, source: Observable<InformerEvent<T>>, owner: ObservedOwner): Observable<string>;
export function observeOwned<T extends KubeObject>(
  expectations: Expectations,
  source: Observable<InformerEvent<T>> | SyncedSource<InformerEvent<T>>,
  owner: ObservedOwner,
): Observable<string> | SyncedSource<string> {
  const events = isObservable(source) ? source : source.events$;
  const keys = new Observable<string>((subscriber) =>
    events.subscribe({
      next: (event) => {
        const key = ownerKey(event.object, owner);
        if (key === undefined) return;
        const uid = event.object.metadata.uid ?? '';
        switch (event.type) {
          case 'added':
            if (event.object.metadata.deletionTimestamp !== undefined) expectations.deletionObserved(key, uid);
            else expectations.creationObserved(key);
            break;
          case 'updated':
            if (event.old.metadata.deletionTimestamp !== undefined || event.object.metadata.deletionTimestamp === undefined) return;
            expectations.deletionObserved(key, uid);
            break;
          case 'deleted':
            expectations.deletionObserved(key, uid);
            break;
          case 'resync':
            return;
        }
        subscriber.next(key);
      },
      error: (error: unknown) => subscriber.error(error),
      complete: () => subscriber.complete(),
    }),
  );
  return isObservable(source) ? keys : { events$: keys, synced$: source.synced$ };
}

function ownerKey(object: KubeObject, owner: ObservedOwner): string | undefined {
  const reference = controllerOf(object);
  if (reference === undefined || reference.kind !== owner.kind || groupOfApiVersion(reference.apiVersion) !== owner.group) return undefined;
  const namespace = object.metadata.namespace;
  return namespace ? `${namespace}/${reference.name}` : reference.name;
}
