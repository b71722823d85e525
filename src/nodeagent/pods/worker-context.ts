import type { Container, Pod, PodStatus } from '../../api/index.js';
import type { ContainerStatus, CriClient } from '../cri/index.js';
import type { EventRecorder } from '../../client/index.js';
import type { ContainerConfigOptions } from './container-config.js';
import type { CrashLoopBackoff } from './crash-loop-backoff.js';
import type { ImageManager } from '../images/index.js';
import type { ProbeManager } from '../probes/index.js';
import type { PodRuntime } from './pod-runtime.js';
import type { PodVolumesAccess } from './pod-volumes-access.js';
import type { SandboxConfigOptions } from './sandbox-config.js';
import type { StatusWriter } from './status-writer.js';

/** A pod worker's state: syncing (running it), terminating (stopping it), terminated (stopped, its object not yet gone). */
export type PodWorkerState = 'syncing' | 'terminating' | 'terminated';

/** What the workers keep per pod UID. */
export interface PodEntry {
  /** The latest pod from the sources. */
  pod: Pod;
  state: PodWorkerState;
  /** REMOVEd by its source: stop it, then forget it. */
  removed: boolean;
  /** The status last computed (what `AgentPodView` shows). */
  status: PodStatus | undefined;
  /** The API server's status from the last RECONCILE, until the next write. */
  apiStatus: PodStatus | undefined;
  /** Failed syncs in a row (a container that could not be created), for the retry delay. */
  failures: number;
  /** Refused at admission by the resource managers: never run; its status is Failed with their reason. */
  rejected?: boolean | undefined;
  /** Set by the eviction manager: kill with this grace, then Failed with reason Evicted. */
  eviction?: PodEviction | undefined;
  /** Bumped whenever the pod's runtime may have changed (pod-runtime-cache.ts). */
  runtimeEpoch?: number | undefined;
  /** The pod's runtime as a sync last read it, in the epoch it was read in (pod-runtime-cache.ts). */
  runtime?: { readonly epoch: number; readonly value: PodRuntime } | undefined;
  /** What the last sync's status was computed from (the pod weakly: a newer version lets it go), and that status, once written (or found written). */
  reported?: { readonly pod: WeakRef<Pod>; readonly runtime: PodRuntime; readonly status: PodStatus } | undefined;
}

/** An eviction the worker carries out: the pod is stopped for good and its object kept, Failed. */
export interface PodEviction {
  readonly gracePeriodSeconds: number;
  readonly message: string;
  /** Resolved once the pod's containers are stopped and its status written. */
  readonly done: () => void;
}

/**
 * The resource managers as the workers use them (src/nodeagent/resource-managers): admission of
 * a new pod, the cpuset a container is created with, and the release of a stopped pod.
 */
export interface PodResources {
  admit(pod: Pod): { readonly admit: boolean; readonly reason?: string | undefined; readonly message?: string | undefined; readonly sharedPoolChanged?: boolean };
  containerCpuset(pod: Pod, container: Container): { readonly cpusetCpus?: string; readonly cpusetMems?: string };
  removePod(uid: string): void;
}

/** Everything a sync needs besides the pod. */
export interface WorkerContext {
  readonly cri: CriClient;
  readonly signal: AbortSignal;
  readonly sandbox: SandboxConfigOptions;
  readonly container: ContainerConfigOptions;
  readonly hostIPs: readonly string[];
  readonly runtimeName: string;
  readonly backoff: CrashLoopBackoff;
  /** Exited containers' statuses by id: they never change. */
  readonly exited: Map<string, ContainerStatus>;
  readonly statusWriter: StatusWriter | undefined;
  readonly volumes: PodVolumesAccess;
  /** Without one: ImageStatus, then PullImage when the image is absent. */
  readonly images: ImageManager | undefined;
  readonly probes: ProbeManager | undefined;
  readonly events: EventRecorder | undefined;
  readonly resources: PodResources | undefined;
}

export function podEvent(context: WorkerContext, pod: Pod, type: 'Normal' | 'Warning', reason: string, message: string): void {
  context.events?.record(
    { apiVersion: 'v1', kind: 'Pod', name: pod.metadata.name ?? '', namespace: pod.metadata.namespace ?? 'default', uid: pod.metadata.uid },
    type,
    reason,
    message,
  );
}
