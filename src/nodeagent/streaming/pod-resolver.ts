/**
 * Finds a pod's sandbox and containers in the runtime by the labels the pod workers put on them
 * (`svc.io/pod.namespace`, `svc.io/pod.name`, `svc.io/pod.uid`, `svc.io/container.name`): the
 * streaming endpoints need no view of the agent's pods, only the runtime's.
 */
import { StatusError } from '../../api/index.js';
import { CONTAINER_NAME_LABEL, POD_NAME_LABEL, POD_NAMESPACE_LABEL, POD_UID_LABEL, type CriClient, type Container, type PodSandbox } from '../cri/index.js';
import type { PodRef } from './stream-request.js';


function podNotFound(pod: PodRef): StatusError {
  return new StatusError({ reason: 'NotFound', message: `pod "${pod.name}" in namespace "${pod.namespace}" is not running on this node`, details: { name: pod.name, kind: 'pods' } });
}

/** The pod's ready sandbox (the newest, should a replaced one linger). */
export async function resolveSandbox(cri: CriClient, pod: PodRef): Promise<PodSandbox> {
  const labelSelector: Record<string, string> = { [POD_NAMESPACE_LABEL]: pod.namespace, [POD_NAME_LABEL]: pod.name };
  if (pod.uid) labelSelector[POD_UID_LABEL] = pod.uid;
  const { items } = await cri.listPodSandbox({ filter: { labelSelector, state: { state: 'SANDBOX_READY' } } });
  const newest = items.reduce<PodSandbox | undefined>((best, s) => (!best || s.createdAt > best.createdAt ? s : best), undefined);
  if (!newest) throw podNotFound(pod);
  return newest;
}

/** The running container of that name in the pod (its latest attempt). */
export async function resolveContainer(cri: CriClient, pod: PodRef, containerName: string): Promise<{ sandbox: PodSandbox; container: Container }> {
  const sandbox = await resolveSandbox(cri, pod);
  const { containers } = await cri.listContainers({ filter: { podSandboxId: sandbox.id, labelSelector: { [CONTAINER_NAME_LABEL]: containerName } } });
  if (containers.length === 0) {
    throw new StatusError({ reason: 'NotFound', message: `container "${containerName}" not found in pod "${pod.namespace}/${pod.name}"`, details: { name: pod.name, kind: 'pods' } });
  }
  const running = containers.filter((c) => c.state === 'CONTAINER_RUNNING');
  const latest = running.reduce<Container | undefined>((best, c) => (!best || (c.metadata?.attempt ?? 0) > (best.metadata?.attempt ?? 0) ? c : best), undefined);
  if (!latest) throw new StatusError({ reason: 'BadRequest', message: `container "${containerName}" in pod "${pod.namespace}/${pod.name}" is not running` });
  return { sandbox, container: latest };
}
