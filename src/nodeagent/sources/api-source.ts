import { Observable } from 'rxjs';
import type { Pod } from '../../api/index.js';
import { builtin, stripManagedFields, type Informer, type InformerFactory } from '../../client/index.js';
import { isMirrorPod, type SourceEvent } from './pod-update.js';

/**
 * The informer of the pods bound to `nodeName`; shared through the factory with the mirror pod
 * controller. Its pods are decoded whole when they arrive (`decode: 'eager'`), without their
 * managedFields, and filed by namespace and labels only: the agent reads every field of every pod
 * it runs (the sources compare versions whole, a sync reads the spec), never its managedFields
 * nor its owners. Views over the message bytes (the default for built-in kinds) saved nothing
 * here: each pod was decoded whole at its first change anyway, and then held twice — its bytes
 * and its decoded fields — with the managedFields' JSON decoded into objects
 * (docs/benchmarks.md, branch hollowmem).
 */
export function nodePodsInformer(informers: InformerFactory, nodeName: string): Informer<Pod> {
  return informers.informer(builtin.pods, { fieldSelector: `spec.nodeName=${nodeName}`, decode: 'eager', transform: stripManagedFields, ownerIndex: false });
}

/**
 * The API server source: the pods whose `spec.nodeName` is this node, through a (shared) informer.
 * Emits one snapshot when the informer has synced, then a delta per change: `set` for an added or
 * changed pod (a deletionTimestamp appearing is a change), `remove` when the object is gone
 * (including a tombstone after a relist). Mirror pods are left out: they stand for static pods the
 * file and URL sources already give, and are never run.
 */
export function apiSource(options: { readonly informers: InformerFactory; readonly nodeName: string }): Observable<SourceEvent> {
  return new Observable<SourceEvent>((subscriber) => {
    const informer = nodePodsInformer(options.informers, options.nodeName);
    let synced = false;
    // synced$ first: when the informer is already synced, the snapshot comes before events$ replays
    // the cache as `added` (those repeat what the snapshot said; the merge ignores them).
    const syncing = informer.synced$.subscribe((done) => {
      if (!done || synced) return;
      synced = true;
      subscriber.next({ kind: 'snapshot', source: 'api', pods: informer.store.list().filter((pod) => !isMirrorPod(pod)) });
    });
    const changes = informer.events$.subscribe({
      next: (event) => {
        if (!synced || isMirrorPod(event.object)) return;
        subscriber.next({ kind: 'delta', source: 'api', op: event.type === 'deleted' ? 'remove' : 'set', pod: event.object });
      },
      error: (error: unknown) => subscriber.error(error),
    });
    return () => {
      syncing.unsubscribe();
      changes.unsubscribe();
    };
  });
}
