/**
 * A minimal POSIX ustar writer: regular files, directories and symbolic links, enough for image
 * layers and OCI layout archives. Node has no tar, and image archives must be byte-for-byte
 * reproducible (their sha256 digests name them), so every header field that varies by machine
 * (owner names, mtime) is fixed by the caller or defaults to a constant.
 */

export type TarEntry =
  | { readonly type: 'file'; readonly path: string; readonly data: Uint8Array; readonly mode?: number }
  | { readonly type: 'dir'; readonly path: string; readonly mode?: number }
  | { readonly type: 'symlink'; readonly path: string; readonly target: string };

const BLOCK = 512;

/** The fixed modification time of every entry: the epoch keeps archives reproducible. */
const MTIME = 0;

function writeString(header: Buffer, offset: number, length: number, value: string): void {
  const bytes = Buffer.from(value, 'utf8');
  if (bytes.length > length) throw new Error(`tar: "${value}" does not fit in ${length} bytes`);
  bytes.copy(header, offset);
}

/** Octal, zero-padded, NUL-terminated: the classic numeric field format every tar reads. */
function writeOctal(header: Buffer, offset: number, length: number, value: number): void {
  const digits = value.toString(8);
  if (digits.length > length - 1) throw new Error(`tar: ${value} does not fit in a ${length}-byte field`);
  writeString(header, offset, length, digits.padStart(length - 1, '0'));
}

/** ustar splits a long path at a slash into prefix (155 bytes) and name (100 bytes). */
function splitPath(path: string): { prefix: string; name: string } {
  if (Buffer.byteLength(path) <= 100) return { prefix: '', name: path };
  for (let i = path.length - 1; i > 0; i--) {
    if (path[i] !== '/') continue;
    const prefix = path.slice(0, i);
    const name = path.slice(i + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(name) <= 100 && name.length > 0) return { prefix, name };
  }
  throw new Error(`tar: path too long for ustar: ${path}`);
}

function header(entry: TarEntry, size: number): Buffer {
  const block = Buffer.alloc(BLOCK);
  const path = entry.type === 'dir' && !entry.path.endsWith('/') ? `${entry.path}/` : entry.path;
  const { prefix, name } = splitPath(path);
  const mode = entry.type === 'symlink' ? 0o777 : (entry.mode ?? (entry.type === 'dir' ? 0o755 : 0o644));
  writeString(block, 0, 100, name);
  writeOctal(block, 100, 8, mode);
  writeOctal(block, 108, 8, 0); // uid
  writeOctal(block, 116, 8, 0); // gid
  writeOctal(block, 124, 12, size);
  writeOctal(block, 136, 12, MTIME);
  block.fill(0x20, 148, 156); // the checksum is computed with its own field as spaces
  block[156] = (entry.type === 'file' ? '0' : entry.type === 'dir' ? '5' : '2').charCodeAt(0);
  if (entry.type === 'symlink') writeString(block, 157, 100, entry.target);
  writeString(block, 257, 6, 'ustar'); // "ustar\0"
  writeString(block, 263, 2, '00');
  writeString(block, 265, 32, 'root');
  writeString(block, 297, 32, 'root');
  writeString(block, 345, 155, prefix);
  let sum = 0;
  for (const byte of block) sum += byte;
  writeString(block, 148, 8, `${sum.toString(8).padStart(6, '0')}\0 `);
  return block;
}

/** The archive of `entries`, in the order given, ended by the two zero blocks tar expects. */
export function writeTar(entries: Iterable<TarEntry>): Buffer {
  const parts: Buffer[] = [];
  for (const entry of entries) {
    const data = entry.type === 'file' ? entry.data : undefined;
    parts.push(header(entry, data?.length ?? 0));
    if (data && data.length > 0) {
      parts.push(Buffer.from(data.buffer, data.byteOffset, data.byteLength));
      const pad = (BLOCK - (data.length % BLOCK)) % BLOCK;
      if (pad > 0) parts.push(Buffer.alloc(pad));
    }
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(parts);
}
