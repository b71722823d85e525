/**
 * Images without a registry: the archives in the agent's images directory
 * (`<root-dir>/images/`), imported into the runtime at start, and the files `svc image import`
 * names. Each archive is checked to be an image archive first, then loaded with ctr
 * (`importImageArchive`) into the snapshotter the CRI plugin uses. One bad file does not stop the
 * others: every file gets a result.
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { StatusError } from '../../api/index.js';
import type { CriClient } from '../cri/index.js';
import { importImageArchive } from '../cri/index.js';
import { imageArchiveKind, type ImageArchiveKind } from './archive-kind.js';

/** The directory under the agent's root dir whose archives are imported at start. */
export const IMAGES_DIR_NAME = 'images';

export interface ImageArchiveImportOptions {
  /** containerd's socket path (or `unix://` endpoint). */
  readonly address: string;
  /** The CRI plugin's snapshotter; `criSnapshotter()` asks the runtime. */
  readonly snapshotter: string;
  /** The ctr binary; default `ctr` on PATH. */
  readonly ctr?: string;
}

export type ArchiveImportResult =
  | { readonly file: string; readonly imported: true; readonly kind: ImageArchiveKind }
  | { readonly file: string; readonly imported: false; readonly error: StatusError };

/** Checks that `file` is a readable image archive; throws a StatusError saying what is wrong. */
export async function checkImageArchive(file: string): Promise<ImageArchiveKind> {
  let isFile: boolean;
  try {
    isFile = (await stat(file)).isFile();
  } catch (error) {
    throw new StatusError({ reason: 'NotFound', message: `${file}: no such file`, cause: error });
  }
  if (!isFile) throw new StatusError({ reason: 'BadRequest', message: `${file}: not a regular file` });
  const kind = await imageArchiveKind(file).catch((error: unknown) => {
    throw new StatusError({ reason: 'BadRequest', message: `${file}: cannot read: ${(error as Error).message}`, cause: error });
  });
  if (!kind) throw new StatusError({ reason: 'BadRequest', message: `${file}: not an image archive (expected a docker-archive or OCI layout tar)` });
  return kind;
}

/** Imports each file in order; a failure is reported in its result, not thrown. */
export async function importImageArchives(files: readonly string[], options: ImageArchiveImportOptions): Promise<ArchiveImportResult[]> {
  const results: ArchiveImportResult[] = [];
  for (const file of files) {
    try {
      const kind = await checkImageArchive(file);
      await importImageArchive({ address: options.address, archive: file, snapshotter: options.snapshotter, ...(options.ctr ? { ctr: options.ctr } : {}) });
      results.push({ file, imported: true, kind });
    } catch (error) {
      const statusError = error instanceof StatusError ? error : new StatusError({ reason: 'InternalError', message: `${file}: ${String(error)}`, cause: error });
      results.push({ file, imported: false, error: statusError });
    }
  }
  return results;
}

/**
 * Imports every archive in `dir` (regular files, dot files skipped, in name order). A missing
 * directory holds nothing to import.
 */
export async function importImageDirectory(dir: string, options: ImageArchiveImportOptions): Promise<ArchiveImportResult[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new StatusError({ reason: 'InternalError', message: `reading ${dir}: ${(error as Error).message}`, cause: error });
  }
  const files: string[] = [];
  for (const name of names.sort()) {
    if (name.startsWith('.')) continue;
    const path = join(dir, name);
    // Partial copies (`svc image import` writes `.name.tmp` then renames) are dot files; directories are not archives.
    if ((await stat(path).catch(() => undefined))?.isFile()) files.push(path);
  }
  return importImageArchives(files, options);
}

/**
 * The snapshotter of the runtime's CRI plugin, from containerd's verbose Status (its config).
 * An image imported into another snapshotter is listed but cannot run, so this is asked, not assumed.
 */
export async function criSnapshotter(cri: Pick<CriClient, 'status'>): Promise<string> {
  const status = await cri.status({ verbose: true });
  const config = status.info.config;
  if (config) {
    try {
      const parsed = JSON.parse(config) as { containerd?: { snapshotter?: unknown } };
      if (typeof parsed.containerd?.snapshotter === 'string' && parsed.containerd.snapshotter) return parsed.containerd.snapshotter;
    } catch {
      // fall through to the default
    }
  }
  return 'overlayfs';
}

/**
 * What the agent runs at start: every archive in `<rootDir>/images/` imported into the runtime at
 * `endpoint`, into the snapshotter its CRI plugin uses.
 */
export async function importAgentImages(options: { readonly cri: Pick<CriClient, 'status'>; readonly endpoint: string; readonly rootDir: string; readonly ctr?: string }): Promise<ArchiveImportResult[]> {
  const snapshotter = await criSnapshotter(options.cri);
  return importImageDirectory(join(options.rootDir, IMAGES_DIR_NAME), { address: options.endpoint, snapshotter, ...(options.ctr ? { ctr: options.ctr } : {}) });
}
