import { execFile } from 'node:child_process';
import { readFile, realpath } from 'node:fs/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** One line of /proc/self/mountinfo, as far as the agent needs it. */
export interface MountEntry {
  readonly point: string;
  /** Propagation tags: `shared:N`, `master:N`, `unbindable`; none for a private mount. */
  readonly propagation: readonly string[];
}

// mountinfo escapes space, tab, newline and backslash in paths as octal (\040).
const unescapeMountPath = (path: string) => path.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));

export async function readMountTable(): Promise<MountEntry[]> {
  const table = await readFile('/proc/self/mountinfo', 'utf8');
  const entries: MountEntry[] = [];
  for (const line of table.split('\n')) {
    const fields = line.split(' ');
    const point = fields[4];
    if (point === undefined) continue;
    const end = fields.indexOf('-', 6);
    entries.push({ point: unescapeMountPath(point), propagation: fields.slice(6, end < 0 ? undefined : end) });
  }
  return entries;
}

/**
 * Mount points at or under `dir` (one entry per stacked mount), deepest first: the order to
 * unmount them in. The kernel lists resolved paths, so `dir` is resolved first (a root dir under a
 * symlink must still find its mounts); a `dir` that does not exist has none.
 */
export async function mountsUnder(path: string): Promise<string[]> {
  const dir = await realpath(path).catch(() => undefined);
  if (dir === undefined) return [];
  const prefix = dir.endsWith('/') ? dir : `${dir}/`;
  return (await readMountTable())
    .map((entry) => entry.point)
    .filter((point) => point === dir || point.startsWith(prefix))
    .sort((a, b) => b.length - a.length);
}

export async function isMountPoint(path: string): Promise<boolean> {
  const dir = await realpath(path).catch(() => undefined);
  return dir !== undefined && (await mountsUnder(dir)).includes(dir);
}

/** The mount `path` lives on: the last-mounted entry with the longest mount point containing it. */
export async function mountOf(path: string): Promise<MountEntry> {
  const dir = await realpath(path);
  let found: MountEntry | undefined;
  for (const entry of await readMountTable()) {
    const contains = entry.point === '/' || dir === entry.point || dir.startsWith(`${entry.point}/`);
    if (contains && (!found || entry.point.length >= found.point.length)) found = entry;
  }
  if (!found) throw new Error(`no mount holds ${dir}`);
  return found;
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

export async function bindMount(source: string, target: string): Promise<void> {
  await run('mount', ['--bind', source, target]);
}

export async function makeRShared(dir: string): Promise<void> {
  await run('mount', ['--make-rshared', dir]);
}
