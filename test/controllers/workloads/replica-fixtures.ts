// What the ReplicaSet and Deployment suites share: a namespace with its default service account
// (pods need one), and pods made Ready by the test (no node runs them), one by one or as they come.
import type { Pod } from '../../../src/api/index.js';
import { builtin, Informer, type Client } from '../../../src/client/index.js';
import { createNamespaceWithAccount } from '../../support/namespace-with-account.js';

export const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** A namespace with its default service account (no serviceaccount loop runs in these suites). */
export const createNamespace = createNamespaceWithAccount;

/** Sets the pod Running and Ready since `readyAt` (ms), on `node`, as a node agent would. */
export async function makeReady(client: Client, pod: Pod, readyAt: number, node = 'node-1'): Promise<void> {
  const namespace = pod.metadata.namespace!;
  if (!pod.spec.nodeName) await client.bind(pod.metadata.name!, node, { namespace });
  const fresh = await client.get(builtin.pods, pod.metadata.name!, { namespace });
  const time = iso(readyAt);
  await client.updateStatus(
    builtin.pods,
    {
      ...fresh,
      status: {
        ...fresh.status,
        phase: 'Running',
        conditions: [
          { type: 'PodScheduled', status: 'True', lastTransitionTime: time },
          { type: 'Ready', status: 'True', lastTransitionTime: time },
          { type: 'ContainersReady', status: 'True', lastTransitionTime: time },
        ],
      },
    },
    { namespace },
  );
}

/** The pods of a namespace, not being deleted. */
export async function livePods(client: Client, namespace: string, labelSelector?: string): Promise<Pod[]> {
  const list = await client.list(builtin.pods, { namespace, ...(labelSelector ? { labelSelector } : {}) });
  return list.items.filter((pod) => pod.metadata.deletionTimestamp === undefined);
}

/**
 * Plays the node agent for a namespace (no node runs these pods): binds every new pod that
 * `accept`s to `node-1` and sets it Running and Ready at `now()`, and completes the deletion of
 * pods being deleted. Answers a stop function.
 */
export function autoReady(client: Client, namespace: string, now: () => number, accept: (pod: Pod) => boolean = () => true): () => void {
  const busy = new Set<string>();
  const informer = new Informer(client, builtin.pods, { namespace });
  const handle = async (pod: Pod) => {
    const uid = pod.metadata.uid!;
    if (busy.has(uid)) return;
    busy.add(uid);
    try {
      if (pod.metadata.deletionTimestamp !== undefined) {
        await client.delete(builtin.pods, pod.metadata.name!, { namespace, gracePeriodSeconds: 0, preconditions: { uid } });
      } else if (accept(pod) && !pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True')) {
        await makeReady(client, pod, now());
      }
    } catch {
      // Gone or changed meanwhile: its next event comes here again.
    } finally {
      busy.delete(uid);
    }
  };
  const subscription = informer.events$.subscribe((event) => {
    if (event.type === 'added' || event.type === 'updated') void handle(event.object);
  });
  return () => {
    subscription.unsubscribe();
    informer.stop();
  };
}
