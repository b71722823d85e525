import { map, type Observable } from 'rxjs';
import { isStatusError, type ConfigMap } from '../../src/api/index.js';
import { builtin, type Client } from '../../src/client/index.js';
import type { ControllerContext } from '../context.js';
import { controller, type ControllerResult } from '../controller.js';

/** The ConfigMap every namespace gets: pods' projected service-account volumes read `ca.crt` from it. */
export const ROOT_CA_CONFIGMAP = 'kube-root-ca.crt';
const CA_KEY = 'ca.crt';

export interface RootCaPublisherOptions {
  /** The PEM bundle to publish (`--root-ca-file`, else the CA the manager trusts the API server with). */
  readonly rootCa: string;
  /** Namespaces published at once (default 5). */
  readonly concurrency?: number | undefined;
}

// Kubernetes' canonical controller name (`--controllers` also accepts `root-ca-cert-publisher`).
const NAME = 'root-ca-certificate-publisher-controller';

/**
 * Keeps a `kube-root-ca.crt` ConfigMap holding the cluster's root CA in every namespace that is
 * not terminating: created when missing, its `ca.crt` put back when someone changes it. Triggers:
 * namespaces (a new one needs its copy) and the ConfigMaps of that name (a deleted or edited copy).
 */
export function rootCaPublisher(ctx: ControllerContext, options: RootCaPublisherOptions): Observable<ControllerResult<unknown>> {
  const namespaces = ctx.informers.informer(builtin.namespaces);
  const copies = ctx.informers.informer(builtin.configMaps, { fieldSelector: `metadata.name=${ROOT_CA_CONFIGMAP}` });
  return controller<unknown>({
    ...ctx.controllerDefaults(NAME),
    name: NAME,
    // Informers, so that no namespace is reconciled before both caches are filled (a copy not yet
    // in the cache would be created again: a 409).
    for: namespaces,
    watches: [{ events$: copies.events$.pipe(map((event) => event.object.metadata.namespace ?? '')), synced$: copies.synced$ }],
    // Kubernetes runs one worker; each copy is one round trip, and a burst of new namespaces
    // (1,000 at once) waits on them in turn: a few at once keep it to seconds (docs/benchmarks.md).
    concurrency: options.concurrency ?? 5,
    stop$: ctx.stop$,
    reconcile: async (namespace) => {
      const ns = namespaces.store.get(namespace);
      if (!ns || ns.metadata.deletionTimestamp || ns.status?.phase === 'Terminating') return;
      await publish(ctx.client, namespace, copies.store.get(`${namespace}/${ROOT_CA_CONFIGMAP}`), options.rootCa);
    },
  });
}

async function publish(client: Client, namespace: string, current: ConfigMap | undefined, rootCa: string): Promise<void> {
  if (current?.data?.[CA_KEY] === rootCa) return;
  try {
    if (current) {
      await client.update(builtin.configMaps, { ...current, data: { ...current.data, [CA_KEY]: rootCa } }, { namespace });
    } else {
      await client.create(builtin.configMaps, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: ROOT_CA_CONFIGMAP, namespace }, data: { [CA_KEY]: rootCa } }, { namespace });
    }
  } catch (error) {
    // A namespace going away refuses new objects (NamespaceLifecycle's Forbidden): nothing to publish there.
    if (isStatusError(error) && error.reason === 'Forbidden' && /being terminated|not found/.test(error.message)) return;
    throw error;
  }
}
