import { readFile } from 'node:fs/promises';

/** How long a token read from a file is used before the file is read again (client-go's period). */
export const TOKEN_FILE_PERIOD_MS = 60_000;

export interface FileTokenSourceOptions {
  /** Re-read the file when the token was read longer ago than this. Default one minute. */
  readonly periodMs?: number | undefined;
  /** The clock, in ms (tests move it). Default `Date.now`. */
  readonly now?: (() => number) | undefined;
}

/**
 * A token kept in a file that something else rotates (a projected service-account token): read
 * at most once per period, as client-go's cached file token source does. A read that fails after
 * a good one keeps the old token (the kubelet replaces the file by a rename, so a read never sees
 * half a file, but it may briefly see none); a first read that fails rejects.
 */
export function fileTokenSource(path: string, options: FileTokenSourceOptions = {}): () => Promise<string> {
  const periodMs = options.periodMs ?? TOKEN_FILE_PERIOD_MS;
  const now = options.now ?? Date.now;
  let token: string | undefined;
  let readAt = 0;
  let reading: Promise<string> | undefined;
  const read = async (): Promise<string> => {
    try {
      const text = (await readFile(path, 'utf8')).trim();
      if (text === '') throw new Error(`${path} is empty`);
      token = text;
      readAt = now();
      return text;
    } catch (error) {
      if (token !== undefined) return token;
      throw error;
    } finally {
      reading = undefined;
    }
  };
  return () => {
    if (token !== undefined && now() - readAt < periodMs) return Promise.resolve(token);
    reading ??= read();
    return reading;
  };
}
