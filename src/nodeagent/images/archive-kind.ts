/**
 * Tells an image archive from any other file before handing it to ctr, so a stray file in the
 * images directory gives a clear "not an image archive" instead of ctr's parse error. Walks the
 * tar headers only (data is skipped by seeking), so a large archive costs a few reads.
 */
import { open } from 'node:fs/promises';

export type ImageArchiveKind = 'oci' | 'docker';

const BLOCK = 512;
/** Headers looked at before giving up: the marker files sit at the start of every archive we know. */
const MAX_HEADERS = 4096;

function field(header: Buffer, offset: number, length: number): string {
  const raw = header.subarray(offset, offset + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end < 0 ? length : end).toString('utf8');
}

function isTarHeader(header: Buffer): boolean {
  if (field(header, 257, 5) === 'ustar') return true;
  // Old (v7) tars have no magic; their checksum is still there to check.
  const stored = parseInt(field(header, 148, 8).trim(), 8);
  if (!Number.isFinite(stored)) return false;
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : header[i]!;
  return sum === stored;
}

/** `oci` for an OCI image layout tar (`index.json`), `docker` for a `docker save` tar (`manifest.json`), else undefined. */
export async function imageArchiveKind(path: string): Promise<ImageArchiveKind | undefined> {
  const file = await open(path, 'r');
  try {
    const header = Buffer.alloc(BLOCK);
    let position = 0;
    let sawIndex = false;
    let sawLayout = false;
    for (let i = 0; i < MAX_HEADERS; i++) {
      const { bytesRead } = await file.read(header, 0, BLOCK, position);
      if (bytesRead < BLOCK || header.every((b) => b === 0)) break;
      if (!isTarHeader(header)) return undefined;
      const prefix = field(header, 345, 155);
      const name = (prefix ? `${prefix}/` : '') + field(header, 0, 100);
      const clean = name.replace(/^\.\//, '');
      if (clean === 'manifest.json') return 'docker';
      if (clean === 'index.json') sawIndex = true;
      if (clean === 'oci-layout') sawLayout = true;
      if (sawIndex && sawLayout) return 'oci';
      const sizeField = header.subarray(124, 136);
      // Base-256 sizes (high bit set) are for entries over 8 GiB.
      const size = sizeField[0]! & 0x80 ? Number(sizeField.readBigUInt64BE(4)) : parseInt(field(header, 124, 12).trim() || '0', 8);
      position += BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    }
    return sawIndex ? 'oci' : undefined;
  } finally {
    await file.close();
  }
}
