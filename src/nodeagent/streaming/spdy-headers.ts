/**
 * SPDY/3 header blocks: `count(32)` then `length(32) name length(32) value` pairs, names lower
 * case, several values of one name joined by NUL. Each direction of a connection compresses its
 * blocks with ONE zlib stream (primed with the SPDY dictionary) flushed with Z_SYNC_FLUSH after
 * every block, so a block can only be inflated after every earlier one: callers keep order.
 */
import { constants, createDeflate, createInflate, type Deflate, type Inflate } from 'node:zlib';
import { StatusError } from '../../api/index.js';
import { SPDY_HEADER_DICTIONARY } from './spdy-dictionary.js';

/** Header names lower case; repeated values in order. */
export type SpdyHeaders = ReadonlyMap<string, readonly string[]>;

/** The largest inflated header block accepted: port-forward's headers are a few dozen bytes. */
const MAX_HEADER_BLOCK_BYTES = 64 * 1024;

export function encodeHeaderBlock(headers: Readonly<Record<string, string | readonly string[]>>): Buffer {
  const entries = Object.entries(headers);
  const parts: Buffer[] = [];
  const count = Buffer.alloc(4);
  count.writeUInt32BE(entries.length);
  parts.push(count);
  for (const [name, value] of entries) {
    const n = Buffer.from(name.toLowerCase(), 'utf8');
    const v = Buffer.from(typeof value === 'string' ? value : value.join('\0'), 'utf8');
    const nl = Buffer.alloc(4);
    nl.writeUInt32BE(n.length);
    const vl = Buffer.alloc(4);
    vl.writeUInt32BE(v.length);
    parts.push(nl, n, vl, v);
  }
  return Buffer.concat(parts);
}

function headerError(message: string): StatusError {
  return new StatusError({ reason: 'BadRequest', message: `SPDY header block: ${message}` });
}

export function decodeHeaderBlock(block: Buffer): Map<string, string[]> {
  const headers = new Map<string, string[]>();
  let at = 0;
  const read = (): Buffer => {
    if (at + 4 > block.length) throw headerError('truncated');
    const length = block.readUInt32BE(at);
    at += 4;
    if (at + length > block.length) throw headerError('truncated');
    const out = block.subarray(at, at + length);
    at += length;
    return out;
  };
  if (block.length < 4) throw headerError('truncated');
  const count = block.readUInt32BE(0);
  at = 4;
  for (let i = 0; i < count; i++) {
    const name = read().toString('utf8').toLowerCase();
    const values = read().toString('utf8').split('\0');
    headers.set(name, [...(headers.get(name) ?? []), ...values]);
  }
  return headers;
}

/** Runs zlib on one block and flushes with Z_SYNC_FLUSH, collecting what comes out. */
function transform(stream: Deflate | Inflate, input: Buffer, limit: number): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size > limit) {
        cleanup();
        reject(headerError(`over ${limit} bytes`));
        return;
      }
      chunks.push(chunk);
    };
    const onError = (error: Error): void => {
      cleanup();
      reject(headerError(error.message));
    };
    const cleanup = (): void => {
      stream.off('data', onData);
      stream.off('error', onError);
    };
    stream.on('data', onData);
    stream.on('error', onError);
    stream.write(input);
    stream.flush(constants.Z_SYNC_FLUSH, () => {
      cleanup();
      resolve(Buffer.concat(chunks));
    });
  });
}

/** One direction's compressor. `compress` calls must not overlap (chain them). */
export class HeaderCompressor {
  private readonly deflate = createDeflate({ dictionary: SPDY_HEADER_DICTIONARY });
  compress(headers: Readonly<Record<string, string | readonly string[]>>): Promise<Buffer> {
    return transform(this.deflate, encodeHeaderBlock(headers), Number.MAX_SAFE_INTEGER);
  }
  close(): void {
    this.deflate.close();
  }
}

/** One direction's decompressor. `decompress` calls must not overlap and must follow the blocks' order. */
export class HeaderDecompressor {
  private readonly inflate = createInflate({ dictionary: SPDY_HEADER_DICTIONARY });
  async decompress(block: Buffer): Promise<Map<string, string[]>> {
    return decodeHeaderBlock(await transform(this.inflate, block, MAX_HEADER_BLOCK_BYTES));
  }
  close(): void {
    this.inflate.close();
  }
}
