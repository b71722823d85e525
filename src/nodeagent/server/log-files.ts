import { createReadStream } from 'node:fs';
import { readdir, type FileHandle } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { createGunzip } from 'node:zlib';

/**
 * A container's log files: the current one (`<path>`, the runtime writes it) and the rotated
 * ones, `<path>.<YYYYMMDD-hhmmss>` with all but the newest gzipped (`….gz`), as the kubelet names them.
 */

/** `<path>.<timestamp>` of a rotation at `ms` (UTC), the kubelet's `20060102-150405` layout. */
export function rotatedName(path: string, ms: number): string {
  const d = new Date(ms);
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  return `${path}.${p(d.getUTCFullYear(), 4)}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}-${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`;
}

const ROTATED = /^\.\d{8}-\d{6}(\.gz)?$/;

/** The rotated files of `path`, oldest first (the timestamp orders them). */
export async function rotatedFiles(path: string): Promise<string[]> {
  const dir = dirname(path);
  const base = basename(path);
  let names: string[];
  try {
    names = await readdir(dir);
  } catch {
    return [];
  }
  return names
    .filter((name) => name.startsWith(base) && ROTATED.test(name.slice(base.length)))
    .sort()
    .map((name) => join(dir, name));
}

const NEWLINE = 0x0a;

/** Splits bytes into lines (without their newline); the bytes after the last newline are carried. */
export class LineSplitter {
  #carry: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): Buffer[] {
    const data = this.#carry.length ? Buffer.concat([this.#carry, chunk]) : chunk;
    const lines: Buffer[] = [];
    let start = 0;
    for (let at = data.indexOf(NEWLINE); at >= 0; at = data.indexOf(NEWLINE, start)) {
      lines.push(data.subarray(start, at));
      start = at + 1;
    }
    this.#carry = Buffer.from(data.subarray(start));
    return lines;
  }
}

/** Every complete line of a (possibly gzipped) log file, streamed. A missing file has none. */
export async function* fileLines(path: string): AsyncGenerator<Buffer> {
  const raw = createReadStream(path);
  const source = path.endsWith('.gz') ? raw.pipe(createGunzip()) : raw;
  const splitter = new LineSplitter();
  try {
    for await (const chunk of source) yield* splitter.push(chunk as Buffer);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  } finally {
    raw.destroy();
  }
}

/** Reads a file from a position as it grows: the follow side of the logs endpoint. */
export class GrowingFile {
  #position: number;
  readonly #splitter = new LineSplitter();
  readonly #buffer = Buffer.allocUnsafe(64 * 1024);

  constructor(
    readonly handle: FileHandle,
    readonly ino: number,
    position = 0,
  ) {
    this.#position = position;
  }

  /** The complete lines of the next chunk of the file (at most 64 KiB read); undefined at its current end. */
  async readBatch(): Promise<Buffer[] | undefined> {
    const { bytesRead } = await this.handle.read(this.#buffer, 0, this.#buffer.length, this.#position);
    if (bytesRead === 0) return undefined;
    this.#position += bytesRead;
    return this.#splitter.push(Buffer.from(this.#buffer.subarray(0, bytesRead)));
  }

  close(): Promise<void> {
    return this.handle.close();
  }
}
