// Helpers of the workload-loop suites (daemonset, statefulset, disruption): Node objects made by
// the test, and pods made Ready through their status, as a node agent would, where no node runs them.
import { isStatusError, rfc3339, type KubeObject, type Node, type Pod } from '../../src/api/index.js';
import { builtin, type Client, type Resource } from '../../src/client/index.js';
import { createNamespaceWithAccount } from '../support/namespace-with-account.js';

type Taint = NonNullable<NonNullable<Node['spec']>['taints']>[number];

export async function createNode(client: Client, name: string, labels: Record<string, string> = {}, taints: Taint[] = []): Promise<Node> {
  const node: Node = { apiVersion: 'v1', kind: 'Node', metadata: { name, labels: { 'kubernetes.io/hostname': name, ...labels } }, spec: taints.length > 0 ? { taints } : {} };
  return client.create(builtin.nodes, node);
}

/** A namespace with its default service account (no serviceaccount loop runs in these suites). */
export const createNamespace = createNamespaceWithAccount;

const now = () => rfc3339();

/** Marks the pod Running and Ready (or not Ready) through pods/status; a pod gone meanwhile is skipped. */
export async function setPodReady(client: Client, pod: Pod, ready = true): Promise<void> {
  const status = { ...pod.status, phase: 'Running', conditions: [{ type: 'Ready', status: ready ? 'True' : 'False', lastTransitionTime: now() }] };
  try {
    await client.updateStatus(builtin.pods, { ...pod, status } as Pod, { namespace: pod.metadata.namespace });
  } catch (error) {
    if (isStatusError(error, 'NotFound') || isStatusError(error, 'Conflict')) return;
    throw error;
  }
}

export const isReady = (pod: Pod): boolean => pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

/** The namespace's pods that are not being deleted. */
export async function livePods(client: Client, namespace: string, labelSelector?: string): Promise<Pod[]> {
  const list = await client.list(builtin.pods, { namespace, ...(labelSelector ? { labelSelector } : {}) });
  return list.items.filter((pod) => pod.metadata.deletionTimestamp === undefined);
}

/** Marks every live pod of the namespace that is not Ready, Ready: the kubelet's part, for pods no node runs. */
export async function readyAll(client: Client, namespace: string): Promise<void> {
  for (const pod of await livePods(client, namespace)) if (!isReady(pod)) await setPodReady(client, pod);
}

/** Reads the object and writes `change(object)`, again on a 409 (the controller writes its status meanwhile). */
export async function updateWith<T extends KubeObject>(client: Client, resource: Resource<T>, name: string, namespace: string | undefined, change: (object: T) => T): Promise<T> {
  for (;;) {
    const object = await client.get(resource, name, namespace ? { namespace } : {});
    try {
      return await client.update(resource, change(object), namespace ? { namespace } : {});
    } catch (error) {
      if (!isStatusError(error, 'Conflict')) throw error;
    }
  }
}

/** `reason: message` of the namespace's core/v1 Events about the object of `kind` and `name`. */
export async function eventsAbout(client: Client, namespace: string, kind: string, name: string): Promise<string[]> {
  const list = await client.list(builtin.coreEvents, { namespace });
  return list.items.filter((e) => e.involvedObject?.kind === kind && e.involvedObject.name === name).map((e) => `${e.reason}: ${e.message}`);
}
