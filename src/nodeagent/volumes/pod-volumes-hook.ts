import type { Container, Pod } from '../../api/index.js';
import type * as T from '../cri/types.js';
import type { PodObjectReader } from './object-reader.js';
import { setUpPodVolumes, tearDownPodVolumes } from './pod-volumes.js';
import { resolveEnv } from './resolve-env.js';

export interface PodVolumesHookOptions {
  readonly rootDir: string;
  readonly nodeName: string;
  /** The node's IP, `status.hostIP` of env. */
  readonly hostIP: string;
  /** The node's allocatable now (it changes with the node status). */
  readonly nodeAllocatable: () => Readonly<Record<string, string>>;
  readonly objects: PodObjectReader;
  /** The clock of projected-token renewal; default Date.now. */
  readonly now?: () => number;
}

/** The pod workers' volumes-and-env hook (src/nodeagent/pods `PodVolumesHook`), by shape. */
export interface PodVolumesHookShape {
  setUp(pod: Pod): Promise<{ mounts(container: Container): T.Mount[] }>;
  tearDown(podUid: string): Promise<void>;
  resolveEnv(pod: Pod, container: Container, podIP: string | undefined, podIPs: readonly string[]): Promise<{ key: string; value: string }[]>;
}

/**
 * This folder bound to one node, in the shape the pod workers call: `setUp` → `setUpPodVolumes`,
 * `tearDown` → `tearDownPodVolumes`, `resolveEnv` → `resolveEnv`. The env last resolved for a
 * container object is remembered (weakly) so that its `mounts` can expand `subPathExpr`, which the
 * workers' `mounts(container)` cannot pass.
 */
export function podVolumesHook(options: PodVolumesHookOptions): PodVolumesHookShape {
  const envs = new WeakMap<Container, readonly { key: string; value: string }[]>();
  return {
    async setUp(pod) {
      const volumes = await setUpPodVolumes(pod, {
        rootDir: options.rootDir,
        nodeName: options.nodeName,
        objects: options.objects,
        nodeAllocatable: options.nodeAllocatable(),
        ...(options.now ? { now: options.now } : {}),
      });
      return { mounts: (container) => volumes.mounts(container, envs.get(container)) };
    },
    tearDown: (podUid) => tearDownPodVolumes(options.rootDir, podUid),
    async resolveEnv(pod, container, podIP, podIPs) {
      const env = await resolveEnv({
        pod,
        container,
        nodeName: options.nodeName,
        hostIP: options.hostIP,
        podIP,
        podIPs,
        nodeAllocatable: options.nodeAllocatable(),
        objects: options.objects,
      });
      envs.set(container, env);
      return env;
    },
  };
}
