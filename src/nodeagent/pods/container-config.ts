import { StatusError, podQosClass, type Container, type Pod } from '../../api/index.js';
import type { ContainerConfig, Input, KeyValue, LinuxContainerResources, LinuxContainerSecurityContext, Mount } from '../cri/index.js';
import { looseBool, looseInt, looseObject, looseStrings, type Loose } from './loose-fields.js';
import { limitOf, requestOf } from './container-resources.js';
import {
  CONTAINER_HASH_ANNOTATION,
  CONTAINER_NAME_LABEL,
  CONTAINER_RESTART_COUNT_ANNOTATION,
  POD_TERMINATION_GRACE_PERIOD_ANNOTATION,
  containerHash,
  containerLogPath,
  podLabels,
} from './runtime-labels.js';

/** Agent options a container config depends on. */
export interface ContainerConfigOptions {
  /** `--cpu-cfs-quota`: CPU limits become a CFS quota. Default true. */
  readonly cpuCfsQuota?: boolean | undefined;
  /** `--cpu-cfs-quota-period`, microseconds. Default 100000 (100 ms). */
  readonly cpuCfsQuotaPeriodUs?: number | undefined;
  /** The node's memory in bytes, for a Burstable container's OOM score. */
  readonly nodeMemoryBytes: number;
}

/** What the sync learned before creating the container. */
export interface ContainerInputs {
  /** The restart count this container instance has (its attempt). */
  readonly restartCount: number;
  /** The image reference to create from (`ensureImage`'s answer, or the pulled image's). */
  readonly imageRef: string;
  /** The image's user as the runtime reports it, for the runAsNonRoot check. */
  readonly imageUser?: { readonly uid?: number | undefined; readonly username?: string | undefined } | undefined;
  readonly envs: readonly Input<KeyValue>[];
  readonly mounts: readonly Input<Mount>[];
  /** The CPUs and memory nodes the resource managers give the container (CRI cpuset_cpus, cpuset_mems). */
  readonly cpuset?: { readonly cpusetCpus?: string; readonly cpusetMems?: string } | undefined;
}

const MIN_SHARES = 2;
const MAX_SHARES = 262_144;
const SHARES_PER_CPU = 1024;
const MIN_QUOTA_PERIOD_US = 1000;
const DEFAULT_PERIOD_US = 100_000;

// Kubernetes' defaults for a non-privileged container: kernel interfaces masked or read-only.
const MASKED_PATHS = [
  '/proc/asound', '/proc/acpi', '/proc/kcore', '/proc/keys', '/proc/latency_stats', '/proc/timer_list',
  '/proc/timer_stats', '/proc/sched_debug', '/proc/scsi', '/sys/firmware', '/sys/devices/virtual/powercap',
];
const READONLY_PATHS = ['/proc/bus', '/proc/fs', '/proc/irq', '/proc/sys', '/proc/sysrq-trigger'];

/** A container's waiting reason as a StatusError (reason `CreateContainerConfigError`): the spec cannot be run as written. */
export function createContainerConfigError(message: string): StatusError {
  const error = new StatusError({ reason: 'BadRequest', message });
  // The contract's waiting reasons are not HTTP reasons; the sync reads this one from `waitingReason`.
  Object.defineProperty(error, 'waitingReason', { value: 'CreateContainerConfigError' });
  return error;
}

/**
 * The CRI config of one container instance: the contract's labels and annotations, log path
 * `<name>/<restartCount>.log`, command/args/workingDir as given (the image's entrypoint when
 * absent), resources into cgroup settings, and the merged pod + container security context.
 * Throws a `CreateContainerConfigError` when runAsNonRoot cannot hold.
 */
export function containerConfig(pod: Pod, container: Container, inputs: ContainerInputs, options: ContainerConfigOptions): Input<ContainerConfig> {
  const grace = pod.spec.terminationGracePeriodSeconds ?? 30;
  return {
    metadata: { name: container.name, attempt: inputs.restartCount },
    image: { image: inputs.imageRef, userSpecifiedImage: container.image },
    command: container.command ?? [],
    args: container.args ?? [],
    workingDir: container.workingDir ?? '',
    envs: inputs.envs,
    mounts: inputs.mounts,
    labels: { ...podLabels(pod), [CONTAINER_NAME_LABEL]: container.name },
    annotations: {
      [CONTAINER_RESTART_COUNT_ANNOTATION]: String(inputs.restartCount),
      [CONTAINER_HASH_ANNOTATION]: containerHash(container),
      [POD_TERMINATION_GRACE_PERIOD_ANNOTATION]: String(grace),
    },
    logPath: containerLogPath(container.name, inputs.restartCount),
    stdin: container.stdin ?? false,
    stdinOnce: container.stdinOnce ?? false,
    tty: container.tty ?? false,
    linux: { resources: { ...containerResources(pod, container, options), ...inputs.cpuset }, securityContext: securityContext(pod, container, inputs) },
  };
}

