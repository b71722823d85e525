import { chmod, readFile, rename, writeFile } from 'node:fs/promises';

/**
 * Reading and writing the server's own state files (certificates, keys, tokens). Writes go to a
 * temporary file renamed into place, so that a crash never leaves half a key behind and a file
 * that already existed with looser permissions still ends up with the mode asked for.
 */

/** The file's text, or `undefined` when it does not exist (other errors are thrown). */
export async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

async function writeAtomic(path: string, text: string, mode: number): Promise<void> {
  const temp = `${path}.${process.pid}.tmp`;
  await writeFile(temp, text, { mode });
  // The umask may have narrowed or (for 0644) kept the mode: set it exactly.
  await chmod(temp, mode);
  await rename(temp, path);
}

/** A secret (private key, token): readable by the owner only. */
export function writePrivateFile(path: string, text: string): Promise<void> {
  return writeAtomic(path, text, 0o600);
}

/** A certificate: anyone may read it. */
export function writePublicFile(path: string, text: string): Promise<void> {
  return writeAtomic(path, text, 0o644);
}
