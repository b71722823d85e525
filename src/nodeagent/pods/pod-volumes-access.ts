import type { Container, Pod, Secret } from '../../api/index.js';
import { StatusError } from '../../api/index.js';
import type { Input, Mount } from '../cri/index.js';
import { forgetPodPayloads, resolveEnv, setUpPodVolumes, tearDownPodVolumes, type PodObjectReader } from '../volumes/index.js';

/** What a sync uses of src/nodeagent/volumes, bound to the agent's root dir, node and API access. */
export interface PodVolumesAccess {
  /** Sets up (or refreshes) the pod's volumes; called before the sandbox and on every sync. */
  setUp(pod: Pod): Promise<{ mounts(container: Container, env: readonly { key: string; value: string }[]): Input<Mount>[] }>;
  /** Removes the pod's volumes once its containers are gone. */
  tearDown(podUid: string): Promise<void>;
  /** The container's environment, references resolved. */
  resolveEnv(pod: Pod, container: Container, podIP: string | undefined, podIPs: readonly string[]): Promise<{ key: string; value: string }[]>;
  /** The pod's imagePullSecrets that exist (a missing one is skipped, as the kubelet). */
  pullSecrets(pod: Pod): Promise<Secret[]>;
}

/**
 * Standalone mode has no API server: a static pod that names a ConfigMap or Secret finds none
 * (`optional` ones are left out, the rest fail with CreateContainerConfigError), and no token.
 */
export const noApiObjects: PodObjectReader = {
  configMap: () => Promise.resolve(undefined),
  secret: () => Promise.resolve(undefined),
  serviceAccountToken: () => Promise.reject(new StatusError({ reason: 'ServiceUnavailable', message: 'no API server: the node agent runs standalone' })),
};

export function podVolumesAccess(options: {
  readonly rootDir: string;
  readonly nodeName: string;
  readonly hostIP: string;
  readonly objects: PodObjectReader;
  readonly nodeAllocatable: Readonly<Record<string, string>>;
  /** false: no tmpfs for memory-backed volumes (a hollow node's); default true. */
  readonly memoryBacked?: boolean | undefined;
  /** true: an unchanged volume payload is not compared with its files or written again (`PodVolumesContext.writtenPayloads`; a hollow node's). */
  readonly rememberWrites?: boolean | undefined;
  /** false: the volumes' payloads are made but no file is written (`PodVolumesContext.writeFiles`; a hollow node's; implies `rememberWrites`); default true. */
  readonly writeFiles?: boolean | undefined;
}): PodVolumesAccess {
  const { rootDir, nodeName, hostIP, objects, nodeAllocatable } = options;
  const memoryBacked = options.memoryBacked ?? true;
  const writeFiles = options.writeFiles ?? true;
  // Without files the tokens are remembered in memory or not at all.
  const writtenPayloads = options.rememberWrites || !writeFiles ? new Map<string, string>() : undefined;
  return {
    setUp: (pod) => setUpPodVolumes(pod, { rootDir, nodeName, objects, nodeAllocatable, memoryBacked, writeFiles, ...(writtenPayloads ? { writtenPayloads } : {}) }),
    tearDown: async (uid) => {
      if (writtenPayloads) forgetPodPayloads(writtenPayloads, rootDir, uid);
      if (writeFiles) await tearDownPodVolumes(rootDir, uid);
    },
    resolveEnv: (pod, container, podIP, podIPs) => resolveEnv({ pod, container, nodeName, hostIP, podIP, podIPs, nodeAllocatable, objects }),
    pullSecrets: async (pod) => {
      const namespace = pod.metadata.namespace ?? 'default';
      const found = await Promise.all((pod.spec.imagePullSecrets ?? []).map((ref) => (ref.name ? objects.secret(namespace, ref.name) : undefined)));
      return found.filter((secret) => secret !== undefined);
    },
  };
}
