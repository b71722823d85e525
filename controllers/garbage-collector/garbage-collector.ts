import { EMPTY, Subject, filter, finalize, map, mergeMap, type Observable } from 'rxjs';
import { COORDINATION_GROUP, type KubeObject } from '../../src/api/index.js';
import { stripManagedFields, supports, type ApiResource, type Discovery } from '../../src/client/index.js';
import { mergeByKey } from '../../operators/index.js';
import type { ControllerContext } from '../context.js';
import { controller, type ControllerResult } from '../controller.js';
import { collect } from './collect.js';
import { OwnershipGraph } from './graph.js';
import { identityKey, parseIdentityKey } from './identity.js';
import { triggeredBy } from './triggers.js';

export interface GarbageCollectorOptions {
  /** Objects looked at at once (`--concurrent-gc-syncs`, default 20). */
  readonly concurrency: number;
}

// Kubernetes' canonical controller name (`--controllers` also accepts its alias `garbagecollector`).
const NAME = 'garbage-collector-controller';

/** Types whose objects never own anything and come in floods (Kubernetes' collector ignores them too). */
const IGNORED = new Set(['/events', 'events.k8s.io/events']);

/**
 * Types the collector reads through the shared informer of whole objects instead of a
 * metadata-only one of its own: a Lease is little more than its metadata, and the node lifecycle
 * caches every node's Lease whole anyway. Two caches of Leases meant two watches, and every node's
 * renewal (500 a second at 5,000 nodes) framed by the API server and decoded by the manager
 * twice; one shared cache reads it once (docs/benchmarks.md, branch mgrlease).
 */
const READ_WHOLE = new Set([`${COORDINATION_GROUP}/leases`]);

/** What the collector watches: every type it can list, watch and delete. */
export const collectable = (type: ApiResource) => supports(type, 'list', 'watch', 'delete') && !IGNORED.has(`${type.group}/${type.resource}`);

/**
 * The garbage collector: follows `metadata.ownerReferences` across every type the server serves,
 * through metadata-only informers (one per type, shared through the context's factory), and
 * deletes dependents whose owners are gone (Background), deletes the dependents of an owner
 * deleted in the Foreground before letting it go, and orphans the dependents of an owner deleted
 * with Orphan.
 */
export function garbageCollector(ctx: ControllerContext, options: GarbageCollectorOptions): Observable<ControllerResult<unknown>> {
  const graph = new OwnershipGraph();
  const again = new Subject<string>();
  let known: readonly ApiResource[] = [];

  // The term's discovery: read every 30 s and when a CRD or APIService changes, shared with the
  // other loops; it emits when the served types change. A failed read emits nothing: the types
  // watched so far stay watched.
  const types$ = ctx.discovery.discoveries$.pipe(
    map((discovery) => {
      known = keepFailedGroups(discovery, known);
      graph.setTypes(known);
      return known.filter(collectable);
    }),
  );
  const keys$ = types$.pipe(
    mergeByKey(
      (type) => `${type.group}/${type.resource}`,
      (type) => {
        // The graph reads owners, finalizers and deletion state only: managedFields (most of a
        // metadata-only object's bytes) are dropped rather than kept for every object in the cluster.
        // Dependents are found through the informer's own owner index, which a cache of views keeps
        // from the ownerReferences' bytes: a renewal that leaves them alone decodes nothing for it.
        const informer = READ_WHOLE.has(`${type.group}/${type.resource}`)
          ? ctx.informers.informer<KubeObject>(type, { ownerIndex: true })
          : ctx.informers.informer<KubeObject>(type, { metadataOnly: true, transform: stripManagedFields, ownerIndex: true });
        graph.watch(type, informer);
        return informer.events$.pipe(
          map((event) => triggeredBy(event, type, graph)),
          // Most events ask for nothing (every node Lease renewal): those make no inner subscription.
          filter((ids) => ids.length > 0),
          mergeMap((ids) => ids.map(identityKey)),
          finalize(() => graph.unwatch(type)),
        );
      },
    ),
  );

  return controller<unknown>({
    ...ctx.controllerDefaults(NAME),
    name: NAME,
    for: EMPTY,
    watches: [keys$, again],
    concurrency: options.concurrency,
    stop$: ctx.stop$,
    reconcile: (key) => collect({ client: ctx.client, graph, enqueue: (id) => again.next(identityKey(id)) }, parseIdentityKey(key)),
  });
}

/** The discovered types, plus those of group versions that failed this time (they stay watched). */
function keepFailedGroups(discovery: Discovery, previous: readonly ApiResource[]): ApiResource[] {
  if (discovery.failures.length === 0) return [...discovery.resources];
  const failed = new Set(discovery.failures.map((f) => f.groupVersion));
  const gv = (t: ApiResource) => (t.group === '' ? t.version : `${t.group}/${t.version}`);
  return [...discovery.resources, ...previous.filter((t) => failed.has(gv(t)))];
}
