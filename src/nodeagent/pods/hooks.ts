import type { Observable } from 'rxjs';
import type { Container, Pod } from '../../api/index.js';
import type { CriClient, Input, Mount } from '../cri/index.js';

/**
 * What the pod workers need from the other parts of the agent, by shape: volumes and env
 * (src/nodeagent/volumes), probes and lifecycle handlers (src/nodeagent/probes), images
 * (src/nodeagent/images). Each is optional; without it the workers do the simple thing
 * (literal env only, no volumes, no probes, ImageStatus then PullImage).
 */
export interface PodVolumesHook {
  /** Sets up (or refreshes) the pod's volumes; called before the sandbox and on every sync. */
  setUp(pod: Pod): Promise<{ mounts(container: Container): Input<Mount>[] }>;
  /** Removes the pod's volumes once its containers are gone. */
  tearDown(podUid: string): Promise<void>;
  /** The container's environment, references resolved. */
  resolveEnv(pod: Pod, container: Container, podIP: string | undefined, podIPs: readonly string[]): Promise<{ key: string; value: string }[]>;
}

export interface ImagesHook {
  ensureImage(pod: Pod, container: Container): Promise<{ imageRef: string }>;
}

export interface ProbeTargetShape {
  readonly pod: Pod;
  readonly container: Container;
  readonly containerId: string;
  readonly podIP: string | undefined;
}

export interface ProbeResultShape {
  readonly podUid: string;
  readonly containerName: string;
  readonly containerId: string;
  readonly kind: 'startup' | 'liveness' | 'readiness';
  readonly result: 'success' | 'failure';
  readonly message?: string | undefined;
}

/** The ProbeManager's surface the workers use. */
export interface ProbesHook {
  start(target: ProbeTargetShape): void;
  stop(podUid: string, containerName?: string): void;
  readonly results$: Observable<ProbeResultShape>;
  ready(podUid: string, containerName: string): boolean;
  started(podUid: string, containerName: string): boolean;
}

/** Runs a postStart/preStop handler; throws on failure. */
export type LifecycleRunner = (
  handler: Readonly<Record<string, unknown>>,
  target: ProbeTargetShape,
  options: { cri: CriClient; timeoutSeconds: number; signal?: AbortSignal },
) => Promise<void>;
