import { rfc3339, podQosClass, type Container, type Pod, type PodStatus } from '../../api/index.js';
import { latestContainer, nanosToDate, previousContainer, sandboxReady, type PodRuntime, type RuntimeContainer } from './pod-runtime.js';

/** A container the sync decided not to (or could not yet) start, with why. */
export interface WaitingReason {
  readonly reason: string;
  readonly message?: string | undefined;
}

/** What the status is computed from. */
export interface PodStatusInputs {
  readonly pod: Pod;
  readonly runtime: PodRuntime;
  /** By container name: set by the sync (CrashLoopBackOff, ErrImagePull, CreateContainerConfigError, …). */
  readonly waiting: ReadonlyMap<string, WaitingReason>;
  /** The status last computed for this pod (kept: startTime, transition times, a terminal phase). */
  readonly previous: PodStatus | undefined;
  readonly hostIPs: readonly string[];
  /** `containerd`: the scheme of containerIDs. */
  readonly runtimeName: string;
  /** Readiness and startup as the probes see them; without probes a running container is both. */
  readonly ready?: ((containerName: string) => boolean) | undefined;
  readonly started?: ((containerName: string) => boolean) | undefined;
  readonly now: Date;
}

type ContainerStatusOut = Record<string, unknown> & { name: string; ready: boolean; restartCount: number; state: Record<string, unknown> };

const iso = (date: Date | undefined): string | undefined => (date ? rfc3339(date) : undefined);

function terminated(instance: RuntimeContainer, runtimeName: string): Record<string, unknown> {
  const s = instance.status;
  const reason = s.reason && s.reason !== 'Completed' && s.reason !== 'Error' ? s.reason : s.exitCode === 0 ? 'Completed' : 'Error';
  return {
    terminated: {
      exitCode: s.exitCode,
      reason,
      ...(s.message ? { message: s.message } : {}),
      startedAt: iso(nanosToDate(s.startedAt)),
      finishedAt: iso(nanosToDate(s.finishedAt)),
      containerID: `${runtimeName}://${instance.id}`,
    },
  };
}

/** One entry of containerStatuses / initContainerStatuses (the kubelet's rules). */
function containerStatus(inputs: PodStatusInputs, container: Container, defaultWaiting: string, currentSandbox: string | undefined): ContainerStatusOut {
  const { runtime, runtimeName } = inputs;
  const latest = latestContainer(runtime, container.name);
  const waiting = inputs.waiting.get(container.name);
  const base = { name: container.name, image: container.image, imageID: '', restartCount: 0, ready: false, started: false };
  if (!latest) {
    return { ...base, state: { waiting: { reason: waiting?.reason ?? defaultWaiting, ...(waiting?.message ? { message: waiting.message } : {}) } } };
  }
  const previous = previousContainer(runtime, container.name, latest);
  const out: ContainerStatusOut = { ...base, imageID: latest.status.imageRef, containerID: `${runtimeName}://${latest.id}`, restartCount: latest.restartCount, state: {} };
  const running = latest.state === 'CONTAINER_RUNNING' && latest.sandboxId === currentSandbox;
  if (running) {
    const started = inputs.started?.(container.name) ?? true;
    out.state = { running: { startedAt: iso(nanosToDate(latest.status.startedAt)) } };
    out.started = started;
    out.ready = started && (inputs.ready?.(container.name) ?? true);
    if (previous && previous.state === 'CONTAINER_EXITED') out.lastState = terminated(previous, runtimeName);
  } else if (latest.state === 'CONTAINER_EXITED' || latest.state === 'CONTAINER_RUNNING') {
    // Exited (or left running in a dead sandbox, about to be killed): waiting if it will restart.
    if (waiting) {
      out.state = { waiting: { reason: waiting.reason, ...(waiting.message ? { message: waiting.message } : {}) } };
      out.lastState = terminated(latest, runtimeName);
    } else {
      out.state = terminated(latest, runtimeName);
      if (previous && previous.state === 'CONTAINER_EXITED') out.lastState = terminated(previous, runtimeName);
    }
  } else {
    out.state = { waiting: { reason: waiting?.reason ?? defaultWaiting } };
    if (previous && previous.state === 'CONTAINER_EXITED') out.lastState = terminated(previous, runtimeName);
  }
  if (!out.lastState) out.lastState = {};
  return out;
}

const stateOf = (status: ContainerStatusOut): 'running' | 'terminated' | 'waiting' =>
  status.state['running'] ? 'running' : status.state['terminated'] ? 'terminated' : 'waiting';
const exitCodeOf = (status: ContainerStatusOut): number | undefined =>
  ((status.state['terminated'] ?? (status['lastState'] as Record<string, unknown> | undefined)?.['terminated']) as { exitCode?: number } | undefined)?.exitCode;

/** Have all init containers succeeded (exited 0), or are there none? */
export function initialized(statuses: readonly ContainerStatusOut[]): boolean {
  return statuses.every((s) => stateOf(s) === 'terminated' && exitCodeOf(s) === 0);
}

