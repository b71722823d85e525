/**
 * A private containerd for tests: its own root, state and socket under a temp directory, the CRI
 * plugin with svc's pause image, a bridge CNI network on a free /24, and svc's local busybox and
 * pause images imported. `stop()` removes everything it started — sandboxes (and with them
 * their network namespaces), containerd, any shim still serving its socket, mounts under its
 * directory, the bridge — so no containerd, shim or network namespace outlives the tests.
 * containerd is required: when a binary is missing this throws (suites fail, never skip).
 */
import { mkdirSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { join } from 'node:path';
import {
  DEFAULT_CNI_BIN_DIR,
  buildLocalImages,
  defaultImageCacheDir,
  freePodCidr,
  importImageArchive,
  missingNodeDependencies,
  netnsPathOf,
  startContainerdProcess,
  type ContainerdLeftovers,
  type CriClient,
  type LocalImages,
  type RegistryConfig,
} from '../../src/nodeagent/index.js';

export const CNI_BIN_DIR = DEFAULT_CNI_BIN_DIR;
export { netnsPathOf };

export type Leftovers = ContainerdLeftovers;

export interface RunningContainerd {
  readonly dir: string;
  /** The gRPC socket path; the CRI endpoint is `unix://<address>`. */
  readonly address: string;
  readonly endpoint: string;
  readonly snapshotter: 'overlayfs' | 'native';
  readonly podCidr: string;
  readonly bridge: string;
  /** Where sandboxes in tests put their logs. */
  readonly logRoot: string;
  readonly images: LocalImages;
  readonly cri: CriClient;
  /** What of this containerd's would remain if the tests stopped now. */
  leftovers(): Leftovers;
  stop(): Promise<void>;
}

export interface StartContainerdOptions {
  /** Import svc's busybox and pause images (default true). */
  readonly importImages?: boolean;
  /** Registry mirrors, credentials and TLS (a registries.yaml), written into its config. */
  readonly registries?: RegistryConfig;
}

export async function startContainerd(options: StartContainerdOptions = {}): Promise<RunningContainerd> {
  const missing = missingNodeDependencies(CNI_BIN_DIR);
  if (missing.length > 0) {
    throw new Error(`this suite needs ${missing.map((m) => `${m.name} (${m.install})`).join(', ')}; scripts/provision.mjs installs them`);
  }
  const images = buildLocalImages(defaultImageCacheDir());
  const dir = await mkdtemp('/tmp/svc-containerd-');
  const logRoot = join(dir, 'pod-logs');
  mkdirSync(logRoot, { recursive: true });
  const bridge = `svcbr${Math.random().toString(16).slice(2, 8)}`;
  const containerd = await startContainerdProcess({ dir, podCidr: freePodCidr(), bridge, sandboxImage: images.pause.ref, criTimeoutMs: 60_000, ...(options.registries ? { registries: options.registries } : {}) });
  const stop = () => containerd.stop({ removeDir: true });
  try {
    if (options.importImages ?? true) {
      for (const image of [images.pause, images.busybox]) await importImageArchive({ address: containerd.address, archive: image.path, snapshotter: containerd.snapshotter });
    }
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
  return {
    dir,
    address: containerd.address,
    endpoint: containerd.endpoint,
    snapshotter: containerd.snapshotter,
    podCidr: containerd.podCidr,
    bridge,
    logRoot,
    images,
    cri: containerd.cri,
    leftovers: () => containerd.leftovers(),
    stop,
  };
}
