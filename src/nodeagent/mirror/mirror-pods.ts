import { defer, EMPTY, filter, map, merge, mergeMap, type Observable } from 'rxjs';
import { isStatusError, type Pod } from '../../api/index.js';
import { builtin, type Client, type InformerFactory } from '../../client/index.js';
import { awaitChange, workqueue, type BackoffOptions, type WorkResult } from '../../../operators/index.js';
import { isMirrorPod, nodePodsInformer, podFullName, type PodUpdate, type SourcesReadiness } from '../sources/index.js';
import { isCurrentMirrorOf, mirrorPodOf } from './mirror-pod.js';

export interface MirrorPodsOptions {
  readonly client: Client;
  /** Shared with the API source: one watch of this node's pods serves both. */
  readonly informers: InformerFactory;
  readonly nodeName: string;
  /** The merged pod updates ({@link podSources}); only the static ones (`file`, `http`) are read. */
  readonly updates: Observable<PodUpdate>;
  /**
   * The pod sources' readiness: a mirror without a static pod is deleted only once every static
   * source has delivered its first set (before that, its static pod may just not be read yet).
   * Without it, orphaned mirrors are deleted at once.
   */
  readonly readiness?: SourcesReadiness | undefined;
  /** Mirrors synced at once. Default 2. */
  readonly concurrency?: number | undefined;
  /** Back-off of failed syncs (the Node not registered yet, the API server away). Default: the work queue's. */
  readonly backoff?: BackoffOptions | undefined;
}

/**
 * Keeps one mirror pod in the API server for each static pod, as a controller: keys
 * (`namespace/name`) come from static pod updates and from changes of this node's pods, and the
 * work queue syncs each key — never two syncs of one key at once, failures retried with back-off.
 * A sync makes the API server match the static pod:
 *
 * | static pod | pod of that name in the API server | action |
 * | --- | --- | --- |
 * | present | none | create the mirror |
 * | present | mirror with its hash | nothing |
 * | present | mirror with another hash, or being deleted (a user's `kubectl delete`) | delete it now (grace 0, UID precondition), create anew |
 * | present | not a mirror | nothing: a user's pod is never touched (the static pod still runs) |
 * | absent | mirror | delete it (once the static sources are seen) |
 *
 * Emits one {@link WorkResult} per sync; subscribe to run it (standalone mode has no mirrors).
 */
export function mirrorPods(options: MirrorPodsOptions): Observable<WorkResult<string>> {
  return defer(() => {
    const { client, nodeName, readiness } = options;
    const informer = nodePodsInformer(options.informers, nodeName);
    const statics = new Map<string, Pod>();
    const staticSources = readiness?.expected.filter((source) => source !== 'api') ?? [];
    const staticsSeen = () => staticSources.every((source) => readiness!.hasSeen(source));

    const fromStatics = options.updates.pipe(
      filter((update) => update.source !== 'api'),
      map((update) => {
        const key = podFullName(update.pod);
        if (update.type !== 'REMOVE') statics.set(key, update.pod);
        // A changed manifest REMOVEs its old UID after ADDing the new one under the same name: keep the new.
        else if (statics.get(key)?.metadata.uid === update.pod.metadata.uid) statics.delete(key);
        return key;
      }),
    );
    const fromPods = informer.events$.pipe(
      filter((event) => isMirrorPod(event.object) || statics.has(podFullName(event.object))),
      map((event) => podFullName(event.object)),
    );
    // When the static sources become seen, look again at the mirrors that were left waiting.
    const onReady = readiness
      ? readiness.ready$.pipe(
          filter(Boolean),
          mergeMap(() => informer.store.list().filter(isMirrorPod).map(podFullName)),
        )
      : EMPTY;

    const sync = async (key: string) => {
      await informer.waitForSync();
      const staticPod = statics.get(key);
      const existing = informer.store.get(key);
      if (staticPod === undefined) {
        if (existing === undefined || !isMirrorPod(existing)) return awaitChange();
        if (readiness && !staticsSeen()) return awaitChange(); // re-queued by onReady
        await deleteNow(existing);
        return awaitChange();
      }
      if (existing !== undefined) {
        if (!isMirrorPod(existing)) return awaitChange();
        if (isCurrentMirrorOf(existing, staticPod)) return awaitChange();
        await deleteNow(existing);
      }
      const node = await client.get(builtin.nodes, nodeName);
      await client.create(builtin.pods, mirrorPodOf(staticPod, node), { namespace: staticPod.metadata.namespace });
      return awaitChange();
    };

    const deleteNow = async (mirror: Pod) => {
      try {
        await client.delete(builtin.pods, mirror.metadata.name!, {
          namespace: mirror.metadata.namespace,
          gracePeriodSeconds: 0,
          preconditions: { uid: mirror.metadata.uid! },
        });
      } catch (error) {
        if (!isStatusError(error, 'NotFound')) throw error;
      }
    };

    return merge(fromStatics, fromPods, onReady).pipe(
      workqueue<string>({ work: sync, concurrency: options.concurrency ?? 2, ...(options.backoff ? { backoff: options.backoff } : {}) }),
    );
  });
}