/**
 * cgroup settings as the kubelet computes them: CPU shares from the request (2 when none),
 * a CFS quota from the limit over `--cpu-cfs-quota-period`, the memory limit in bytes, and an OOM
 * score by QoS class (Guaranteed −997, BestEffort 1000, Burstable between 2 and 999 by the share of
 * node memory requested).
 */
export function containerResources(pod: Pod, container: Container, options: ContainerConfigOptions): Input<LinuxContainerResources> {
  const cpuRequest = requestOf(container, 'cpu');
  const cpuLimit = limitOf(container, 'cpu');
  const memoryLimit = limitOf(container, 'memory');
  const shares = cpuRequest === undefined ? MIN_SHARES : Math.min(MAX_SHARES, Math.max(MIN_SHARES, Math.floor(cpuRequest * SHARES_PER_CPU)));
  const resources: { -readonly [K in keyof Input<LinuxContainerResources>]: Input<LinuxContainerResources>[K] } = { cpuShares: shares };
  if (cpuLimit !== undefined && options.cpuCfsQuota !== false) {
    const period = options.cpuCfsQuotaPeriodUs ?? DEFAULT_PERIOD_US;
    resources.cpuPeriod = period;
    resources.cpuQuota = Math.max(MIN_QUOTA_PERIOD_US, Math.floor(cpuLimit * period));
  }
  if (memoryLimit !== undefined) resources.memoryLimitInBytes = Math.floor(memoryLimit);
  resources.oomScoreAdj = oomScoreAdj(pod, container, options.nodeMemoryBytes);
  return resources;
}

function oomScoreAdj(pod: Pod, container: Container, nodeMemoryBytes: number): number {
  const qos = podQosClass(pod.spec);
  if (qos === 'Guaranteed') return -997;
  if (qos === 'BestEffort') return 1000;
  const request = requestOf(container, 'memory') ?? 0;
  const score = 1000 - Math.floor((1000 * request) / Math.max(1, nodeMemoryBytes));
  return Math.min(999, Math.max(2, score));
}

/** Pod-level `runAsUser`, `runAsGroup`, `runAsNonRoot`, `supplementalGroups`, overridden by the container's. */
export function securityContext(pod: Pod, container: Container, inputs: Pick<ContainerInputs, 'imageUser'>): Input<LinuxContainerSecurityContext> {
  const podContext = looseObject(pod.spec.securityContext);
  const own = looseObject(container.securityContext);
  const pick = (key: string): number | undefined => looseInt(own, key) ?? looseInt(podContext, key);
  const runAsUser = pick('runAsUser');
  const runAsGroup = pick('runAsGroup');
  const runAsNonRoot = looseBool(own, 'runAsNonRoot') ?? looseBool(podContext, 'runAsNonRoot') ?? false;
  if (runAsNonRoot) verifyNonRoot(runAsUser, inputs.imageUser);
  const privileged = looseBool(own, 'privileged') ?? false;
  const capabilities: Loose = looseObject(own?.['capabilities']);
  const groups = podContext?.['supplementalGroups'];
  return {
    privileged,
    readonlyRootfs: looseBool(own, 'readOnlyRootFilesystem') ?? false,
    capabilities: { addCapabilities: looseStrings(capabilities, 'add'), dropCapabilities: looseStrings(capabilities, 'drop') },
    ...(runAsUser !== undefined ? { runAsUser: { value: runAsUser } } : {}),
    ...(runAsGroup !== undefined ? { runAsGroup: { value: runAsGroup } } : {}),
    supplementalGroups: Array.isArray(groups) ? groups.filter((g): g is number => Number.isInteger(g)) : [],
    noNewPrivs: looseBool(own, 'allowPrivilegeEscalation') === false,
    namespaceOptions: {
      network: pod.spec.hostNetwork ? 'NODE' : 'POD',
      pid: pod.spec.hostPID ? 'NODE' : pod.spec.shareProcessNamespace ? 'POD' : 'CONTAINER',
      ipc: pod.spec.hostIPC ? 'NODE' : 'POD',
    },
    maskedPaths: privileged ? [] : MASKED_PATHS,
    readonlyPaths: privileged ? [] : READONLY_PATHS,
  };
}

/** The kubelet's check: root by uid 0, or by an image user that is not numeric (it cannot be told). */
function verifyNonRoot(runAsUser: number | undefined, imageUser: ContainerInputs['imageUser']): void {
  if (runAsUser !== undefined) {
    if (runAsUser === 0) throw createContainerConfigError('container has runAsNonRoot and runAsUser is 0 (root)');
    return;
  }
  const username = imageUser?.username ?? '';
  if (username !== '' && !/^\d+$/.test(username)) {
    throw createContainerConfigError(`container has runAsNonRoot and the image has a non-numeric user (${username}), cannot verify user is non-root`);
  }
  const uid = username !== '' ? Number(username) : (imageUser?.uid ?? 0);
  if (uid === 0) throw createContainerConfigError('container has runAsNonRoot and image will run as root');
}
