import { chmod, chown, lstat, mkdir, mkdtemp, readFile, readdir, readlink, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join, posix } from 'node:path';

/** One file of a volume's content: its bytes and its permission bits. */
export interface FileProjection {
  readonly data: Buffer;
  readonly mode: number;
}

/** A volume's content: relative path ⇒ file. */
export type Payload = ReadonlyMap<string, FileProjection>;

export interface WriteOptions {
  /**
   * The pod's `securityContext.fsGroup`: every file and directory written gets this group, files
   * gain group read (0440) and directories group read/search and setgid (02550), as the kubelet's
   * volume ownership does for read-only volumes.
   */
  readonly fsGroup?: number | undefined;
}

const DATA_LINK = '..data';
const DIR_MODE = 0o755;
const FS_GROUP_FILE_BITS = 0o440;
const FS_GROUP_DIR_BITS = 0o2550;
const DATA_LINK_TMP = '..data_tmp';
const MAX_PATH = 4096;
const MAX_SEGMENT = 255;

/**
 * Writes `payload` into `targetDir` so that a reader never sees half of an update, as the kubelet's
 * atomic writer does:
 *
 * 1. the files go into a fresh hidden directory `..<timestamp>.<random>`;
 * 2. a symlink `..data_tmp` → that directory is renamed over `..data` (rename is atomic);
 * 3. each top-level name the user sees is a symlink through `..data` (`key` → `..data/key`), so it
 *    switches to the new content with the rename;
 * 4. names no longer in the payload and the previous timestamped directory are removed.
 *
 * When the content and modes are already those of `payload`, nothing is written. Returns whether
 * it wrote. A path that is absolute, holds `..` or starts with `..` is refused (an Error naming it).
 */
export async function writeAtomically(targetDir: string, payload: Payload, options: WriteOptions = {}): Promise<boolean> {
  for (const path of payload.keys()) validatePayloadPath(path);
  await mkdir(targetDir, { recursive: true });
  const { fsGroup } = options;
  const fileMode = (mode: number) => (fsGroup === undefined ? mode : mode | FS_GROUP_FILE_BITS);
  const dirMode = fsGroup === undefined ? DIR_MODE : DIR_MODE | FS_GROUP_DIR_BITS;
  // Everything is in place (modes, group) before the swap: a reader never sees it half-owned.
  // chown first: it may clear set-id bits that chmod then sets.
  const own = async (path: string, mode: number) => {
    if (fsGroup !== undefined) await chown(path, (await stat(path)).uid, fsGroup);
    await chmod(path, mode);
  };

  const oldTsName = await readlink(join(targetDir, DATA_LINK)).catch(ignoreMissing);
  const oldTsDir = oldTsName === undefined ? undefined : join(targetDir, oldTsName);
  const oldTopLevel = oldTsDir === undefined ? new Set<string>() : new Set(await readdir(oldTsDir).catch(() => []));
  const changed = oldTsDir === undefined || !(await sameContent(oldTsDir, payload, fileMode, fsGroup));

  if (changed) {
    const tsDir = await mkdtemp(join(targetDir, `..${timestamp(new Date())}.`));
    await own(tsDir, dirMode);
    for (const [path, file] of payload) {
      const full = join(tsDir, path);
      const segments = path.split('/').slice(0, -1);
      for (let depth = 1; depth <= segments.length; depth++) {
        const dir = join(tsDir, ...segments.slice(0, depth));
        if ((await lstat(dir).catch(ignoreMissing)) === undefined) {
          await mkdir(dir);
          await own(dir, dirMode);
        }
      }
      await writeFile(full, file.data);
      // Modes are set after creation so the process umask cannot narrow them.
      await own(full, fileMode(file.mode));
    }
    const tmpLink = join(targetDir, DATA_LINK_TMP);
    await rm(tmpLink, { force: true });
    await symlink(posix.basename(tsDir), tmpLink);
    await rename(tmpLink, join(targetDir, DATA_LINK));
  }

  const topLevel = new Set([...payload.keys()].map((path) => path.split('/')[0]!));
  for (const name of topLevel) {
    const visible = join(targetDir, name);
    if ((await lstat(visible).catch(ignoreMissing)) === undefined) await symlink(posix.join(DATA_LINK, name), visible);
  }
  for (const name of oldTopLevel) if (!topLevel.has(name)) await rm(join(targetDir, name), { force: true });
  if (changed && oldTsDir !== undefined) await rm(oldTsDir, { recursive: true, force: true });
  return changed;
}

/** Kubernetes' rules for a path inside a volume (items[].path, downwardAPI paths). */
export function validatePayloadPath(path: string): void {
  if (path === '') throw new Error('invalid path: must not be empty');
  if (path.startsWith('/')) throw new Error(`invalid path ${JSON.stringify(path)}: must be relative`);
  if (path.length > MAX_PATH) throw new Error(`invalid path ${JSON.stringify(path)}: longer than ${MAX_PATH} characters`);
  const segments = path.split('/');
  if (segments.some((segment) => segment.length > MAX_SEGMENT)) throw new Error(`invalid path ${JSON.stringify(path)}: a segment is longer than ${MAX_SEGMENT} characters`);
  if (segments.includes('..')) throw new Error(`invalid path ${JSON.stringify(path)}: must not contain '..'`);
  if (path.startsWith('..')) throw new Error(`invalid path ${JSON.stringify(path)}: must not start with '..'`);
}

/** The data directory of the last write, to read a file of the current content. */
export const currentDataPath = (targetDir: string, path: string) => join(targetDir, DATA_LINK, path);

// Same files (by relative path), same bytes, same modes (and group), and nothing else.
async function sameContent(tsDir: string, payload: Payload, fileMode: (mode: number) => number, fsGroup: number | undefined): Promise<boolean> {
  const existing = await listFiles(tsDir).catch(() => undefined);
  if (!existing || existing.length !== payload.size) return false;
  for (const path of existing) {
    const want = payload.get(path);
    if (!want) return false;
    const full = join(tsDir, path);
    const [info, data] = await Promise.all([stat(full), readFile(full)]);
    if ((info.mode & 0o7777) !== fileMode(want.mode) || !data.equals(want.data)) return false;
    if (fsGroup !== undefined && info.gid !== fsGroup) return false;
  }
  return true;
}

async function listFiles(dir: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...(await listFiles(join(dir, entry.name), rel)));
    else out.push(rel);
  }
  return out;
}

// `2026_11_23_17_40_45.123`: sortable, and says when the content was written.
function timestamp(at: Date): string {
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return `${at.getUTCFullYear()}_${pad(at.getUTCMonth() + 1)}_${pad(at.getUTCDate())}_${pad(at.getUTCHours())}_${pad(at.getUTCMinutes())}_${pad(at.getUTCSeconds())}.${pad(at.getUTCMilliseconds(), 3)}`;
}

function ignoreMissing(error: unknown): undefined {
  if ((error as NodeJS.ErrnoException).code === 'ENOENT' || (error as NodeJS.ErrnoException).code === 'EINVAL') return undefined;
  throw error;
}
