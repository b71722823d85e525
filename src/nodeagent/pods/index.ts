// Pod workers: running the agent's pods through the CRI runtime, and their status.
export { startPodWorkers } from './pod-workers.js';
export type { AgentPodView, PodWorkersHandle, PodWorkersOptions } from './pod-workers.js';
export type { PodResources, PodWorkerState } from './worker-context.js';
export { noApiObjects, podVolumesAccess } from './pod-volumes-access.js';
export type { PodVolumesAccess } from './pod-volumes-access.js';
export { sandboxConfig, dnsConfigOf, podHostname, portMappingsOf } from './sandbox-config.js';
export type { SandboxConfigOptions } from './sandbox-config.js';
export { containerConfig, containerResources, securityContext, createContainerConfigError } from './container-config.js';
export type { ContainerConfigOptions, ContainerInputs } from './container-config.js';
export { CrashLoopBackoff, backoffKey } from './crash-loop-backoff.js';
export type { CrashLoopBackoffOptions } from './crash-loop-backoff.js';
export { computePodStatus } from './pod-status.js';
export type { PodStatusInputs, WaitingReason } from './pod-status.js';
export { readPodRuntime, latestContainer, previousContainer } from './pod-runtime.js';
export type { PodRuntime, RuntimeContainer } from './pod-runtime.js';
export { relist } from './relister.js';
export type { RelistOptions, RuntimeFingerprints } from './relister.js';
export { StatusWriter, statusFingerprint } from './status-writer.js';
export {
  CONTAINER_HASH_ANNOTATION,
  CONTAINER_RESTART_COUNT_ANNOTATION,
  POD_TERMINATION_GRACE_PERIOD_ANNOTATION,
  containerHash,
  containerLogPath,
  podLabels,
  podLogDirectory,
} from './runtime-labels.js';
