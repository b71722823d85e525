import type { ConfigMap, Secret, Service } from '../../api/index.js';
import type { PodObjectReader } from './object-reader.js';

/** Entries kept before the expired ones are swept (a node's pods name a handful of objects). */
const SWEEP_ABOVE = 1_000;

interface Entry<T> {
  readonly at: number;
  readonly value: Promise<T>;
}

/**
 * The kubelet's `Cache` change-detection strategy for the ConfigMaps and Secrets of a node's pods:
 * a read within `ttlMs()` of the last read of the same object reuses it, so a pod sync (every
 * `--sync-frequency` for every pod) does not read `kube-root-ca.crt` from the API server again
 * and again. The TTL is the one the ttl controller puts on the Node
 * (`node.alpha.kubernetes.io/ttl`, `nodeObjectTtlMs`): 0 in clusters of up to 100 nodes (every
 * read goes to the server, as before), up to 5 min in the largest, so a changed ConfigMap reaches
 * a volume within the TTL and a sync, as upstream documents. A failed read is not kept.
 * The Services of a namespace (service-link env, listed twice per container start: the pod's
 * namespace and `default`) are kept the same way, where the kubelet reads them from an informer.
 * Tokens and claims are read through as before.
 */
export function cachingObjectReader(inner: PodObjectReader, ttlMs: () => number, now: () => number = Date.now): PodObjectReader {
  const cached = <T>(entries: Map<string, Entry<T>>, read: (namespace: string, name: string) => Promise<T>) => {
    return (namespace: string, name: string): Promise<T> => {
      const ttl = ttlMs();
      if (ttl <= 0) return read(namespace, name);
      const key = `${namespace}/${name}`;
      const at = now();
      const hit = entries.get(key);
      if (hit && at - hit.at < ttl) return hit.value;
      if (entries.size > SWEEP_ABOVE) for (const [k, e] of entries) if (at - e.at >= ttl) entries.delete(k);
      const value = read(namespace, name);
      const entry = { at, value };
      entries.set(key, entry);
      value.catch(() => entries.get(key) === entry && entries.delete(key));
      return value;
    };
  };
  const services = inner.services?.bind(inner);
  const listServices = services && cached(new Map<string, Entry<readonly Service[]>>(), (namespace) => services(namespace));
  return {
    ...inner,
    configMap: cached(new Map<string, Entry<ConfigMap | undefined>>(), (namespace, name) => inner.configMap(namespace, name)),
    secret: cached(new Map<string, Entry<Secret | undefined>>(), (namespace, name) => inner.secret(namespace, name)),
    ...(listServices ? { services: (namespace: string) => listServices(namespace, '') } : {}),
  };
}
