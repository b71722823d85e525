import type { Observable } from 'rxjs';
import { rfc3339, NAMESPACE_FINALIZER, type Namespace } from '../../src/api/index.js';
import { builtin, type Client, type Discovery, type DiscoveryCache, type InformerEvent } from '../../src/client/index.js';
import { requeueAfter, resync, type Outcome } from '../../operators/index.js';
import type { ControllerContext } from '../context.js';
import { controller, type ControllerResult } from '../controller.js';
import { deleteAllContent } from './content.js';
import { deletionConditions, mergeConditions, type NamespaceCondition } from './conditions.js';


export interface NamespaceControllerOptions {
  /** Namespaces cleaned at once (`--concurrent-namespace-syncs`, default 10). */
  readonly concurrency: number;
  /** Every namespace is looked at again after this (`--namespace-sync-period`, default 5 min); 0: never. */
  readonly resyncPeriodMs: number;
  /**
   * How soon a namespace whose content is still going (finalizers, pods in their grace period)
   * is looked at again, at least. Default 5 s.
   */
  readonly contentRecheckMs?: number;
}

// Kubernetes' canonical controller name (`--controllers` also accepts its alias `namespace`).
const NAME = 'namespace-controller';

/**
 * The namespace controller: empties a Terminating namespace of every namespaced type the server
 * serves (discovered at each sync, so custom types count), reports how it goes in the status
 * conditions, and removes the `kubernetes` finalizer once nothing is left, so that the namespace
 * goes.
 */
export function namespaceController(ctx: ControllerContext, options: NamespaceControllerOptions): Observable<ControllerResult<unknown>> {
  const namespaces = ctx.informers.informer(builtin.namespaces);
  const events = namespaces.events$;
  const recheckMs = options.contentRecheckMs ?? 5_000;
  return controller<unknown>({
    ...ctx.controllerDefaults(NAME),
    name: NAME,
    for: { events$: options.resyncPeriodMs > 0 ? events.pipe(resync({ period: options.resyncPeriodMs, isDelete: isDeleted })) : events, synced$: namespaces.synced$ },
    concurrency: options.concurrency,
    stop$: ctx.stop$,
    reconcile: (key) => {
      const ns = namespaces.store.get(key);
      return ns ? syncNamespace(ctx.client, ctx.discovery, ns, recheckMs) : undefined;
    },
  });
}

const isDeleted = (event: InformerEvent<Namespace>) => event.type === 'deleted';

async function syncNamespace(client: Client, discoveryCache: DiscoveryCache, ns: Namespace, recheckMs: number): Promise<Outcome<unknown> | void> {
  if (!ns.metadata.deletionTimestamp) return;
  if (!(ns.spec?.finalizers ?? []).includes(NAMESPACE_FINALIZER)) return;
  const name = ns.metadata.name!;

  let discovery: Discovery;
  try {
    // Read for this sync (as upstream's deleter reads discovery each time: a type added just
    // before the deletion is emptied too); namespaces deleted together share the read.
    discovery = await discoveryCache.fresh();
  } catch (error) {
    const failure = deletionConditions({ discoveryFailures: [messageOf(error)], contentFailures: [], remaining: new Map(), finalizers: new Map() })[0]!;
    await writeConditions(client, ns, [failure]);
    throw error;
  }
  const content = await deleteAllContent(client, name, discovery.resources);
  const discoveryFailures = discovery.failures.map((f) => `${f.groupVersion}: ${messageOf(f.error)}`);
  const latest = await writeConditions(client, ns, deletionConditions({ discoveryFailures, contentFailures: content.failures, remaining: content.remaining, finalizers: content.finalizers }));

  if (discoveryFailures.length > 0 || content.failures.length > 0) {
    // Retried with back-off: what failed may come back (a group's server, a webhook).
    throw new Error(`namespace ${name} not emptied: ${[...discoveryFailures, ...content.failures].join('; ')}`);
  }
  if (content.remaining.size > 0) return requeueAfter(Math.max(recheckMs, content.estimateSeconds * 1000));

  const finalizers = (latest.spec?.finalizers ?? []).filter((f) => f !== NAMESPACE_FINALIZER);
  await client.finalize(builtin.namespaces, { ...latest, spec: { ...latest.spec, finalizers } });
}

/** Writes the deletion conditions when they differ from the namespace's; answers the namespace as it now is. */
async function writeConditions(client: Client, ns: Namespace, wanted: NamespaceCondition[]): Promise<Namespace> {
  const merged = mergeConditions(ns.status?.conditions ?? [], wanted, rfc3339());
  if (!merged) return ns;
  return client.updateStatus(builtin.namespaces, { ...ns, status: { ...ns.status, conditions: merged } });
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));
