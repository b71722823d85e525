import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

// mountinfo escapes space, tab, newline and backslash in paths as octal (\040).
const unescapeMountPath = (path: string) => path.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));

/** Mount points at or under `dir` (one entry per stacked mount), deepest first: the order to unmount them in. */
export async function mountsUnder(dir: string): Promise<string[]> {
  const table = await readFile('/proc/self/mountinfo', 'utf8');
  const prefix = dir.endsWith('/') ? dir : `${dir}/`;
  const points: string[] = [];
  for (const line of table.split('\n')) {
    const point = line.split(' ')[4];
    if (point === undefined) continue;
    const path = unescapeMountPath(point);
    if (path === dir || path.startsWith(prefix)) points.push(path);
  }
  return points.sort((a, b) => b.length - a.length);
}

export async function isMountPoint(dir: string): Promise<boolean> {
  return (await mountsUnder(dir)).includes(dir);
}

/**
 * Mounts a tmpfs on `dir`, `sizeBytes` bounding it when given. Needs root (CAP_SYS_ADMIN); the
 * caller decides what to do when that fails.
 */
export async function mountTmpfs(dir: string, sizeBytes: number | undefined): Promise<void> {
  const options = sizeBytes !== undefined && sizeBytes > 0 ? ['-o', `size=${Math.ceil(sizeBytes)}`] : [];
  await run('mount', ['-t', 'tmpfs', ...options, 'tmpfs', dir]);
}

export async function unmount(dir: string): Promise<void> {
  await run('umount', [dir]);
}
