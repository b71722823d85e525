import { rm } from 'node:fs/promises';
import { z } from 'zod';
import type { Container, Pod } from '../../api/index.js';
import { StatusError } from '../../api/index.js';
import type * as T from '../cri/types.js';
import { containerMounts } from './container-mounts.js';
import { mountsUnder, unmount } from './mount-table.js';
import type { PodObjectReader } from './object-reader.js';
import { podDirOf } from './paths.js';
import { setUpVolume, type PreparedVolume } from './set-up-volume.js';

export interface PodVolumes {
  readonly podDir: string;
  /**
   * CRI mounts for the container's volumeMounts (subPath, readOnly, propagation). `env` (the
   * container's resolved environment) expands `subPathExpr`; without it its `$(VAR)`s stay as written.
   */
  mounts(container: Container, env?: readonly { key: string; value: string }[]): T.Mount[];
}

export interface PodVolumesContext {
  rootDir: string;
  nodeName: string;
  objects: PodObjectReader;
  /** Node allocatable, for downwardAPI `limits.*` of a container without a limit (else they read 0). */
  nodeAllocatable?: Readonly<Record<string, string>>;
  /** The clock that decides when a projected token is due (ms since the epoch). Default: Date.now. */
  now?: () => number;
  /**
   * false: memory-backed volumes (secrets, projected tokens, emptyDir Memory) are plain directories,
   * never a tmpfs. A hollow node's (thousands of pods of simulated containers need no mount each);
   * default true, the kubelet's way.
   */
  memoryBacked?: boolean;
  /**
   * What this process last wrote to each API-data volume dir (ConfigMap, Secret, projected,
   * downwardAPI), by a digest of the payload, and the projected tokens it wrote: a dir whose
   * payload is unchanged is neither read back nor written at the next sync, and a token is not
   * read back from its file to see whether it is due. Only for a root dir nothing else writes to (a hollow
   * node's: nothing reads its volumes, and the per-sync compare with the files was a fifth of its
   * CPU in a density run); default none, the kubelet's way (the files are compared every sync).
   * Keys of a pod's dirs are dropped by `forgetPodPayloads`.
   */
  writtenPayloads?: Map<string, string>;
  /**
   * false: nothing is written under the pod's dir (a hollow node's). Each volume's payload is
   * still made as the daemon makes it — its ConfigMaps and Secrets read, its token requested, a
   * missing source a `FailedMount` — but no directory, file or symlink is made, and
   * the mounts name the paths the daemon would have written. Nothing reads a hollow node's
   * volumes, and their first write (mkdir, mkdtemp, files, symlink, lstat, chmod per volume) was
   * 13 % of its CPU in a density run. Projected tokens are then remembered only through
   * `writtenPayloads`. Default true, the kubelet's way.
   */
  writeFiles?: boolean;
}

/**
 * Creates/refreshes every volume of the pod under <rootDir>/pods/<uid>/volumes/...; idempotent,
 * called on every sync (refreshes configMap/secret/projected/downwardAPI content atomically).
 * Throws StatusError (reason `CreateContainerConfigError` / `FailedMount`) on a missing
 * non-optional source.
 *
 * Every volume is set up even when one fails, so one bad volume does not hold the others' content
 * back; the first failure is thrown after.
 */
export async function setUpPodVolumes(pod: Pod, ctx: PodVolumesContext): Promise<PodVolumes> {
  const podDir = podDirOf(ctx.rootDir, checkedUid(pod.metadata.uid));
  const volumeCtx = {
    pod,
    podDir,
    objects: ctx.objects,
    nodeAllocatable: ctx.nodeAllocatable ?? {},
    now: (ctx.now ?? Date.now)(),
    fsGroup: fsGroupOf(pod),
    memoryBacked: ctx.memoryBacked ?? true,
    writtenPayloads: ctx.writtenPayloads,
    writeFiles: ctx.writeFiles ?? true,
  };
  const prepared = new Map<string, PreparedVolume>();
  let failure: unknown;
  for (const volume of pod.spec.volumes ?? []) {
    try {
      prepared.set(volume.name, await setUpVolume(volume, volumeCtx));
    } catch (error) {
      failure ??= error;
    }
  }
  if (failure !== undefined) throw failure;
  return {
    podDir,
    mounts: (container, env) => containerMounts(container, prepared, env),
  };
}

/**
 * Unmounts what the agent mounted under the pod's directory (memory-backed volumes) and removes
 * the directory. hostPath volumes are never under it, so their content is never touched. If a
 * mount cannot be undone, nothing is removed (removing through a live mount would delete its
 * content) and the error is thrown for the next attempt.
 */
export async function tearDownPodVolumes(rootDir: string, podUid: string): Promise<void> {
  const podDir = podDirOf(rootDir, checkedUid(podUid));
  for (const point of await mountsUnder(podDir)) await unmount(point);
  const left = await mountsUnder(podDir);
  if (left.length > 0) {
    throw new StatusError({ reason: 'InternalError', message: `cannot remove the volumes of pod ${podUid}: still mounted: ${left.join(', ')}` });
  }
  await rm(podDir, { recursive: true, force: true });
}

/** Drops what `writtenPayloads` remembers of a pod's volume dirs (its volumes were torn down). */
export function forgetPodPayloads(writtenPayloads: Map<string, string>, rootDir: string, podUid: string): void {
  const prefix = `${podDirOf(rootDir, podUid)}/`;
  for (const dir of writtenPayloads.keys()) if (dir.startsWith(prefix)) writtenPayloads.delete(dir);
}

// The uid names a directory: it must be one path segment.
function checkedUid(uid: string | undefined): string {
  if (!uid || uid.includes('/') || uid === '.' || uid === '..') {
    throw new StatusError({ reason: 'FailedMount', message: `pod uid ${JSON.stringify(uid ?? '')} cannot name a volume directory` });
  }
  return uid;
}

const fsGroupSchema = z.looseObject({ fsGroup: z.int().min(0).optional() });

// A malformed fsGroup fails the pod rather than leaving its volumes unshared with the group it named.
function fsGroupOf(pod: Pod): number | undefined {
  const context: unknown = pod.spec.securityContext;
  // None, the usual case, asks no parse (this runs at every sync of every pod).
  if (context === undefined || context === null || (typeof context === 'object' && (context as { fsGroup?: unknown }).fsGroup === undefined)) return undefined;
  const parsed = fsGroupSchema.safeParse(context);
  if (!parsed.success) throw new StatusError({ reason: 'FailedMount', message: `invalid securityContext.fsGroup: ${JSON.stringify((pod.spec.securityContext as { fsGroup?: unknown }).fsGroup)}` });
  return parsed.data.fsGroup;
}
