import { isStatusError, type KubeObject } from '../../src/api/index.js';
import { supports, type ApiResource, type Client } from '../../src/client/index.js';

/** What deleting one namespace's content found, to report and to decide what comes next. */
export interface ContentResult {
  /** `resource.group: message` per type whose deletion failed. */
  readonly failures: string[];
  /** Objects still present per `resource.group`. */
  readonly remaining: Map<string, number>;
  /** Objects still held per finalizer. */
  readonly finalizers: Map<string, number>;
  /** Longest wait, in seconds, of a pod still in its grace period (0 when none). */
  estimateSeconds: number;
}

export const groupResource = (type: ApiResource) => `${type.resource}.${type.group}`;

const isPods = (type: ApiResource) => type.group === '' && type.resource === 'pods';

/**
 * Deletes every object of every namespaced type in `namespace`, then counts what is left. Pods go
 * first, and the other types wait until no pod is left (Kubernetes' ordered namespace deletion):
 * nothing a running pod still uses (its secrets, its service account) disappears under it.
 * A type whose deletion fails is recorded and the others are still cleaned.
 */
export async function deleteAllContent(client: Client, namespace: string, types: readonly ApiResource[]): Promise<ContentResult> {
  const result: ContentResult = { failures: [], remaining: new Map(), finalizers: new Map(), estimateSeconds: 0 };
  const deletable = types.filter((t) => t.namespaced && supports(t, 'delete', 'list'));
  const pods = deletable.filter(isPods);
  for (const type of pods) await cleanType(client, namespace, type, result);
  if (result.remaining.size > 0 || result.failures.length > 0) return result;
  for (const type of deletable) if (!isPods(type)) await cleanType(client, namespace, type, result);
  return result;
}

async function cleanType(client: Client, namespace: string, type: ApiResource, result: ContentResult): Promise<void> {
  try {
    if (supports(type, 'deletecollection')) {
      await client.deleteCollection(type, { namespace, propagationPolicy: 'Background' });
    } else {
      await deleteOneByOne(client, namespace, type);
    }
    count(await client.list(type, { namespace, metadataOnly: true }).then((page) => page.items), type, result);
  } catch (error) {
    // A type that went away since discovery has nothing left to delete.
    if (isStatusError(error, 'NotFound')) return;
    result.failures.push(`${groupResource(type)}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

async function deleteOneByOne(client: Client, namespace: string, type: ApiResource): Promise<void> {
  for await (const page of client.listPages(type, { namespace, metadataOnly: true })) {
    for (const item of page.items) {
      if (item.metadata.deletionTimestamp) continue;
      try {
        await client.delete(type, item.metadata.name!, { namespace, propagationPolicy: 'Background', preconditions: { uid: item.metadata.uid! } });
      } catch (error) {
        // Gone already, or replaced by a newer object of that name (the next sync sees it).
        if (!isStatusError(error, 'NotFound') && !isStatusError(error, 'Conflict')) throw error;
      }
    }
  }
}

function count(items: readonly KubeObject[], type: ApiResource, result: ContentResult): void {
  if (items.length === 0) return;
  result.remaining.set(groupResource(type), items.length);
  const now = Date.now();
  for (const item of items) {
    for (const finalizer of item.metadata.finalizers ?? []) result.finalizers.set(finalizer, (result.finalizers.get(finalizer) ?? 0) + 1);
    const deadline = item.metadata.deletionTimestamp ? Date.parse(item.metadata.deletionTimestamp) : NaN;
    if (isPods(type) && deadline > now) result.estimateSeconds = Math.max(result.estimateSeconds, Math.ceil((deadline - now) / 1000));
  }
}
