import { CORE_GROUP, LEGACY_TOKEN_LAST_USED_LABEL, type ResourceRegistry } from '../../api/index.js';
import type { Store } from '../../storage/index.js';
import { objectKey } from '../object-keys.js';
import type { ObjectReader } from '../object-reader.js';
import { encodeForStorage } from '../storage-codec.js';
import type { LegacyTokenUse } from './service-account-tokens.js';

/** Today as the label holds it: `YYYY-MM-DD`, UTC. */
export const labelDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/**
 * Records the day a legacy token was used on its secret (`kubernetes.io/legacy-token-last-used`),
 * as Kubernetes' API server does: at most one write per secret per day, after the request was let
 * in and without it waiting (best effort: a failed write is tried again at the next use). The
 * legacy token cleaner reads the label to find tokens nobody uses.
 */
export function legacyTokenUseRecorder(store: Store, registry: ResourceRegistry, reader: ObjectReader, now: () => number = Date.now): LegacyTokenUse {
  const type = registry.byKind(CORE_GROUP, 'Secret');
  const writing = new Set<string>();
  return (namespace, name, lastUsed) => {
    const today = labelDay(now());
    const key = `${namespace}/${name}`;
    if (!type || lastUsed === today || writing.has(key)) return;
    writing.add(key);
    void (async () => {
      const secret = await reader.get(type, namespace, name);
      if (!secret || secret.metadata.labels?.[LEGACY_TOKEN_LAST_USED_LABEL] === today) return;
      const next = { ...secret, metadata: { ...secret.metadata, labels: { ...secret.metadata.labels, [LEGACY_TOKEN_LAST_USED_LABEL]: today } } };
      // At the version read: a secret changed meanwhile is left as it is, and the next use tries again.
      await store.update(objectKey(store, type, namespace, name), encodeForStorage(next, type), Number(secret.metadata.resourceVersion));
    })()
      .catch(() => undefined)
      .finally(() => writing.delete(key));
  };
}
