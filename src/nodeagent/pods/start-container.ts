import { isStatusError, type Container, type Pod } from '../../api/index.js';
import type { Input, Mount, PodSandboxConfig } from '../cri/index.js';
import { containerConfig } from './container-config.js';
import { runLifecycleHandler, type LifecycleHandler, type ProbeTarget } from '../probes/index.js';
import { podEvent, type WorkerContext } from './worker-context.js';

/** A container could not be started; `reason` becomes its waiting reason. */
export class ContainerStartError extends Error {
  override readonly name = 'ContainerStartError';
  constructor(
    readonly reason: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const WAITING_REASONS = new Set(['CreateContainerConfigError', 'ErrImagePull', 'ImagePullBackOff', 'ErrImageNeverPull', 'InvalidImageName', 'CreateContainerError', 'RunContainerError']);

/** The waiting reason an error from a step stands for: its own when it names one, else `fallback`. */
export function waitingReasonOf(error: unknown, fallback: string): string {
  const own = (error as { waitingReason?: unknown } | null)?.waitingReason;
  if (typeof own === 'string') return own;
  if (isStatusError(error) && WAITING_REASONS.has(error.reason)) return error.reason;
  return fallback;
}

const fail = (reason: string) => (error: unknown): never => {
  throw new ContainerStartError(waitingReasonOf(error, reason), error instanceof Error ? error.message : String(error), { cause: error });
};

/** The image to create from: the image manager's answer, else ImageStatus then PullImage when absent. */
async function ensureImage(context: WorkerContext, pod: Pod, container: Container): Promise<{ imageRef: string; uid?: number; username?: string }> {
  let imageRef: string;
  if (context.images) imageRef = (await context.images.ensureImage(pod, container, await context.volumes.pullSecrets(pod))).imageRef;
  else {
    const found = await context.cri.imageStatus({ image: { image: container.image } }, { signal: context.signal });
    if (found.image) imageRef = found.image.id;
    else {
      podEvent(context, pod, 'Normal', 'Pulling', `Pulling image "${container.image}"`);
      imageRef = (await context.cri.pullImage({ image: { image: container.image } }, { signal: context.signal })).imageRef;
    }
  }
  const status = await context.cri.imageStatus({ image: { image: imageRef } }, { signal: context.signal });
  const uid = status.image?.uid ? Number(status.image.uid.value) : undefined;
  return { imageRef, ...(uid !== undefined ? { uid } : {}), ...(status.image?.username ? { username: status.image.username } : {}) };
}

/**
 * Creates and starts one container instance in the pod's sandbox: image, env, mounts, config,
 * CreateContainer, StartContainer, then the postStart hook (a failing hook kills the container,
 * as the kubelet). Throws {@link ContainerStartError} with the waiting reason of the failed step.
 */
export async function startContainer(
  context: WorkerContext,
  pod: Pod,
  container: Container,
  restartCount: number,
  sandbox: { id: string; config: Input<PodSandboxConfig>; podIP: string | undefined; podIPs: readonly string[] },
  mounts: (container: Container, env: readonly { key: string; value: string }[]) => Input<Mount>[],
): Promise<string> {
  const image = await ensureImage(context, pod, container).catch(fail('ErrImagePull'));
  const envs = await context.volumes.resolveEnv(pod, container, sandbox.podIP, sandbox.podIPs).catch(fail('CreateContainerConfigError'));
  let config!: ReturnType<typeof containerConfig>;
  try {
    config = containerConfig(pod, container, { restartCount, imageRef: image.imageRef, imageUser: image, envs, mounts: mounts(container, envs), cpuset: context.resources?.containerCpuset(pod, container) }, context.container);
  } catch (error) {
    fail('CreateContainerConfigError')(error);
  }
  const { containerId } = await context.cri
    .createContainer({ podSandboxId: sandbox.id, config, sandboxConfig: sandbox.config }, { signal: context.signal })
    .catch(fail('CreateContainerError'));
  podEvent(context, pod, 'Normal', 'Created', `Created container ${container.name}`);
  await context.cri.startContainer({ containerId }, { signal: context.signal }).catch(fail('RunContainerError'));
  podEvent(context, pod, 'Normal', 'Started', `Started container ${container.name}`);
  const postStart = (container.lifecycle as { postStart?: LifecycleHandler } | undefined)?.postStart;
  if (postStart) {
    const target: ProbeTarget = { pod, container, containerId, podIP: sandbox.podIP };
    try {
      await runLifecycleHandler(postStart, target, { cri: context.cri, timeoutSeconds: pod.spec.terminationGracePeriodSeconds ?? 30, signal: context.signal, hook: 'postStart' });
    } catch (error) {
      podEvent(context, pod, 'Warning', 'FailedPostStartHook', `PostStartHook failed: ${error instanceof Error ? error.message : String(error)}`);
      await context.cri.stopContainer({ containerId, timeout: 0 }, { signal: context.signal });
    }
  }
  return containerId;
}

