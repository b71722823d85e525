import { chmod, chown, mkdir, stat } from 'node:fs/promises';
import { isMountPoint, mountTmpfs } from './mount-table.js';

export interface VolumeDirOptions {
  /** Back the directory with a tmpfs (memory), bounded by `sizeBytes` when given. */
  readonly memory: boolean;
  readonly sizeBytes?: number | undefined;
  /** Permission bits of the directory. */
  readonly mode: number;
  /** The pod's fsGroup: the directory gets this group and setgid, so what is created in it does too. */
  readonly fsGroup?: number | undefined;
}

/**
 * Creates a volume's directory, memory-backed when asked: a tmpfs is mounted on it once (a re-sync
 * finds it mounted). Mounting needs root; an agent that cannot mount gets a plain directory on the
 * root-dir's filesystem instead (documented in docs/node-agent.md). Returns whether it is a tmpfs.
 */
export async function ensureVolumeDir(dir: string, options: VolumeDirOptions): Promise<boolean> {
  await mkdir(dir, { recursive: true });
  let tmpfs = false;
  if (options.memory) {
    tmpfs = await isMountPoint(dir);
    if (!tmpfs) {
      tmpfs = await mountTmpfs(dir, options.sizeBytes).then(
        () => true,
        () => false,
      );
    }
  }
  if (options.fsGroup !== undefined) await chown(dir, (await stat(dir)).uid, options.fsGroup);
  await chmod(dir, options.fsGroup === undefined ? options.mode : options.mode | 0o2000);
  return tmpfs;
}
