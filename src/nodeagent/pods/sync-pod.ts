import type { Container, Pod, PodStatus } from '../../api/index.js';
import { awaitChange, requeueAfter, type Outcome } from '../../../operators/index.js';
import { GrpcStatus, isCriError, type Input, type Mount } from '../cri/index.js';
import { isStaticPod } from '../sources/index.js';
import { backoffKey } from './crash-loop-backoff.js';
import { latestContainer, nanosToDate, sandboxReady, type PodRuntime, type RuntimeContainer } from './pod-runtime.js';
import { cachedPodRuntime, podRuntimeChanged, readAndCachePodRuntime } from './pod-runtime-cache.js';
import { computePodStatus, type WaitingReason } from './pod-status.js';
import { containerHash } from './runtime-labels.js';
import { sandboxConfig } from './sandbox-config.js';
import { ContainerStartError, startContainer } from './start-container.js';
import { podEvent, type PodEntry, type WorkerContext } from './worker-context.js';

const FAILED_SYNC_BASE_MS = 1000;
const FAILED_SYNC_MAX_MS = 60_000;

/** Grace period of the pod's containers when the agent replaces or stops them. */
export const gracePeriodOf = (pod: Pod): number => pod.metadata.deletionGracePeriodSeconds ?? pod.spec.terminationGracePeriodSeconds ?? 30;

/** Stops a container; one already gone is stopped. */
export async function stopContainer(context: WorkerContext, id: string, timeoutSeconds: number): Promise<void> {
  try {
    await context.cri.stopContainer({ containerId: id, timeout: Math.max(0, timeoutSeconds) }, { signal: context.signal, timeoutMs: (timeoutSeconds + 120) * 1000 });
  } catch (error) {
    if (!isCriError(error, GrpcStatus.NOT_FOUND)) throw error;
  }
}

/** Does any container of the pod have a probe (its readiness or start can change with no sync's doing)? */
const probed = (pod: Pod): boolean => [...(pod.spec.initContainers ?? []), ...pod.spec.containers].some((c) => c.livenessProbe !== undefined || c.readinessProbe !== undefined || c.startupProbe !== undefined);

const isLive = (c: RuntimeContainer) => c.state === 'CONTAINER_RUNNING' || c.state === 'CONTAINER_CREATED';

/** Should an exited container run again under the pod's restart policy? */
function shouldRestart(pod: Pod, exitCode: number): boolean {
  const policy = pod.spec.restartPolicy ?? 'Always';
  return policy === 'Always' || (policy === 'OnFailure' && exitCode !== 0);
}

/**
 * One sync of a running pod, the kubelet's SyncPod in order:
 * 1. the sandbox: (re-)created with the next attempt when the newest is not ready (its
 *    containers are stopped first — they are restarted in the new one);
 * 2. containers the spec does not name, or left in an old sandbox, are stopped;
 * 3. init containers one at a time, in order: each must exit 0 before the next starts; a failed
 *    one restarts under the restart policy (with back-off) or, under `Never`, fails the pod;
 * 4. the containers: a running one whose spec hash changed is replaced; an exited one restarts
 *    per the restart policy, after its crash-loop back-off (waiting reason CrashLoopBackOff);
 * 5. the status, computed from the runtime (read again when the sync changed anything in it),
 *    written when it changed.
 * Returns when to look again: at the end of a back-off, after a failure (1 s doubling to 60 s),
 * or on the next runtime change.
 */
