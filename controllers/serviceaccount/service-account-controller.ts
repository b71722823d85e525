import { filter, map, type Observable } from 'rxjs';
import { isStatusError } from '../../src/api/index.js';
import { builtin } from '../../src/client/index.js';
import type { ControllerContext } from '../context.js';
import { controller, type ControllerResult } from '../controller.js';

/** The account every namespace gets; pods that name none run as it. */
export const DEFAULT_SERVICE_ACCOUNT = 'default';

export interface ServiceAccountControllerOptions {
  /** Accounts every active namespace must have (kube: `default` only). */
  readonly accounts?: readonly string[] | undefined;
  /** Namespaces reconciled at once (default 5). */
  readonly concurrency?: number | undefined;
}

// Kubernetes' canonical controller name (`--controllers` also accepts `serviceaccount`).
const NAME = 'serviceaccount-controller';

/**
 * Keeps the `default` ServiceAccount in every namespace that is not terminating: created when a
 * namespace appears, created again when someone deletes it. The API server does not make it: a
 * pod created in a namespace before this loop has run there is refused (403, the account is not
 * found), as in Kubernetes. Triggers: namespaces, and the accounts of that name (a deletion).
 */
export function serviceAccountController(ctx: ControllerContext, options: ServiceAccountControllerOptions = {}): Observable<ControllerResult<unknown>> {
  const wanted = options.accounts ?? [DEFAULT_SERVICE_ACCOUNT];
  const namespaces = ctx.informers.informer(builtin.namespaces);
  const accounts = ctx.informers.informer(builtin.serviceAccounts);
  return controller<unknown>({
    ...ctx.controllerDefaults(NAME),
    name: NAME,
    // Both are informers, so nothing is reconciled before both caches are filled (an account not
    // yet in the cache would be created again: a 409).
    for: namespaces,
    watches: [
      {
        events$: accounts.events$.pipe(
          // Only a deletion can take away what this loop keeps; an added or changed account needs nothing.
          filter((event) => event.type === 'deleted' && wanted.includes(event.object.metadata.name ?? '')),
          map((event) => event.object.metadata.namespace ?? ''),
        ),
        synced$: accounts.synced$,
      },
    ],
    // Kubernetes runs one worker; each account is one round trip, and a burst of new namespaces
    // (1,000 at once) waits on them in turn: a few at once keep it to seconds (docs/benchmarks.md).
    concurrency: options.concurrency ?? 5,
    reconcile: async (namespace) => {
      const ns = namespaces.store.get(namespace);
      if (!ns || ns.metadata.deletionTimestamp || ns.status?.phase === 'Terminating') return;
      for (const name of wanted) {
        if (accounts.store.get(`${namespace}/${name}`)) continue;
        try {
          await ctx.client.create(builtin.serviceAccounts, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace } }, { namespace });
        } catch (error) {
          // Made meanwhile (the cache is behind): nothing to do. A namespace going away refuses
          // new objects (NamespaceLifecycle's Forbidden): nothing to keep there.
          if (isStatusError(error) && (error.code === 409 || (error.reason === 'Forbidden' && /being terminated|not found/.test(error.message)))) continue;
          throw error;
        }
      }
    },
  });
}
