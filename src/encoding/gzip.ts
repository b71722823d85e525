import { Readable } from 'node:stream';
import { constants, createGzip, gzipSync } from 'node:zlib';

/** Responses at most this large are sent as they are (Kubernetes' defaultGzipThresholdBytes). */
export const GZIP_THRESHOLD_BYTES = 128 * 1024;
/** Level 1: most of the ratio at a fraction of the CPU (Kubernetes' gzipContentEncodingLevel). */
export const GZIP_LEVEL = constants.Z_BEST_SPEED;

/** True when an `Accept-Encoding` header allows gzip (named, or `*`, with a weight above 0). */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  if (header === undefined) return false;
  const text = Array.isArray(header) ? header.join(',') : header;
  for (const part of text.split(',')) {
    const [coding, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    if (coding !== 'gzip' && coding !== '*') continue;
    const q = params.find((p) => p.startsWith('q='));
    if (q === undefined || Number(q.slice(2)) > 0) return true;
  }
  return false;
}

/** A body ready to send, and whether it is gzipped. */
export interface MaybeCompressed {
  readonly body: Buffer | Readable;
  readonly gzip: boolean;
}

/**
 * A body that is gzipped only once it grows past the threshold: chunks are read and held until
 * it does (then the held ones and the rest go through one gzip stream) or the body ends below it
 * (then it is sent as it is). So a streamed list is still streamed, and a small one costs nothing.
 */
export function compressLarge(chunks: Iterable<Uint8Array>, threshold = GZIP_THRESHOLD_BYTES): MaybeCompressed {
  const iterator = chunks[Symbol.iterator]();
  const held: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const next = iterator.next();
    if (next.done) return { body: Buffer.concat(held, size), gzip: false };
    held.push(next.value);
    size += next.value.length;
    if (size > threshold) break;
  }
  function* all(): Generator<Uint8Array> {
    yield* held.splice(0);
    for (let next = iterator.next(); !next.done; next = iterator.next()) yield next.value;
  }
  const gzip = createGzip({ level: GZIP_LEVEL });
  const source = Readable.from(all(), { objectMode: false });
  source.on('error', (error) => gzip.destroy(error));
  return { body: source.pipe(gzip), gzip: true };
}

/** One buffer, gzipped when it is larger than the threshold. */
export function compressBuffer(body: Uint8Array, threshold = GZIP_THRESHOLD_BYTES): MaybeCompressed {
  return body.length > threshold ? { body: gzipSync(body, { level: GZIP_LEVEL }), gzip: true } : { body: Buffer.from(body.buffer, body.byteOffset, body.byteLength), gzip: false };
}
