// The last step of making a corpus: the recorded NDJSON, its header line first, compressed.
import { createReadStream, createWriteStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { Readable, type Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { constants, createBrotliCompress, createGzip } from 'node:zlib';

/**
 * `.br` for the large corpora: brotli with a 16 MB window. A recording repeats itself at a
 * distance (a pod's lines are thousands of lines apart, each a near copy of the last), which
 * gzip's 32 KB window cannot see: 10 MB of the pod churn on hollow nodes was 296 KB gzipped (-9), 131 KB
 * with brotli quality 9 and 117 KB with 11 (readCorpus reads all three kinds).
 */
function compressor(out: string): Transform {
  if (out.endsWith('.gz')) return createGzip({ level: 9 });
  if (out.endsWith('.br')) {
    // 9: 105 MB in seconds; 11 is about 10 % smaller and takes twenty times as long.
    const quality = Number(process.env['CORPUS_BROTLI_QUALITY'] ?? 9);
    return createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: quality, [constants.BROTLI_PARAM_LGWIN]: 24 } });
  }
  throw new Error(`${out}: a corpus is shipped as .ndjson.gz or .ndjson.br`);
}

/**
 * Writes `out`: `{"at":0,"header":…}` when a header is given, then the lines of `raw` as recorded,
 * compressed by `out`'s extension. Streams: a 5,000-pod recording is 105 MB of NDJSON.
 */
export async function shipCorpus(raw: string, out: string, header?: Record<string, unknown>): Promise<void> {
  async function* lines(): AsyncGenerator<string> {
    if (header !== undefined) yield `${JSON.stringify({ at: 0, header })}\n`;
    for await (const line of createInterface({ input: createReadStream(raw), crlfDelay: Infinity })) {
      if (line.trim() !== '') yield `${line}\n`;
    }
  }
  await pipeline(Readable.from(lines()), compressor(out), createWriteStream(out));
}
