import { filter, map } from 'rxjs';
import type { KubeObject } from '../src/api/index.js';
import type { Informer } from '../src/client/index.js';
import type { SyncedSource } from './controller.js';

/**
 * An informer a controller reads but is not triggered by, as a `watches` source: subscribing it
 * starts the informer, and the controller waits for its cache like any other; its events name no
 * key. (A claim a StatefulSet member needs must be in the cache before the member is made.)
 */
export const cacheOnly = <T extends KubeObject>(informer: Informer<T>): SyncedSource<string> => ({
  events$: informer.events$.pipe(
    filter(() => false),
    map(() => ''),
  ),
  synced$: informer.synced$,
});
