import { mkdir, realpath } from 'node:fs/promises';
import { bindMount, makeRShared, mountOf } from './mount-table.js';

/**
 * Makes the agent's root dir a shared mount, as the kubelet does at start: the container runtime
 * accepts a volume mount with `HostToContainer` propagation only from a shared or slave mount and
 * `Bidirectional` only from a shared one, and a host whose `/` is private (containers, some
 * distributions) has neither. When the mount holding `rootDir` is already shared nothing changes;
 * otherwise `rootDir` is bind-mounted onto itself (unless it is a mount point already) and made
 * rshared. Needs root. Returns whether it changed anything.
 */
export async function shareRootDir(rootDir: string): Promise<boolean> {
  await mkdir(rootDir, { recursive: true });
  const dir = await realpath(rootDir);
  const mount = await mountOf(dir);
  if (mount.propagation.some((tag) => tag.startsWith('shared:'))) return false;
  if (mount.point !== dir) await bindMount(dir, dir);
  await makeRShared(dir);
  return true;
}