/** The kubelet's getPhase over the computed container statuses. */
function phaseOf(pod: Pod, init: readonly ContainerStatusOut[], main: readonly ContainerStatusOut[]): NonNullable<PodStatus['phase']> {
  const policy = pod.spec.restartPolicy ?? 'Always';
  const initFailed = init.some((s) => stateOf(s) === 'terminated' && exitCodeOf(s) !== 0);
  if (initFailed && policy === 'Never') return 'Failed';
  if (!initialized(init)) return 'Pending';
  let running = 0;
  let waiting = 0;
  let stopped = 0;
  let succeeded = 0;
  for (const status of main) {
    const state = stateOf(status);
    if (state === 'running') running++;
    else if (state === 'terminated') {
      stopped++;
      if (exitCodeOf(status) === 0) succeeded++;
    } else if ((status['lastState'] as Record<string, unknown> | undefined)?.['terminated']) {
      stopped++;
      if (exitCodeOf(status) === 0) succeeded++;
    } else waiting++;
  }
  if (waiting > 0) return 'Pending';
  if (running > 0) return 'Running';
  if (stopped > 0) {
    if (policy === 'Always') return 'Running';
    if (stopped === succeeded) return 'Succeeded';
    return policy === 'OnFailure' ? 'Running' : 'Failed';
  }
  return 'Pending';
}

type Condition = NonNullable<PodStatus['conditions']>[number];

/**
 * The pod's status from the runtime: phase, conditions, container statuses, IPs, QoS class and
 * start time. A terminal phase (Succeeded, Failed) is final: once computed it is never left.
 * Condition transition times move only when the condition's status does.
 */
export function computePodStatus(inputs: PodStatusInputs): PodStatus {
  const { pod, runtime, previous } = inputs;
  const now = iso(inputs.now)!;
  const ready = sandboxReady(runtime);
  const current = ready ? runtime.sandbox?.id : undefined;
  const init = (pod.spec.initContainers ?? []).map((c) => containerStatus(inputs, c, 'PodInitializing', current));
  const isInitialized = initialized(init);
  const main = pod.spec.containers.map((c) => containerStatus(inputs, c, isInitialized ? 'ContainerCreating' : 'PodInitializing', current));
  const previousPhase = previous?.phase;
  const phase = previousPhase === 'Succeeded' || previousPhase === 'Failed' ? previousPhase : phaseOf(pod, init, main);
  const terminal = phase === 'Succeeded' || phase === 'Failed';

  const containersReady = !terminal && main.every((s) => s.ready);
  const notReadyReason = terminal ? 'PodCompleted' : 'ContainersNotReady';
  const conditions: Condition[] = [];
  const condition = (type: string, status: boolean, reason?: string) => {
    const value = status ? 'True' : 'False';
    const before = previous?.conditions?.find((c) => c.type === type);
    conditions.push({
      type,
      status: value,
      ...(!status && reason ? { reason } : {}),
      lastTransitionTime: before && before.status === value && before.lastTransitionTime ? String(before.lastTransitionTime) : now,
    });
  };
  condition('Initialized', isInitialized || (terminal && init.length === 0), terminal ? 'PodCompleted' : 'ContainersNotInitialized');
  condition('Ready', containersReady, notReadyReason);
  condition('ContainersReady', containersReady, notReadyReason);
  condition('PodScheduled', true);
  // A pod that ended by eviction keeps saying so (the agent may have restarted since).
  const disruption = terminal ? previous?.conditions?.find((c) => c.type === 'DisruptionTarget') : undefined;
  if (disruption) conditions.push(disruption as Condition);

  const podIP = pod.spec.hostNetwork ? inputs.hostIPs[0] : ready ? runtime.sandbox?.network?.ip || undefined : undefined;
  const podIPs = pod.spec.hostNetwork
    ? inputs.hostIPs
    : ready && podIP
      ? [podIP, ...(runtime.sandbox?.network?.additionalIps ?? []).map((a) => a.ip)]
      : [];
  const status: PodStatus = {
    phase,
    ...(terminal && previous?.reason !== undefined ? { reason: previous.reason, ...(previous.message !== undefined ? { message: previous.message } : {}) } : {}),
    conditions,
    hostIP: inputs.hostIPs[0],
    hostIPs: inputs.hostIPs.map((ip) => ({ ip })),
    // A terminated pod keeps the IP it had (its sandbox is stopped, the address is history).
    ...(podIP ? { podIP, podIPs: podIPs.map((ip) => ({ ip })) } : terminal && previous?.podIP ? { podIP: previous.podIP, podIPs: previous.podIPs ?? [] } : {}),
    startTime: previous?.startTime ?? now,
    qosClass: pod.status?.qosClass ?? podQosClass(pod.spec),
    ...(init.length ? { initContainerStatuses: init } : {}),
    containerStatuses: main,
  };
  return status;
}