export async function syncPod(context: WorkerContext, entry: PodEntry): Promise<Outcome<undefined>> {
  const pod = entry.pod;
  const uid = pod.metadata.uid ?? '';
  const waiting = new Map<string, WaitingReason>();
  const terminal = entry.status?.phase === 'Succeeded' || entry.status?.phase === 'Failed';
  // The pod cache's read when nothing changed since (pod-runtime-cache.ts), else a fresh one.
  let runtime = cachedPodRuntime(entry) ?? (await readAndCachePodRuntime(context, entry, uid));
  let requeueMs = Infinity;
  let failed = false;
  // Whether this sync asked the runtime for a change (a sandbox, a start, a stop): only then is the
  // runtime read again for the status. A sync that changed nothing (every periodic one of a running
  // pod) reports from the read it began with, as the kubelet reports from the pod status it synced with.
  let acted = false;
  /** Before each change this sync asks of the runtime: the read it began with is stale from here on. */
  const act = (): void => {
    acted = true;
    podRuntimeChanged(entry);
  };

  const report = async (): Promise<PodStatus> => {
    const status = computePodStatus({
      pod,
      runtime,
      waiting,
      previous: entry.status ?? pod.status,
      hostIPs: context.hostIPs,
      runtimeName: context.runtimeName,
      ready: context.probes ? (name) => context.probes!.ready(uid, name) : undefined,
      started: context.probes ? (name) => context.probes!.started(uid, name) : undefined,
      now: new Date(),
    });
    entry.status = status;
    if (context.statusWriter) {
      await context.statusWriter.write(pod, status, entry.apiStatus);
      entry.apiStatus = undefined;
    }
    return status;
  };

  // The sandbox config of an attempt, built when a call needs it, at most once a sync (a first sync
  // needs it for RunPodSandbox and again for each CreateContainer).
  let built: { attempt: number; config: ReturnType<typeof sandboxConfig> } | undefined;
  const configOf = (attempt: number): ReturnType<typeof sandboxConfig> => {
    if (built === undefined || built.attempt !== attempt) built = { attempt, config: sandboxConfig(pod, attempt, context.sandbox) };
    return built.config;
  };

  let podVolumes: Awaited<ReturnType<WorkerContext['volumes']['setUp']>> | undefined;
  if (!terminal) {
    try {
      podVolumes = await context.volumes.setUp(pod);
    } catch (error) {
      // The containers wait (ContainerCreating) and the status says so; the queue retries with back-off.
      podEvent(context, pod, 'Warning', 'FailedMount', error instanceof Error ? error.message : String(error));
      await report();
      throw error;
    }
  }
  const mounts = (container: Container, env: readonly { key: string; value: string }[]): Input<Mount>[] => podVolumes?.mounts(container, env) ?? [];

  if (!terminal) {
    // 1. the sandbox
    if (!sandboxReady(runtime)) {
      act();
      await Promise.all(runtime.containers.filter(isLive).map((c) => stopContainer(context, c.id, gracePeriodOf(pod))));
      for (const old of runtime.sandboxes) if (old.state === 'SANDBOX_READY') await context.cri.stopPodSandbox({ podSandboxId: old.id }, { signal: context.signal });
      const attempt = runtime.sandboxes.length ? (runtime.sandboxes[0]!.metadata?.attempt ?? 0) + 1 : 0;
      if (runtime.sandboxes.length) podEvent(context, pod, 'Normal', 'SandboxChanged', 'Pod sandbox changed, it will be killed and re-created.');
      try {
        await context.cri.runPodSandbox({ config: configOf(attempt) }, { signal: context.signal });
      } catch (error) {
        podEvent(context, pod, 'Warning', 'FailedCreatePodSandBox', `Failed to create pod sandbox: ${error instanceof Error ? error.message : String(error)}`);
        await report();
        throw error;
      }
      runtime = await readAndCachePodRuntime(context, entry, uid);
    }
    const current = runtime.sandbox!;
    const podIP = pod.spec.hostNetwork ? context.hostIPs[0] : current.network?.ip || undefined;
    const podIPs = pod.spec.hostNetwork ? context.hostIPs : podIP ? [podIP, ...(current.network?.additionalIps ?? []).map((a) => a.ip)] : [];
    const attempt = current.metadata?.attempt ?? 0;
    // The config goes with CreateContainer only: a sync that starts nothing never builds it.
    const sandbox = {
      id: current.id,
      get config() {
        return configOf(attempt);
      },
      podIP,
      podIPs,
    };

    // 2. strays: unknown names, or live in an old sandbox
    const names = new Set([...(pod.spec.initContainers ?? []), ...pod.spec.containers].map((c) => c.name));
    const strays = runtime.containers.filter((c) => isLive(c) && (!names.has(c.name) || c.sandboxId !== current.id));
    if (strays.length) act();
    await Promise.all(strays.map((c) => stopContainer(context, c.id, gracePeriodOf(pod))));

    const start = async (container: Container, restartCount: number): Promise<void> => {
      act();
      try {
        const id = await startContainer(context, pod, container, restartCount, sandbox, mounts);
        if (context.probes) context.probes.start({ pod, container, containerId: id, podIP });
      } catch (error) {
        if (!(error instanceof ContainerStartError)) throw error;
        failed = true;
        waiting.set(container.name, { reason: error.reason, message: error.message });
        podEvent(context, pod, 'Warning', 'Failed', `Error: ${error.reason}: ${error.message}`);
      }
    };
    /** Restart decision for an instance that is no longer running (exited, or in an old sandbox). */
    const restartIfDue = async (container: Container, latest: RuntimeContainer): Promise<void> => {
      const exitCode = latest.state === 'CONTAINER_EXITED' ? latest.status.exitCode : 0;
      if (latest.sandboxId === current.id && !shouldRestart(pod, exitCode)) return;
      const key = backoffKey(uid, container.name);
      const finishedAt = nanosToDate(latest.status.finishedAt)?.getTime() ?? context.backoff.now();
      const remaining = context.backoff.remaining(key, finishedAt);
      if (remaining > 0) {
        waiting.set(container.name, { reason: 'CrashLoopBackOff', message: `back-off ${Math.round(context.backoff.delayOf(key) / 1000)}s restarting failed container=${container.name} pod=${pod.metadata.name}` });
        requeueMs = Math.min(requeueMs, remaining);
        return;
      }
      context.backoff.restarted(key);
      await start(container, latest.restartCount + 1);
    };

    // 3. init containers, in order
    let initialized = true;
    for (const container of pod.spec.initContainers ?? []) {
      const latest = latestContainer(runtime, container.name);
      const here = latest?.sandboxId === current.id ? latest : undefined;
      if (here && isLive(here)) {
        initialized = false;
        break;
      }
      if (here && here.status.exitCode === 0) continue;
      initialized = false;
      if (!latest) await start(container, 0);
      else if (!here) await start(container, latest.restartCount + 1);
      else if ((pod.spec.restartPolicy ?? 'Always') !== 'Never') await restartIfDue(container, here);
      break;
    }

    // 4. the containers
    if (initialized) {
      for (const container of pod.spec.containers) {
        const latest = latestContainer(runtime, container.name);
        if (!latest) {
          await start(container, 0);
          continue;
        }
        const live = isLive(latest) && latest.sandboxId === current.id;
        if (live && latest.hash !== containerHash(container)) {
          podEvent(context, pod, 'Normal', 'Killing', `Container ${container.name} definition changed, will be restarted`);
          act();
          await stopContainer(context, latest.id, gracePeriodOf(pod));
          await start(container, latest.restartCount + 1);
        } else if (live) {
          // A second start of one container ID does nothing; an adopted one keeps its start time (no new initial delay).
          const startedAtMs = nanosToDate(latest.status.startedAt)?.getTime();
          if (context.probes && latest.state === 'CONTAINER_RUNNING') context.probes.start({ pod, container, containerId: latest.id, podIP, ...(startedAtMs ? { startedAtMs } : {}) });
        } else {
          await restartIfDue(container, latest);
        }
      }
    }
    if (acted) runtime = await readAndCachePodRuntime(context, entry, uid);
  }

  // 5. the status
  const last = entry.reported;
  // Nothing it depends on changed since the status was last computed and written: the same pod and
  // runtime read, nothing waiting, no probe whose result could have moved, no one else's status to
  // answer (a RECONCILE), no mirror pod to look for. Computing it would give that status again
  // (its times move only with a change) and the writer would find it written: the periodic sync of
  // a running pod skips both.
  const unchanged = last !== undefined && !acted && waiting.size === 0 && entry.apiStatus === undefined && last.runtime === runtime && last.status === entry.status && last.pod.deref() === pod && !probed(pod) && !isStaticPod(pod);
  const status = unchanged ? last.status : await report();
  // The pod weakly: a newer version replacing it lets it go.
  if (!unchanged) entry.reported = { pod: new WeakRef(pod), runtime, status };
  // A pod that finished for good gives its sandbox (and address) back, as the kubelet does.
  if ((status.phase === 'Succeeded' || status.phase === 'Failed') && sandboxReady(runtime)) {
    podRuntimeChanged(entry);
    await stopLiveAndSandbox(context, runtime, pod);
  }
  if (failed) {
    entry.failures++;
    return requeueAfter(Math.min(FAILED_SYNC_MAX_MS, FAILED_SYNC_BASE_MS * 2 ** (entry.failures - 1)));
  }
  entry.failures = 0;
  return Number.isFinite(requeueMs) ? requeueAfter(Math.ceil(requeueMs)) : awaitChange();
}

async function stopLiveAndSandbox(context: WorkerContext, runtime: PodRuntime, pod: Pod): Promise<void> {
  await Promise.all(runtime.containers.filter(isLive).map((c) => stopContainer(context, c.id, gracePeriodOf(pod))));
  for (const sandbox of runtime.sandboxes) {
    if (sandbox.state !== 'SANDBOX_READY') continue;
    try {
      await context.cri.stopPodSandbox({ podSandboxId: sandbox.id }, { signal: context.signal });
    } catch (error) {
      if (!isCriError(error, GrpcStatus.NOT_FOUND)) throw error;
    }
  }
}
