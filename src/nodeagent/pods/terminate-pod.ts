import type { Pod, PodStatus } from '../../api/index.js';
import { GrpcStatus, isCriError } from '../cri/index.js';
import { runLifecycleHandler, type LifecycleHandler, type ProbeTarget } from '../probes/index.js';
import { readPodRuntime, type PodRuntime } from './pod-runtime.js';
import { computePodStatus } from './pod-status.js';
import { POD_TERMINATION_GRACE_PERIOD_ANNOTATION } from './runtime-labels.js';
import { gracePeriodOf, stopContainer } from './sync-pod.js';
import { podEvent, type WorkerContext } from './worker-context.js';

/** The kubelet never gives a container less than this after its preStop hook. */
const MIN_GRACE_AFTER_HOOK_S = 2;

const ignoreNotFound = (error: unknown): void => {
  if (!isCriError(error, GrpcStatus.NOT_FOUND)) throw error;
};

/** Stops and removes every sandbox of the pod (their containers go with them). */
async function removeSandboxes(context: WorkerContext, runtime: PodRuntime): Promise<void> {
  for (const sandbox of runtime.sandboxes) {
    await context.cri.stopPodSandbox({ podSandboxId: sandbox.id }, { signal: context.signal }).catch(ignoreNotFound);
    await context.cri.removePodSandbox({ podSandboxId: sandbox.id }, { signal: context.signal }).catch(ignoreNotFound);
  }
  for (const container of runtime.containers) context.exited.delete(container.id);
}

/**
 * Stops a pod for good, the kubelet's order: probes stopped; for each running container its
 * preStop hook, then StopContainer with what is left of the grace period (SIGTERM, then SIGKILL
 * when it runs out; at least 2 s after a hook); then every sandbox stopped and removed, and the
 * volumes torn down. Returns the pod's final status, computed before the sandboxes went.
 * `graceOverride`: an eviction's grace period instead of the pod's.
 */
export async function terminatePod(context: WorkerContext, pod: Pod, previous: PodStatus | undefined, graceOverride?: number): Promise<PodStatus> {
  const uid = pod.metadata.uid ?? '';
  const grace = graceOverride ?? gracePeriodOf(pod);
  const started = Date.now();
  context.probes?.stop(uid);
  let runtime = await readPodRuntime(context.cri, uid, context.exited, { signal: context.signal });
  const live = runtime.containers.filter((c) => c.state === 'CONTAINER_RUNNING' || c.state === 'CONTAINER_CREATED');
  if (live.length) podEvent(context, pod, 'Normal', 'Killing', `Stopping containers with grace period ${grace}s`);
  const podIP = runtime.sandbox?.network?.ip || undefined;
  await Promise.all(
    live.map(async (instance) => {
      const container = [...pod.spec.containers, ...(pod.spec.initContainers ?? [])].find((c) => c.name === instance.name);
      const preStop = (container?.lifecycle as { preStop?: LifecycleHandler } | undefined)?.preStop;
      let timeout = grace;
      if (container && preStop && instance.state === 'CONTAINER_RUNNING' && grace > 0) {
        const target: ProbeTarget = { pod, container, containerId: instance.id, podIP };
        try {
          await runLifecycleHandler(preStop, target, { cri: context.cri, timeoutSeconds: grace, signal: context.signal, hook: 'preStop' });
        } catch (error) {
          podEvent(context, pod, 'Warning', 'FailedPreStopHook', `PreStopHook failed: ${error instanceof Error ? error.message : String(error)}`);
        }
        timeout = Math.max(MIN_GRACE_AFTER_HOOK_S, grace - Math.floor((Date.now() - started) / 1000));
      }
      await stopContainer(context, instance.id, timeout);
    }),
  );
  runtime = await readPodRuntime(context.cri, uid, context.exited, { signal: context.signal });
  const status = computePodStatus({
    pod,
    runtime,
    waiting: new Map(),
    previous,
    hostIPs: context.hostIPs,
    runtimeName: context.runtimeName,
    now: new Date(),
  });
  await removeSandboxes(context, runtime);
  await context.volumes.tearDown(uid);
  context.backoff.forgetPod(uid);
  return status;
}

/**
 * Stops and removes what the runtime holds of a pod no source wants (an orphan: deleted while
 * the agent was down). Its containers get the grace period recorded on them.
 */
export async function removeOrphan(context: WorkerContext, uid: string): Promise<void> {
  context.probes?.stop(uid);
  const runtime = await readPodRuntime(context.cri, uid, context.exited, { signal: context.signal });
  await Promise.all(
    runtime.containers
      .filter((c) => c.state === 'CONTAINER_RUNNING')
      .map((c) => stopContainer(context, c.id, Number(c.status.annotations[POD_TERMINATION_GRACE_PERIOD_ANNOTATION] ?? 30) || 0)),
  );
  await removeSandboxes(context, runtime);
  await context.volumes.tearDown(uid);
  context.backoff.forgetPod(uid);
}
