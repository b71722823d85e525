import type { CallOptions, ContainerState, ContainerStatus, CriClient, PodSandbox, PodSandboxStatus } from '../cri/index.js';
import { isCriError, GrpcStatus } from '../cri/index.js';
import { CONTAINER_HASH_ANNOTATION, CONTAINER_NAME_LABEL, POD_UID_LABEL, restartCountOf } from './runtime-labels.js';

/** One container of a pod as the runtime has it. */
export interface RuntimeContainer {
  readonly id: string;
  readonly sandboxId: string;
  readonly name: string;
  readonly restartCount: number;
  readonly hash: string;
  readonly state: ContainerState;
  readonly status: ContainerStatus;
}

/** Everything the runtime holds of one pod, read fresh for a sync. */
export interface PodRuntime {
  /** Newest first (highest attempt). */
  readonly sandboxes: readonly PodSandbox[];
  /** The newest sandbox's status (with its IP), when there is a sandbox. */
  readonly sandbox: PodSandboxStatus | undefined;
  readonly containers: readonly RuntimeContainer[];
}

export const nanosToDate = (nanos: bigint): Date | undefined => (nanos > 0n ? new Date(Number(nanos / 1_000_000n)) : undefined);

/** Is the newest sandbox ready (so its containers may run)? */
export const sandboxReady = (runtime: PodRuntime): boolean => runtime.sandbox?.state === 'SANDBOX_READY';

/** The newest instance of a container (highest restart count), or undefined if it never ran. */
export function latestContainer(runtime: PodRuntime, name: string): RuntimeContainer | undefined {
  let latest: RuntimeContainer | undefined;
  for (const container of runtime.containers) {
    if (container.name !== name) continue;
    if (!latest || container.restartCount > latest.restartCount || (container.restartCount === latest.restartCount && container.status.createdAt > latest.status.createdAt)) latest = container;
  }
  return latest;
}

/** The instance before the latest one ("previous" of `kubectl logs -p`), for lastState. */
export function previousContainer(runtime: PodRuntime, name: string, before: RuntimeContainer): RuntimeContainer | undefined {
  let previous: RuntimeContainer | undefined;
  for (const container of runtime.containers) {
    if (container.name !== name || container.id === before.id || container.restartCount > before.restartCount) continue;
    if (!previous || container.restartCount > previous.restartCount) previous = container;
  }
  return previous;
}

/**
 * Reads a pod's sandboxes and containers by the contract's `svc.io/pod.uid` label. An exited
 * container's status never changes, so it is cached by id (`exitedCache`) and asked once.
 */
export async function readPodRuntime(cri: CriClient, uid: string, exitedCache: Map<string, ContainerStatus>, options?: CallOptions): Promise<PodRuntime> {
  const selector = { labelSelector: { [POD_UID_LABEL]: uid } };
  const [{ items }, { containers }] = await Promise.all([cri.listPodSandbox({ filter: selector }, options), cri.listContainers({ filter: selector }, options)]);
  const sandboxes = [...items].sort((a, b) => (b.metadata?.attempt ?? 0) - (a.metadata?.attempt ?? 0) || Number(b.createdAt - a.createdAt));
  const newest = sandboxes[0];
  const sandbox = newest ? await cri.podSandboxStatus({ podSandboxId: newest.id }, options).then((r) => r.status ?? undefined, ignoreNotFound) : undefined;
  const read = await Promise.all(
    containers.map(async (container): Promise<RuntimeContainer | undefined> => {
      let status = exitedCache.get(container.id);
      if (!status) {
        status = await cri.containerStatus({ containerId: container.id }, options).then((r) => r.status ?? undefined, ignoreNotFound);
        if (!status) return undefined;
        if (status.state === 'CONTAINER_EXITED') exitedCache.set(container.id, status);
      }
      return {
        id: container.id,
        sandboxId: container.podSandboxId,
        name: container.labels[CONTAINER_NAME_LABEL] ?? container.metadata?.name ?? '',
        restartCount: restartCountOf(container),
        hash: container.annotations[CONTAINER_HASH_ANNOTATION] ?? '',
        state: status.state,
        status,
      };
    }),
  );
  return { sandboxes, sandbox, containers: read.filter((c) => c !== undefined) };
}

/** Gone already is done: the runtime removed it between a list and a status. */
export function ignoreNotFound(error: unknown): undefined {
  if (isCriError(error, GrpcStatus.NOT_FOUND)) return undefined;
  throw error;
}
